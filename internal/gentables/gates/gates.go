// Package gates writes pyext/gocall_gen.h: the gd_go_* wrapper of every
// //export gdgo_* function of pyext, from the functions' own Go signatures
// and the one table below. A wrapper is the gate into Go (pyext/gocall.h):
// it counts the crossing and, in a forked child, answers RuntimeError
// naming the user's entry point instead of entering the Go runtime.
// tests_go/gates_test.go fails while the committed file differs, or when an
// export has no row or a row no export.
package gates

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Path is the generated file, relative to the repository root.
const Path = "pyext/gocall_gen.h"

// Gate says how the wrapper gd_go_<name> enters gdgo_<name>.
type Gate struct {
	// Entry is a C expression: the entry point a forked child's refusal
	// names (it may use the wrapper's parameters).
	Entry string
	// EntryArg: the wrapper takes `const char *entry` before msg, for Entry
	// only (the export does not take it).
	EntryArg bool
	// MsgArg: the wrapper takes `char *msg` the export does not (for the
	// refusal).
	MsgArg bool
	// Child, when set, is what a forked child gets instead of a refusal: a
	// query with no error path. Counted says whether the call counts as a
	// crossing.
	Child   string
	Counted bool
	// Hand: the wrapper is written by hand in pyext/gocall.h (it decides
	// more than the gate, e.g. a fast answer without Go).
	Hand bool
	// Name overrides the wrapper's name (gd_go_<name> by default).
	Name string
	// Probe: the export is a test probe (pyext/probes.go), built with the
	// godlpack_probes tag only: the wrapper is under #ifdef GD_PROBES.
	Probe bool
}

// Table is the one list of operations that enter Go, by export name.
var Table = map[string]Gate{
	"gdgo_export":          {Entry: `"__dlpack__()"`},
	"gdgo_import":          {Entry: `"from_dlpack()"`},
	"gdgo_op":              {Entry: "o->entry"},
	"gdgo_host_copy_types": {Child: "0", Counted: true},
	"gdgo_test_panic":      {Entry: `"_test_panic()"`, Probe: true},
	"gdgo_test_gc":         {Entry: `"_test_go_gc()"`, Probe: true},
	"gdgo_go_allocs":       {Child: "0", Name: "gd_go_allocs"},
	"gdgo_fn_count":        {Child: "0"}, // a forked child's module has no Go functions
	"gdgo_fn_floor":        {Entry: `"_bench_floor()"`, MsgArg: true},
	"gdgo_fn_describe":     {Entry: `"import"`},
	"gdgo_fn_meta":         {Entry: `"_gofuncs()"`},
	"gdgo_fn_call":         {Entry: "entry", EntryArg: true},
	"gdgo_fn_wait":         {Entry: "entry", EntryArg: true},
	"gdgo_kit_open":        {Entry: `"_load_kit()"`},
}

// Export is one //export function of pyext.
type Export struct {
	Name   string
	Params []Param
	Result string // C type
	File   string
}

// Param is one parameter, in C terms.
type Param struct{ Name, CType string }

// Exports parses the //export functions of the Go files in dir.
func Exports(dir string) ([]Export, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []Export
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Doc == nil || !hasExport(fn.Doc, fn.Name.Name) {
				continue
			}
			e := Export{Name: fn.Name.Name, Result: "void", File: filepath.Base(path)}
			for _, fld := range fn.Type.Params.List {
				t, err := cType(fld.Type)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", path, fn.Name.Name, err)
				}
				for _, n := range fld.Names {
					e.Params = append(e.Params, Param{n.Name, t})
				}
			}
			if r := fn.Type.Results; r != nil && len(r.List) == 1 {
				if e.Result, err = cType(r.List[0].Type); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", path, fn.Name.Name, err)
				}
			}
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func hasExport(doc *ast.CommentGroup, name string) bool {
	for _, c := range doc.List {
		if c.Text == "//export "+name {
			return true
		}
	}
	return false
}

// cType is the C spelling of a cgo parameter type.
func cType(e ast.Expr) (string, error) {
	switch t := e.(type) {
	case *ast.StarExpr:
		inner, err := cType(t.X)
		if err != nil {
			return "", err
		}
		if inner == "void" {
			return "void *", nil
		}
		if strings.HasSuffix(inner, "*") {
			return inner + "*", nil
		}
		return inner + " *", nil
	case *ast.SelectorExpr:
		pkg, _ := t.X.(*ast.Ident)
		switch {
		case pkg != nil && pkg.Name == "C":
			return t.Sel.Name, nil
		case pkg != nil && pkg.Name == "unsafe" && t.Sel.Name == "Pointer":
			return "void", nil
		}
	}
	return "", fmt.Errorf("no C spelling for %T", e)
}

func decl(p Param) string {
	t := p.CType
	if t == "void" { // unsafe.Pointer
		t = "void *"
	} else if t == "void *" { // *unsafe.Pointer
		t = "void **"
	}
	if p.Name == "entry" && t == "char *" {
		t = "const char *"
	}
	if strings.HasSuffix(t, "*") {
		return t + p.Name
	}
	return t + " " + p.Name
}

// Render returns the contents of Path for the exports of pyext.
func Render(exports []Export) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("/* Code generated by `go run ./internal/gentables` from pyext's //export functions and the table of\n")
	p(" * internal/gentables/gates. DO NOT EDIT. Included by gocall.h, the gate into Go. */\n")
	p("#ifndef GODLPACK_GOCALL_GEN_H_\n#define GODLPACK_GOCALL_GEN_H_\n")
	for _, e := range exports {
		g, ok := Table[e.Name]
		if !ok {
			return nil, fmt.Errorf("%s (pyext/%s) has no row in internal/gentables/gates.Table", e.Name, e.File)
		}
		if g.Hand {
			continue
		}
		name := "gd_go_" + strings.TrimPrefix(e.Name, "gdgo_")
		if g.Name != "" {
			name = g.Name
		}
		var params, args []string
		for _, q := range e.Params {
			if (g.EntryArg || g.MsgArg) && q.Name == "msg" {
				continue
			}
			params = append(params, decl(q))
			if q.Name == "entry" && q.CType == "char *" {
				args = append(args, "(char *)entry")
			} else {
				args = append(args, q.Name)
			}
		}
		if g.EntryArg {
			params = append(params, "const char *entry")
		}
		if g.EntryArg || g.MsgArg {
			params = append(params, "char *msg")
			if !g.MsgArg {
				args = append(args, "msg")
			}
		}
		if len(params) == 0 {
			params = []string{"void"}
		}
		if g.Probe {
			p("\n#ifdef GD_PROBES")
		}
		p("\nstatic inline %s %s(%s) {\n", e.Result, name, strings.Join(params, ", "))
		switch {
		case g.Child != "":
			p("  if (gd_in_fork_child) return %s;\n", g.Child)
			if g.Counted {
				p("  GD_COUNT_CROSSING();\n")
			}
		default:
			p("  GD_GO_GATE(%s);\n", g.Entry)
		}
		p("  return %s(%s);\n}\n", e.Name, strings.Join(args, ", "))
		if g.Probe {
			p("#endif\n")
		}
	}
	for name := range Table {
		found := false
		for _, e := range exports {
			found = found || e.Name == name
		}
		if !found {
			return nil, fmt.Errorf("internal/gentables/gates.Table row %s: no such //export in pyext", name)
		}
	}
	p("\n#endif /* GODLPACK_GOCALL_GEN_H_ */\n")
	return b.Bytes(), nil
}
