// Package pyspec writes pyext/pyspec_gen.c and pyext/pyspec_gen.h: what
// CPython is told about godlpack._native and godlpack.Array. From the
// tables below come the module's and the type's method tables with their
// docstrings, the attribute and slot tables, the type spec, the prototype
// of every C function they name, the arithmetic slots (which all refuse,
// naming the way out), and the module state with its traverse, clear and
// interned names. A Python-facing function is then a C function and a row
// here; the compiler checks that each named function exists with the
// signature its row implies.
//
// tests_go/pyspec_test.go fails while the committed files differ.
package pyspec

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Paths of the generated files, relative to the repository root.
const (
	CPath = "pyext/pyspec_gen.c"
	HPath = "pyext/pyspec_gen.h"
)

// How a function takes its arguments (METH_*).
const (
	noArgs  = "METH_NOARGS"
	oneArg  = "METH_O"
	varArgs = "METH_VARARGS"
	fastKW  = "METH_FASTCALL | METH_KEYWORDS"
	kwArgs  = "METH_VARARGS | METH_KEYWORDS"
)

// Fn is a function of the module or a method of Array. Sig is what goes
// between the parentheses of the docstring's signature line; an empty Doc
// gives no docstring (the private functions of the Python package).
type Fn struct {
	Name, C, Call, Sig, Doc string
}

// Attr is a read-only attribute of Array.
type Attr struct{ Name, C, Doc string }

// Slot is an entry of Array's slot table whose C function has the
// signature Sig ("%s" stands for the function's name).
type Slot struct{ Slot, C, Sig string }

// Arith is an arithmetic slot: binary (or pow's ternary) or unary, and how
// the refusal names the operation.
type Arith struct {
	Slot, C, Op string
	Arity       int
}

// Field is a member of the module state. Kind "obj" is a strong reference
// (traversed and cleared), "objs" an array of Len of them, "cache" an array
// whose entries' Key member is a strong reference for the first Count of
// them, "intern" an interned str of Intern made at module creation, "plain"
// anything else (Type verbatim).
type Field struct {
	Kind, Type, Name, Len, Key, Count, Intern, Doc string
}

const reduceSig = "$self, /, axis=None, dtype=None, out=None, keepdims=False"
const reduceSigNoDtype = "$self, /, axis=None, out=None, keepdims=False"

// Module lists the functions of godlpack._native.
var Module = []Fn{
	{"from_dlpack", "gd_mod_from_dlpack", fastKW, "x, /, *, device=None, copy=None",
		"Import x (an object with __dlpack__, or a DLPack capsule) as a godlpack.Array,\n" +
			"zero-copy when possible."},
	{"_asarray_dlpack", "gd_mod_asarray_dlpack", varArgs, "", ""},
	{"_full", "gd_mod_full", varArgs, "", ""},
	{"_consumer_stream", "gd_mod_consumer_stream", varArgs, "", ""},
	{"_judge_export", "gd_mod_judge_export", varArgs, "", ""},
	{"_judge_import", "gd_mod_judge_import", varArgs, "", ""},
	{"_owner_refs", "gd_mod_owner_refs", oneArg, "", ""},
	{"_exchange_api", "gd_mod_exchange_api", varArgs, "", ""},
	{"_probe_capsule", "gd_mod_probe_capsule", varArgs, "", ""},
	{"_probe_calls", "gd_mod_probe_calls", oneArg, "", ""},
	{"_arange", "gd_mod_arange", varArgs, "", ""},
	{"_convert", "gd_mod_convert", varArgs, "", ""},
	{"_stack_into", "gd_mod_stack_into", varArgs, "", ""},
	{"_from_nested", "gd_mod_from_nested", varArgs, "", ""},
	{"_from_buffer", "gd_mod_from_buffer", oneArg, "", ""},
	{"_bytes_view", "gd_mod_bytes_view", varArgs, "", ""},
	{"_reinterpret", "gd_mod_reinterpret", varArgs, "", ""},
	{"_retype", "gd_mod_retype", varArgs, "", ""},
	{"_init", "gd_mod_init", varArgs, "", ""},
	{"_in_fork_child", "gd_mod_in_fork_child", noArgs, "", ""},
	{"_install_gofuncs", "gd_mod_install_gofuncs", noArgs, "", ""},
	{"_load_kit", "gd_mod_load_kit", oneArg, "path, /",
		"Loads the Go plugin of a kit at path into this module's Go runtime; returns its functions by module."},
	{"_vectorcall_method", "gd_mod_vectorcall_method", noArgs, "", ""},
	{"_gofuncs", "gd_mod_gofuncs", noArgs, "", "The Go functions of this module, as JSON."},
	{"_bench_floor", "gd_mod_bench_floor", oneArg, "x, /",
		"An empty Go call with the GIL released (x True: held): the least a Go function's call costs."},
	{"_go_allocs", "gd_mod_go_allocs", noArgs, "",
		"Go heap objects allocated so far (for tests: hot paths add none)."},
	{"_go_crossings", "gd_mod_go_crossings", noArgs, "",
		"Calls into Go made by DLPack exports and imports so far (for tests: the fast paths add none)."},
}

// Probes lists the functions of the module that only builds with the test
// probes have (GD_PROBES: the godlpack_probes tag, pyext/probes.go).
var Probes = []Fn{
	{"_test_panic", "gd_mod_test_panic", noArgs, "", ""},
	{"_test_go_gc", "gd_mod_test_go_gc", noArgs, "", ""},
}

// Methods lists the methods of godlpack.Array.
var Methods = []Fn{
	{"__sizeof__", "gd_array_sizeof", noArgs, "$self, /",
		"Bytes of the object, counting the data only in the Array that owns it (as numpy)."},
	{"__buffer__", "gd_array_buffer_method", oneArg, "$self, flags, /", "A memoryview of the array (PEP 688)."},
	{"__release_buffer__", "gd_array_release_buffer_method", oneArg, "$self, buffer, /",
		"Release a memoryview made by __buffer__."},
	{"__dlpack__", "gd_array_dlpack", fastKW, "$self, /, *, stream=None, max_version=None, dl_device=None, copy=None",
		"Export the array as a DLPack capsule (\"dltensor_versioned\" when max_version >= (1, 0),\n" +
			"else legacy \"dltensor\")."},
	{"__dlpack_device__", "gd_array_dlpack_device", noArgs, "$self, /", "Return (DLDeviceType, device_id)."},
	{"__arrow_c_schema__", "gd_array_arrow_c_schema", noArgs, "$self, /",
		"The Arrow type of the elements, as an \"arrow_schema\" capsule (Arrow PyCapsule interface)."},
	{"__arrow_c_array__", "gd_array_arrow_c_array", kwArgs, "$self, /, requested_schema=None",
		"A 1-d array as (\"arrow_schema\", \"arrow_array\") capsules: its elements shared when they lie\n" +
			"one after the other, else copied (a stride, bool's bitmap). requested_schema may be declined."},
	{"__complex__", "gd_array_complex", noArgs, "$self, /",
		"The one element of the array as a complex (complex(a))."},
	{"tolist", "gd_array_tolist", noArgs, "$self, /", "Nested Python lists of Python scalars."},
	{"copy", "gd_array_copy", noArgs, "$self, /", "A C-contiguous deep copy (computed in Go)."},
	{"fill", "gd_array_fill", oneArg, "$self, value, /", "Set every element to value (computed in Go)."},
	{"sum", "gd_array_sum", fastKW, reduceSig,
		"Sum of the elements over the given axes (all when axis is None), computed in Go.\n" +
			"A Python scalar when the result is 0-d and out is None, else an Array."},
	{"prod", "gd_array_prod", fastKW, reduceSig, "Product of the elements over the given axes (see sum)."},
	{"min", "gd_array_min", fastKW, reduceSigNoDtype, "Minimum over the given axes; NaN propagates (see sum)."},
	{"max", "gd_array_max", fastKW, reduceSigNoDtype, "Maximum over the given axes; NaN propagates (see sum)."},
	{"any", "gd_array_any", fastKW, reduceSigNoDtype,
		"Whether any element over the given axes is non-zero (see sum)."},
	{"all", "gd_array_all", fastKW, reduceSigNoDtype,
		"Whether all elements over the given axes are non-zero (see sum)."},
	{"mean", "gd_array_mean", fastKW, reduceSig,
		"Arithmetic mean over the given axes; float64 for integer arrays (see sum)."},
	{"reshape", "gd_array_reshape", varArgs, "$self, /, *shape",
		"A view with a new shape when possible, else a copy."},
	{"transpose", "gd_array_transpose", varArgs, "$self, /, *axes",
		"A view with permuted axes (reversed when none)."},
	{"_usm_data", "gd_array_usm_data", noArgs, "", ""},
}

// Attrs lists the attributes of godlpack.Array.
var Attrs = []Attr{
	{"shape", "gd_get_shape", "Tuple of dimension sizes."},
	{"strides", "gd_get_strides", "Tuple of strides in ELEMENTS (DLPack convention); may be negative."},
	{"ndim", "gd_get_ndim", "Number of dimensions."},
	{"size", "gd_get_size", "Number of elements."},
	{"itemsize", "gd_get_itemsize", "Bytes per element (0 for packed sub-byte dtypes, 1 for padded ones)."},
	{"nbytes", "gd_get_nbytes", "Bytes spanned by the elements (size * itemsize)."},
	{"dtype", "gd_get_dtype", "The element type, a godlpack.DType."},
	{"device", "gd_get_device", "The device holding the memory, a godlpack.Device."},
	{"readonly", "gd_get_readonly", "True when writes are refused (e.g. imported READ_ONLY)."},
	{"T", "gd_get_T", "Transposed view (axes reversed)."},
	{"data_ptr", "gd_get_data_ptr",
		"Address of the first element (an int), as torch's data_ptr() and numpy's ctypes.data give it; " +
			"valid while the array lives."},
}

// Slots lists Array's slots other than the tables and the arithmetic.
var Slots = []Slot{
	{"Py_tp_dealloc", "gd_array_dealloc", "void %s(PyObject *self)"},
	{"Py_tp_hash", "PyObject_HashNotImplemented", ""}, // unhashable, as numpy's arrays
	{"Py_nb_bool", "gd_nb_bool", "int %s(PyObject *self)"},
	{"Py_nb_int", "gd_nb_int", "PyObject *%s(PyObject *self)"},
	{"Py_nb_float", "gd_nb_float", "PyObject *%s(PyObject *self)"},
	{"Py_nb_index", "gd_nb_index", "PyObject *%s(PyObject *self)"},
	{"Py_tp_richcompare", "gd_array_richcompare", "PyObject *%s(PyObject *self, PyObject *other, int op)"},
	{"Py_mp_subscript", "gd_array_subscript", "PyObject *%s(PyObject *self, PyObject *key)"},
	{"Py_mp_ass_subscript", "gd_array_ass_subscript", "int %s(PyObject *self, PyObject *key, PyObject *value)"},
	{"Py_mp_length", "gd_array_length", "Py_ssize_t %s(PyObject *self)"},
	{"Py_sq_length", "gd_array_length", ""},
	{"Py_sq_item", "gd_array_item", "PyObject *%s(PyObject *self, Py_ssize_t i)"},
	{"Py_tp_iter", "gd_array_iter", "PyObject *%s(PyObject *self)"},
	{"Py_bf_getbuffer", "gd_getbuffer", "int %s(PyObject *self, Py_buffer *view, int flags)"},
	{"Py_bf_releasebuffer", "gd_releasebuffer", "void %s(PyObject *self, Py_buffer *view)"},
}

// Ariths lists the arithmetic slots: godlpack.Array does no arithmetic, so
// each gives the other operand's type its turn (Python's dispatch) and
// then refuses (gd_arith_binary / gd_arith_unary, arith.c).
var Ariths = []Arith{
	{"Py_nb_add", "gd_nb_add", "+", 2},
	{"Py_nb_subtract", "gd_nb_subtract", "-", 2},
	{"Py_nb_multiply", "gd_nb_multiply", "*", 2},
	{"Py_nb_remainder", "gd_nb_remainder", "%", 2},
	{"Py_nb_divmod", "gd_nb_divmod", "divmod()", 2},
	{"Py_nb_power", "gd_nb_power", "**", 3},
	{"Py_nb_lshift", "gd_nb_lshift", "<<", 2},
	{"Py_nb_rshift", "gd_nb_rshift", ">>", 2},
	{"Py_nb_and", "gd_nb_and", "&", 2},
	{"Py_nb_xor", "gd_nb_xor", "^", 2},
	{"Py_nb_or", "gd_nb_or", "|", 2},
	{"Py_nb_floor_divide", "gd_nb_floor_divide", "//", 2},
	{"Py_nb_true_divide", "gd_nb_true_divide", "/", 2},
	{"Py_nb_matrix_multiply", "gd_nb_matrix_multiply", "@", 2},
	{"Py_nb_negative", "gd_nb_negative", "unary -", 1},
	{"Py_nb_positive", "gd_nb_positive", "unary +", 1},
	{"Py_nb_absolute", "gd_nb_absolute", "abs()", 1},
	{"Py_nb_invert", "gd_nb_invert", "unary ~", 1},
}

// ArrayDoc is godlpack.Array's docstring.
const ArrayDoc = "An n-dimensional array in C memory owned by godlpack's Go core.\n\n" +
	"Create arrays with godlpack.asarray, empty, zeros, ones, full, arange or\n" +
	"from_dlpack. Exchanged zero-copy through DLPack (__dlpack__) and the buffer\n" +
	"protocol. Strides are in elements."

// ModuleDoc is godlpack._native's docstring.
const ModuleDoc = "The CPython skin of godlpack (C, abi3) around its Go core."

// State lists the module state's members.
var State = []Field{
	{Kind: "cache", Type: "gd_kw_entry", Name: "kw_cache", Len: "GD_KW_CACHE", Key: "kwnames", Count: "kw_cache_n",
		Doc: "__dlpack__ kwnames tuples seen (producer.c)"},
	{Kind: "plain", Type: "int", Name: "kw_cache_n"},
	{Kind: "plain", Type: "const void *", Name: "kw_last", Doc: "last uncached kwnames, for comparison only"},
	{Kind: "cache", Type: "gd_api_entry", Name: "api_cache", Len: "GD_API_CACHE", Key: "type", Count: "api_cache_n",
		Doc: "what the imports learnt per producer type (capsule.c)"},
	{Kind: "plain", Type: "int", Name: "api_cache_n"},
	{Kind: "plain", Type: "unsigned", Name: "api_cache_next", Doc: "next entry replaced once the cache is full"},
	{Kind: "plain", Type: "uint64_t", Name: "host_copy_types",
		Doc: "core.AsksHostCopy per device type (gd_import_state)"},
	{Kind: "obj", Type: "PyTypeObject *", Name: "array_type"},
	{Kind: "obj", Type: "PyObject *", Name: "dtype_by_key", Doc: "dict: int key -> godlpack.DType"},
	{Kind: "obj", Type: "PyObject *", Name: "device_cls", Doc: "godlpack.Device"},
	{Kind: "obj", Type: "PyObject *", Name: "devtype_enum",
		Doc: "callable: () -> godlpack.DLDeviceType, built by its first use (array.c)"},
	{Kind: "objs", Type: "PyObject *", Name: "devtype_members", Len: "GD_DEVTYPE_MAX + 1",
		Doc: "godlpack.DLDeviceType by value, filled at the first one handed out"},
	{Kind: "obj", Type: "PyObject *", Name: "cpu_device", Doc: "Device(\"cpu\")"},
	{Kind: "obj", Type: "PyObject *", Name: "cpu_dlpack_device",
		Doc: "(DLDeviceType.kDLCPU, 0): __dlpack_device__ of CPU arrays"},
	{Kind: "obj", Type: "PyObject *", Name: "parse_device", Doc: "callable: obj -> (type, id)"},
	{Kind: "obj", Type: "PyObject *", Name: "sequence_operand",
		Doc: "godlpack._sequence_operand: list, tuple, range and buffer operands of comparisons"},
	{Kind: "obj", Type: "PyObject *", Name: "max_version",
		Doc: "(DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION), made by gd_module_init"},
	{Kind: "obj", Type: "PyObject *", Name: "kw_max_version",
		Doc: "(\"max_version\",): kwnames of the common __dlpack__ call, made by gd_module_init"},
	{Kind: "intern", Name: "s_dlpack", Intern: "__dlpack__"},
	{Kind: "intern", Name: "s_max_version", Intern: "max_version"},
	{Kind: "intern", Name: "s_dl_device", Intern: "dl_device"},
	{Kind: "intern", Name: "s_copy", Intern: "copy"},
	{Kind: "intern", Name: "s_stream", Intern: "stream"},
}

// cstr is s as a C string literal.
func cstr(s string) string {
	for _, r := range s {
		if r > 126 {
			panic(fmt.Sprintf("pyspec: %q: docstrings are ASCII", s))
		}
	}
	return strconv.Quote(s)
}

func proto(call, name, self string) string {
	switch call {
	case noArgs, oneArg, varArgs:
		return fmt.Sprintf("PyObject *%s(PyObject *%s, PyObject *arg);", name, self)
	case fastKW:
		return fmt.Sprintf("PyObject *%s(PyObject *%s, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);",
			name, self)
	case kwArgs:
		return fmt.Sprintf("PyObject *%s(PyObject *%s, PyObject *args, PyObject *kw);", name, self)
	}
	panic("pyspec: call " + call)
}

func doc(f Fn) string {
	if f.Doc == "" {
		return "NULL"
	}
	return cstr(f.Name+"("+f.Sig+")\n--\n\n") + "\n     " + cstr(f.Doc)
}

func methodTable(b *bytes.Buffer, name string, fns, probes []Fn) {
	fmt.Fprintf(b, "static PyMethodDef %s[] = {\n", name)
	row := func(f Fn) {
		fmt.Fprintf(b, "    {%s, (PyCFunction)(void (*)(void))%s, %s,\n     %s},\n", cstr(f.Name), f.C, f.Call, doc(f))
	}
	for _, f := range fns {
		row(f)
	}
	if len(probes) > 0 {
		b.WriteString("#ifdef GD_PROBES\n")
		for _, f := range probes {
			row(f)
		}
		b.WriteString("#endif\n")
	}
	b.WriteString("    {NULL},\n};\n\n")
}

const header = "Generated by internal/gentables (package pyspec): do not edit; run make tables."

// RenderH is pyspec_gen.h: the module state and the prototypes.
func RenderH() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s\n * The module state and the C functions that CPython calls by the tables of\n"+
		" * pyspec_gen.c (included by skin.h). */\n#ifndef GODLPACK_PYSPEC_GEN_H_\n#define GODLPACK_PYSPEC_GEN_H_\n\n", header)
	b.WriteString("/* Module state. */\ntypedef struct {\n")
	for _, f := range State {
		typ := f.Type
		if f.Kind == "intern" {
			typ = "PyObject *"
		}
		decl := typ + f.Name
		if !strings.HasSuffix(typ, "*") {
			decl = typ + " " + f.Name
		}
		if f.Len != "" {
			decl += "[" + f.Len + "]"
		}
		comment := f.Doc
		if f.Kind == "intern" {
			comment = "interned " + strconv.Quote(f.Intern)
		}
		if comment != "" {
			fmt.Fprintf(&b, "  %s; /* %s */\n", decl, comment)
		} else {
			fmt.Fprintf(&b, "  %s;\n", decl)
		}
	}
	b.WriteString("} gd_state;\n\n")
	b.WriteString("/* Makes the interned names of the state: 0, or -1 with an exception. */\n" +
		"int gd_state_intern(gd_state *st);\n\n")
	b.WriteString("/* module functions */\n")
	for _, f := range append(Module[:len(Module):len(Module)], Probes...) {
		b.WriteString(proto(f.Call, f.C, "m") + "\n")
	}
	b.WriteString("\n/* Array methods, attributes and slots */\n")
	for _, f := range Methods {
		b.WriteString(proto(f.Call, f.C, "self") + "\n")
	}
	for _, a := range Attrs {
		fmt.Fprintf(&b, "PyObject *%s(PyObject *self, void *closure);\n", a.C)
	}
	for _, s := range Slots {
		if s.Sig != "" {
			b.WriteString(fmt.Sprintf(s.Sig, s.C) + ";\n")
		}
	}
	b.WriteString("\n/* arith.c: the refusals behind the arithmetic slots */\n" +
		"PyObject *gd_arith_binary(int slot, void *self_fn, const char *op, PyObject *v, PyObject *w, PyObject *z);\n" +
		"PyObject *gd_arith_unary(const char *op);\n")
	b.WriteString("\nextern PyType_Spec gd_array_spec;\nextern PyModuleDef gd_module_def;\n\n#endif /* GODLPACK_PYSPEC_GEN_H_ */\n")
	return b.Bytes()
}

// RenderC is pyspec_gen.c: the tables, the arithmetic slots and the
// module state's traverse, clear and interned names.
func RenderC() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "//go:build pyext\n\n/* %s\n * What CPython is told about godlpack._native and godlpack.Array. */\n"+
		"#include <stddef.h>\n\n#include \"skin.h\"\n#include \"structmember.h\" /* T_PYSSIZET, READONLY: the limited API of 3.11 */\n\n", header)
	for _, a := range Ariths {
		if a.Arity == 1 {
			fmt.Fprintf(&b, "PyObject *%s(PyObject *v) { return gd_arith_unary(%s); }\n", a.C, cstr(a.Op))
			continue
		}
		z, zp := "NULL", ""
		if a.Arity == 3 {
			z, zp = "z", ", PyObject *z"
		}
		fmt.Fprintf(&b, "static PyObject *%s(PyObject *v, PyObject *w%s) {\n  return gd_arith_binary(%s, (void *)%s, %s, v, w, %s);\n}\n",
			a.C, zp, a.Slot, a.C, cstr(a.Op), z)
	}
	b.WriteString("\n")
	methodTable(&b, "gd_array_methods", Methods, nil)
	b.WriteString("static PyGetSetDef gd_array_getset[] = {\n")
	for _, a := range Attrs {
		fmt.Fprintf(&b, "    {%s, %s, NULL,\n     %s, NULL},\n", cstr(a.Name), a.C, cstr(a.Doc))
	}
	b.WriteString("    {NULL},\n};\n\n")
	b.WriteString("static PyMemberDef gd_array_members[] = {\n" +
		"    {\"__weaklistoffset__\", T_PYSSIZET, offsetof(gd_array, weakrefs), READONLY, NULL},\n    {NULL},\n};\n\n")
	b.WriteString("static PyType_Slot gd_array_slots[] = {\n")
	b.WriteString("    {Py_tp_members, gd_array_members},\n    {Py_tp_methods, gd_array_methods},\n" +
		"    {Py_tp_getset, gd_array_getset},\n")
	for _, s := range Slots {
		fmt.Fprintf(&b, "    {%s, %s},\n", s.Slot, s.C)
	}
	for _, a := range Ariths {
		fmt.Fprintf(&b, "    {%s, %s},\n", a.Slot, a.C)
	}
	fmt.Fprintf(&b, "    {Py_tp_doc,\n     %s},\n    {0, NULL},\n};\n\n", cstr(ArrayDoc))
	b.WriteString(`PyType_Spec gd_array_spec = {
    .name = "godlpack.Array",
    .basicsize = (int)sizeof(gd_array),
    .itemsize = (int)(2 * sizeof(int64_t)),
    /* Not Py_TPFLAGS_IMMUTABLETYPE: module init sets __dlpack_c_exchange_api__
     * on the type, which the limited API can only do with setattr. */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = gd_array_slots,
};

`)
	methodTable(&b, "gd_module_methods", Module, Probes)
	b.WriteString("static int gd_module_traverse(PyObject *m, visitproc visit, void *arg) {\n" +
		"  gd_state *st = (gd_state *)PyModule_GetState(m);\n  if (st == NULL) return 0;\n")
	visit(&b, "Py_VISIT")
	b.WriteString("  return 0;\n}\n\nstatic int gd_module_clear(PyObject *m) {\n" +
		"  gd_state *st = (gd_state *)PyModule_GetState(m);\n  if (st == NULL) return 0;\n")
	visit(&b, "Py_CLEAR")
	b.WriteString("  return 0;\n}\n\nstatic void gd_module_free(void *m) { gd_module_clear((PyObject *)m); }\n\n")
	fmt.Fprintf(&b, `PyModuleDef gd_module_def = {
    PyModuleDef_HEAD_INIT,
    "godlpack._native",
    %s,
    sizeof(gd_state),
    gd_module_methods,
    NULL,
    gd_module_traverse,
    gd_module_clear,
    gd_module_free,
};

int gd_state_intern(gd_state *st) {
`, cstr(ModuleDoc))
	for _, f := range State {
		if f.Kind == "intern" {
			fmt.Fprintf(&b, "  if ((st->%s = PyUnicode_InternFromString(%s)) == NULL) return -1;\n", f.Name, cstr(f.Intern))
		}
	}
	b.WriteString("  return 0;\n}\n")
	return b.Bytes()
}

// visit writes op (Py_VISIT or Py_CLEAR) of every strong reference the
// state holds; a clear also empties the caches.
func visit(b *bytes.Buffer, op string) {
	for _, f := range State {
		switch f.Kind {
		case "obj", "intern":
			fmt.Fprintf(b, "  %s(st->%s);\n", op, f.Name)
		case "objs":
			fmt.Fprintf(b, "  for (int i = 0; i < (int)(sizeof st->%s / sizeof st->%s[0]); i++) %s(st->%s[i]);\n",
				f.Name, f.Name, op, f.Name)
		case "cache":
			fmt.Fprintf(b, "  for (int i = 0; i < st->%s; i++) %s(st->%s[i].%s);\n", f.Count, op, f.Name, f.Key)
			if op == "Py_CLEAR" {
				fmt.Fprintf(b, "  st->%s = 0;\n", f.Count)
			}
		}
	}
}
