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
	"sort"
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
	{"_result_type", "gd_mod_result_type", varArgs, "", ""},
	{"_view_dtype", "gd_mod_view_dtype", varArgs, "", ""},
	{"_device", "gd_mod_device", varArgs, "", ""},
	{"_scalar_dtype", "gd_mod_scalar_dtype", varArgs, "", ""},
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
	{"_array_names", "gd_mod_array_names", noArgs, "",
		"Every name godlpack.Array's generated tables give it (a test compares it with the type)."},
	{"_bench_floor", "gd_mod_bench_floor", oneArg, "x, /",
		"An empty Go call with the GIL released (x True: held): the least a Go function's call costs."},
	{"_go_allocs", "gd_mod_go_allocs", noArgs, "",
		"Go heap objects allocated so far (for tests: hot paths add none)."},
	{"_go_crossings", "gd_mod_go_crossings", noArgs, "",
		"Calls into Go made by DLPack exports and imports so far (for tests: the fast paths add none)."},
}

// Parsed names the METH_FASTCALL | METH_KEYWORDS rows (module or Array)
// whose arguments a generated parser sorts by their signature, Sig
// (CPython's own rules: numpy's npy_parse_arguments is the model): each
// gets gd_args_<name>(args, nargs, kwnames, vals), vals in the order of the
// signature's parameters, NULL where not given; a wrong call is a TypeError
// of ErrArgType naming the entry point and the parameters it takes.
var Parsed = []string{"from_dlpack", "__dlpack__", "sum", "prod", "min", "max", "any", "all", "mean"}

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

// PyImpl is an attribute of Array written in Python: formatting (numpy's
// print), numpy's, pickle's, pyarrow's and oneAPI's protocols, conversions
// that lean on numpy. Its row gives it an entry in the type's tables like
// any other, so that the type's attributes are all here (none is set on it
// from Python); the entry calls Func of the module Module (a submodule of
// godlpack), imported at the attribute's first use, so that `import
// godlpack` imports none of them. Kind "method" is called with the array
// and the arguments as given, "property" is a getter Func(array), "repr"
// and "str" fill tp_repr and tp_str, "contains" fills sq_contains (truth
// of Func(array, value)).
type PyImpl struct{ Name, Kind, Module, Func, Sig, Doc string }

// PyImpls lists the attributes of Array written in Python.
var PyImpls = []PyImpl{
	{"__repr__", "repr", "_repr", "array_repr", "", ""},
	{"__str__", "str", "_repr", "array_str", "", ""},
	{"__format__", "method", "_repr", "array_format", "$self, spec, /",
		"format(a, spec): numpy's: the format applied to each element of the printed array."},
	{"astype", "method", "_convert", "astype", "$self, /, dtype, order='K', *, copy=True",
		"A new C-contiguous array of dtype holding this array's values cast as numpy\n" +
			"casts them; copy=False returns the array itself when it already has dtype."},
	{"to_device", "method", "", "_to_device", "$self, device, /, *, stream=None",
		"The array on device: itself (a view) when it is there already, else a\n" +
			"C-contiguous copy (host <-> oneAPI through the device's queue, complete when\n" +
			"it returns). stream is accepted as the array API asks."},
	{"__array__", "method", "_ndarray", "_array", "$self, /, dtype=None, copy=None",
		"np.asarray(a): a numpy.ndarray over the array's memory (zero-copy, read-only\n" +
			"kept) unless dtype or copy=True asks for a copy."},
	{"__contains__", "contains", "_ndarray", "_contains", "", ""},
	{"ravel", "method", "_ndarray", "_ravel", "$self, /, order='C'",
		"The elements in one axis, C order, contiguous: a view of a C-contiguous array, else a copy."},
	{"view", "method", "_ndarray", "_view", "$self, /, dtype",
		"The same memory seen as dtype, as numpy's a.view(dtype)."},
	{"__arrow_array__", "method", "_ndarray", "_arrow_array", "$self, /, type=None",
		"pa.array(a): pyarrow's array over the Arrow C data interface, cast to type when one is given."},
	{"__numpy_dtype__", "property", "_ndarray", "_array_numpy_dtype", "",
		"The numpy dtype of the array's elements (numpy 2.4's __numpy_dtype__)."},
	{"__reduce_ex__", "method", "_pickle", "_reduce_ex", "$self, protocol, /",
		"pickle support: dtype, shape, order and read-only-ness are kept; the data is an\n" +
			"out-of-band-capable PickleBuffer under protocol 5, bytes under protocols <= 4."},
	{"__copy__", "method", "_pickle", "_copy", "$self, /",
		"copy.copy(a): a new writable C-contiguous array with a's values (a.copy())."},
	{"__deepcopy__", "method", "_pickle", "_deepcopy", "$self, memo=None, /",
		"copy.deepcopy(a): a.copy(), independent memory (elements are plain values)."},
	{"__sycl_usm_array_interface__", "property", "_oneapi", "usm_array_interface", "",
		"dpctl's USM array interface of an array on a oneAPI device (dpctl's consumers take it zero-copy)."},
	{"__usm_ndarray__", "property", "_oneapi", "usm_ndarray", "",
		"A dpnp.tensor.usm_ndarray view of an array on a oneAPI device (dpnp.asarray takes it zero-copy)."},
	{"sycl_queue", "property", "_oneapi", "sycl_queue", "",
		"The dpctl.SyclQueue of an array on a oneAPI device (on godlpack's context there)."},
}

// ClassAttrs are attributes of Array that module init sets on the type
// (values, not functions), named here so that the table names them all.
var ClassAttrs = []string{"__dlpack_c_exchange_api__"}

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
	{Kind: "cache", Type: "gd_api_entry", Name: "api_cache", Len: "GD_API_CACHE", Key: "type", Count: "api_cache_n",
		Doc: "what the imports learnt per producer type (import.c)"},
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
	{Kind: "objs", Type: "PyObject *", Name: "py_impl", Len: "GD_PY_IMPL_N",
		Doc: "PyImpls' functions, each looked up at its first use (pyspec_gen.c)"},
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
	fmt.Fprintf(&b, "/* Array's attributes written in Python (pyspec.PyImpls). */\n#define GD_PY_IMPL_N %d\n\n", len(PyImpls))
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
	b.WriteString("\n/* Generated argument parsers (pyspec.Parsed): 0, or -1 with a TypeError. */\n")
	for _, f := range parsedFns() {
		ps := parseSig(f.Sig)
		fmt.Fprintf(&b, "int gd_args_%s(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject *vals[%d]);\n",
			f.Name, len(ps))
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
		"#include <stddef.h>\n#include <string.h>\n\n#include \"skin.h\"\n#include \"structmember.h\" /* T_PYSSIZET, READONLY: the limited API of 3.11 */\n\n", header)
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
	renderPyImpls(&b)
	methodTable(&b, "gd_array_methods", append(Methods[:len(Methods):len(Methods)], pyImplFns()...), nil)
	b.WriteString("static PyGetSetDef gd_array_getset[] = {\n")
	for _, a := range append(Attrs[:len(Attrs):len(Attrs)], pyImplAttrs()...) {
		fmt.Fprintf(&b, "    {%s, %s, NULL,\n     %s, NULL},\n", cstr(a.Name), a.C, cstr(a.Doc))
	}
	b.WriteString("    {NULL},\n};\n\n")
	b.WriteString("static PyMemberDef gd_array_members[] = {\n" +
		"    {\"__weaklistoffset__\", T_PYSSIZET, offsetof(gd_array, weakrefs), READONLY, NULL},\n    {NULL},\n};\n\n")
	b.WriteString("static PyType_Slot gd_array_slots[] = {\n")
	b.WriteString("    {Py_tp_members, gd_array_members},\n    {Py_tp_methods, gd_array_methods},\n" +
		"    {Py_tp_getset, gd_array_getset},\n")
	for _, s := range append(Slots[:len(Slots):len(Slots)], pyImplSlots()...) {
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
	renderNames(&b)
	renderParsers(&b)
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

// pyImplC is the C entry of PyImpls[i].
func pyImplC(p PyImpl) string { return "gd_py_" + strings.Trim(p.Name, "_") }

// pyImplFns, pyImplAttrs and pyImplSlots are PyImpls' rows of the method,
// attribute and slot tables.
func pyImplFns() []Fn {
	var out []Fn
	for _, p := range PyImpls {
		if p.Kind == "method" {
			out = append(out, Fn{p.Name, pyImplC(p), kwArgs, p.Sig, p.Doc})
		}
	}
	return out
}

func pyImplAttrs() []Attr {
	var out []Attr
	for _, p := range PyImpls {
		if p.Kind == "property" {
			out = append(out, Attr{p.Name, pyImplC(p), p.Doc})
		}
	}
	return out
}

var pyImplSlot = map[string]string{"repr": "Py_tp_repr", "str": "Py_tp_str", "contains": "Py_sq_contains"}

func pyImplSlots() []Slot {
	var out []Slot
	for _, p := range PyImpls {
		if slot, ok := pyImplSlot[p.Kind]; ok {
			out = append(out, Slot{slot, pyImplC(p), ""})
		}
	}
	return out
}

// renderPyImpls writes the entries of PyImpls: each calls its function,
// looked up in its module at the first use and kept in the module state
// (an import of godlpack imports none of those modules).
func renderPyImpls(b *bytes.Buffer) {
	b.WriteString("/* Array's attributes written in Python (pyspec.PyImpls): module, function. */\n" +
		"static const char *const gd_py_impl_where[GD_PY_IMPL_N][2] = {\n")
	for _, p := range PyImpls {
		fmt.Fprintf(b, "    {%s, %s},\n", cstr(strings.TrimSuffix("godlpack."+p.Module, ".")), cstr(p.Func))
	}
	b.WriteString(`};

/* The function of PyImpls[i] (borrowed), or NULL with an exception. */
static PyObject *gd_py_impl(PyObject *self, int i) {
  gd_state *st = gd_state_of_type(Py_TYPE(self));
  if (st == NULL) return PyErr_Occurred() ? NULL : gd_errf(GD_E_INTERNAL, "godlpack: the module was finalised");
  if (st->py_impl[i] == NULL) {
    PyObject *mod = PyImport_ImportModule(gd_py_impl_where[i][0]);
    if (mod == NULL) return NULL;
    st->py_impl[i] = PyObject_GetAttrString(mod, gd_py_impl_where[i][1]);
    Py_DECREF(mod);
  }
  return st->py_impl[i];
}

/* PyImpls[i](self, *args, **kw). */
static PyObject *gd_py_impl_call(PyObject *self, int i, PyObject *args, PyObject *kw) {
  PyObject *f = gd_py_impl(self, i);
  if (f == NULL) return NULL;
  Py_ssize_t n = args == NULL ? 0 : PyTuple_Size(args);
  PyObject *all = PyTuple_New(n + 1);
  if (all == NULL) return NULL;
  Py_INCREF(self);
  PyTuple_SetItem(all, 0, self);
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *x = PyTuple_GetItem(args, k);
    Py_INCREF(x);
    PyTuple_SetItem(all, k + 1, x);
  }
  PyObject *r = PyObject_Call(f, all, kw);
  Py_DECREF(all);
  return r;
}

`)
	for i, p := range PyImpls {
		c := pyImplC(p)
		switch p.Kind {
		case "method":
			fmt.Fprintf(b, "static PyObject *%s(PyObject *self, PyObject *args, PyObject *kw) {\n"+
				"  return gd_py_impl_call(self, %d, args, kw);\n}\n", c, i)
		case "property":
			fmt.Fprintf(b, "static PyObject *%s(PyObject *self, void *closure) {\n"+
				"  PyObject *f = gd_py_impl(self, %d);\n"+
				"  return f == NULL ? NULL : PyObject_CallFunctionObjArgs(f, self, NULL);\n}\n", c, i)
		case "repr", "str":
			fmt.Fprintf(b, "static PyObject *%s(PyObject *self) {\n"+
				"  PyObject *f = gd_py_impl(self, %d);\n"+
				"  return f == NULL ? NULL : PyObject_CallFunctionObjArgs(f, self, NULL);\n}\n", c, i)
		case "contains":
			fmt.Fprintf(b, "static int %s(PyObject *self, PyObject *value) {\n"+
				"  PyObject *f = gd_py_impl(self, %d);\n"+
				"  PyObject *r = f == NULL ? NULL : PyObject_CallFunctionObjArgs(f, self, value, NULL);\n"+
				"  if (r == NULL) return -1;\n  int t = PyObject_IsTrue(r);\n  Py_DECREF(r);\n  return t;\n}\n", c, i)
		default:
			panic("pyspec: PyImpl kind " + p.Kind)
		}
	}
	b.WriteString("\n")
}

// slotNames are the Python names a slot gives the type.
var slotNames = map[string][]string{
	"Py_tp_dealloc": nil, "Py_tp_hash": {"__hash__"}, "Py_nb_bool": {"__bool__"}, "Py_nb_int": {"__int__"},
	"Py_nb_float": {"__float__"}, "Py_nb_index": {"__index__"},
	"Py_tp_richcompare": {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"},
	"Py_mp_subscript":   {"__getitem__"}, "Py_mp_ass_subscript": {"__setitem__", "__delitem__"},
	"Py_mp_length": {"__len__"}, "Py_sq_length": {"__len__"}, "Py_sq_item": {"__getitem__"},
	"Py_tp_iter": {"__iter__"}, "Py_bf_getbuffer": nil, "Py_bf_releasebuffer": nil,
	"Py_tp_repr": {"__repr__"}, "Py_tp_str": {"__str__"}, "Py_sq_contains": {"__contains__"},
	"Py_nb_divmod": {"__divmod__", "__rdivmod__"}, "Py_nb_power": {"__pow__", "__rpow__"},
	"Py_nb_negative": {"__neg__"}, "Py_nb_positive": {"__pos__"}, "Py_nb_absolute": {"__abs__"},
	"Py_nb_invert":   {"__invert__"},
	"Py_nb_subtract": {"__sub__", "__rsub__"}, "Py_nb_multiply": {"__mul__", "__rmul__"},
	"Py_nb_remainder": {"__mod__", "__rmod__"}, "Py_nb_floor_divide": {"__floordiv__", "__rfloordiv__"},
	"Py_nb_true_divide": {"__truediv__", "__rtruediv__"}, "Py_nb_matrix_multiply": {"__matmul__", "__rmatmul__"},
}

// Names is every Python name Array's tables give it: methods, attributes,
// the slots' dunder names, the class attributes module init sets, and what
// every type has (__doc__, __module__).
func Names() []string {
	seen := map[string]bool{"__doc__": true, "__module__": true}
	for _, f := range append(Methods[:len(Methods):len(Methods)], pyImplFns()...) {
		seen[f.Name] = true
	}
	for _, a := range append(Attrs[:len(Attrs):len(Attrs)], pyImplAttrs()...) {
		seen[a.Name] = true
	}
	for _, sl := range append(Slots[:len(Slots):len(Slots)], pyImplSlots()...) {
		names, ok := slotNames[sl.Slot]
		if !ok {
			panic("pyspec: no names for slot " + sl.Slot)
		}
		for _, n := range names {
			seen[n] = true
		}
	}
	for _, a := range Ariths {
		names, ok := slotNames[a.Slot]
		if !ok { // a binary operator named as its slot: its name and the reflected one
			op := strings.ToLower(strings.TrimPrefix(a.Slot, "Py_nb_"))
			names = []string{"__" + op + "__", "__r" + op + "__"}
		}
		for _, n := range names {
			seen[n] = true
		}
	}
	for _, n := range ClassAttrs {
		seen[n] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// renderNames writes _array_names(): Names as a tuple, which a Python test
// compares with what the type holds.
func renderNames(b *bytes.Buffer) {
	b.WriteString("PyObject *gd_mod_array_names(PyObject *m, PyObject *arg) {\n  static const char *const names[] = {\n")
	for _, n := range Names() {
		fmt.Fprintf(b, "      %s,\n", cstr(n))
	}
	b.WriteString("  };\n  int n = (int)(sizeof names / sizeof names[0]);\n  PyObject *t = PyTuple_New(n);\n" +
		"  for (int i = 0; t != NULL && i < n; i++) {\n    PyObject *s = PyUnicode_FromString(names[i]);\n" +
		"    if (s == NULL) {\n      Py_CLEAR(t);\n      break;\n    }\n    PyTuple_SetItem(t, i, s);\n  }\n  return t;\n}\n\n")
}

// param is one parameter of a signature.
type param struct {
	name              string
	posOnly, kwOnly   bool
	optional, varargs bool
}

// parseSig reads a docstring signature ("$self, /, axis=None, *, copy=None"):
// $self is left out; parameters before "/" are positional only, after "*"
// keyword only; "name=default" is optional.
func parseSig(sig string) []param {
	var ps []param
	kwOnly := false
	for _, tok := range strings.Split(sig, ", ") {
		tok = strings.TrimSpace(tok)
		switch {
		case tok == "" || tok == "$self":
		case tok == "/":
			for i := range ps {
				ps[i].posOnly = true
			}
		case tok == "*":
			kwOnly = true
		case strings.HasPrefix(tok, "*"):
			ps = append(ps, param{name: tok[1:], varargs: true})
			kwOnly = true
		default:
			name, _, opt := strings.Cut(tok, "=")
			ps = append(ps, param{name: name, kwOnly: kwOnly, optional: opt})
		}
	}
	return ps
}

// parsedFns are the rows Parsed names, each found once in Module or Methods.
func parsedFns() []Fn {
	var out []Fn
	for _, name := range Parsed {
		var found []Fn
		for _, f := range append(Module[:len(Module):len(Module)], Methods...) {
			if f.Name == name {
				found = append(found, f)
			}
		}
		if len(found) != 1 || found[0].Call != fastKW {
			panic("pyspec: Parsed names " + name + ", which is not one METH_FASTCALL | METH_KEYWORDS row")
		}
		for _, p := range parseSig(found[0].Sig) {
			if p.varargs {
				panic("pyspec: " + name + ": a parser takes no *args")
			}
		}
		out = append(out, found[0])
	}
	return out
}

// renderParsers writes the shared parser and one entry per Parsed row.
func renderParsers(b *bytes.Buffer) {
	b.WriteString(`/* What a parser keeps between calls: its names interned, and the kwnames
 * tuples seen twice in a row (a caller's constant tuple: numpy's holds
 * strings that are not interned) with the parameter of each keyword, each
 * tuple kept alive by the cache for the process. The GIL guards it. */
#define GD_PARSE_MAX 8 /* parameters of a parsed function */
#define GD_PARSE_SEEN 4
typedef struct {
  PyObject *interned[GD_PARSE_MAX];
  struct {
    PyObject *kwnames;
    signed char param[GD_PARSE_MAX];
  } seen[GD_PARSE_SEEN];
  int nseen;
  const void *last; /* the last kwnames not cached: compared, never used */
} gd_parse_cache;

/* The parameter keyword key names, or n: by pointer first (a keyword
 * written in the call is interned), else by its text. */
static int gd_parse_kw(PyObject *key, const char *const *names, PyObject *const *interned, int from, int n) {
  int k = from;
  while (k < n && key != interned[k]) k++;
  if (k == n)
    for (k = from; k < n && PyUnicode_CompareWithASCIIString(key, names[k]) != 0;) k++;
  return k;
}

/* Sorts a METH_FASTCALL | METH_KEYWORDS call into vals (borrowed, NULL when
 * not given) by its signature: n (at most GD_PARSE_MAX) parameters named
 * names, the first npos of them positional (the first nposonly positional
 * only), the first nreq required; the keywords of the others are kwlist. */
static int gd_parse_args(const char *entry, const char *const *names, gd_parse_cache *pc, int n, int npos,
                         int nposonly, int nreq, const char *kwlist, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames, PyObject **vals) {
  for (int i = 0; i < n; i++) vals[i] = NULL;
  for (int k = 0; pc->interned[n - 1] == NULL && k < n; k++)
    if (pc->interned[k] == NULL && (pc->interned[k] = PyUnicode_InternFromString(names[k])) == NULL) return -1;
  if (nargs > npos && npos == 0) {
    gd_errf(GD_E_ARG_TYPE, "%s: takes keyword arguments only (%s)", entry, kwlist);
    return -1;
  }
  if (nargs > npos) {
    gd_errf(GD_E_ARG_TYPE, "%s: takes at most %d positional argument%s (%zd given); pass the others by keyword",
            entry, npos, npos == 1 ? "" : "s", nargs);
    return -1;
  }
  for (Py_ssize_t i = 0; i < nargs; i++) vals[i] = args[i];
  if (kwnames == NULL && nreq <= nargs) return 0;
  Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_Size(kwnames);
  const signed char *seen = NULL;
  for (int c = 0; c < pc->nseen && nkw > 0; c++)
    if (pc->seen[c].kwnames == kwnames) seen = pc->seen[c].param;
  signed char param[GD_PARSE_MAX];
  for (Py_ssize_t i = 0; i < nkw; i++) {
    int k = seen != NULL ? seen[i] : gd_parse_kw(PyTuple_GetItem(kwnames, i), names, pc->interned, nposonly, n);
    if (k == n) {
      gd_errf(GD_E_ARG_TYPE, "%s: unsupported keyword argument %R; godlpack supports %s", entry,
              PyTuple_GetItem(kwnames, i), kwlist);
      return -1;
    }
    if (vals[k] != NULL) {
      gd_errf(GD_E_ARG_TYPE, "%s: got multiple values for argument '%s'", entry, names[k]);
      return -1;
    }
    vals[k] = args[nargs + i];
    if (i < GD_PARSE_MAX) param[i] = (signed char)k;
  }
  if (seen == NULL && nkw > 0 && nkw <= GD_PARSE_MAX && kwnames == pc->last && pc->nseen < GD_PARSE_SEEN) {
    pc->seen[pc->nseen].kwnames = Py_NewRef(kwnames);
    memcpy(pc->seen[pc->nseen++].param, param, sizeof param);
  }
  pc->last = kwnames;
  for (int k = 0; k < nreq; k++) {
    if (vals[k] == NULL) {
      gd_errf(GD_E_ARG_TYPE, "%s: missing required argument '%s'", entry, names[k]);
      return -1;
    }
  }
  return 0;
}

`)
	for _, f := range parsedFns() {
		ps := parseSig(f.Sig)
		var names, kws []string
		npos, nposonly, nreq := 0, 0, 0
		for i, p := range ps {
			names = append(names, cstr(p.name))
			if !p.kwOnly {
				npos++
			}
			if p.posOnly {
				nposonly++
			} else {
				kws = append(kws, p.name)
			}
			if !p.optional && nreq == i {
				nreq++
			}
		}
		kwlist := "no keywords"
		if len(kws) > 0 {
			kwlist = strings.Join(kws[:len(kws)-1], ", ")
			if kwlist != "" {
				kwlist += " and "
			}
			kwlist += kws[len(kws)-1]
		}
		fmt.Fprintf(b, "/* %s(%s) */\nint gd_args_%s(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject *vals[%d]) {\n",
			f.Name, f.Sig, f.Name, len(ps))
		fmt.Fprintf(b, "  static const char *const names[%d] = {%s};\n", len(ps), strings.Join(names, ", "))
		if len(ps) > 8 {
			panic("pyspec: " + f.Name + " has more than GD_PARSE_MAX (8) parameters to parse")
		}
		b.WriteString("  static gd_parse_cache cache;\n")
		fmt.Fprintf(b, "  return gd_parse_args(%s, names, &cache, %d, %d, %d, %d, %s, args, nargs, kwnames, vals);\n}\n\n",
			cstr(f.Name+"()"), len(ps), npos, nposonly, nreq, cstr(kwlist))
	}
}
