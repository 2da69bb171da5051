package tests_go

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/internal/gentables/errtables"
)

// The committed pyext/errors_gen.h and the sentinel table of
// docs/exceptions.md are what core.Sentinels generates today.
func TestErrTablesUpToDate(t *testing.T) {
	t.Parallel()
	header, err := os.ReadFile(filepath.Join("..", errtables.HeaderPath))
	require.NoError(t, err)
	assert.Equal(t, string(errtables.RenderHeader()), string(header), "%s differs: run `make tables`", errtables.HeaderPath)
	docs, err := os.ReadFile(filepath.Join("..", errtables.DocsPath))
	require.NoError(t, err)
	want, err := errtables.RenderDocs(docs)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(docs), "%s differs: run `make tables`", errtables.DocsPath)
}

// core.Sentinels holds every sentinel declared in core/errors.go, once.
func TestSentinelsListsEverySentinel(t *testing.T) {
	t.Parallel()
	listed := map[string]*core.Error{}
	for _, s := range core.Sentinels {
		_, dup := listed[s.Name]
		assert.Falsef(t, dup, "%s listed twice", s.Name)
		listed[s.Name] = s.Err
	}
	declared := declaredSentinels(t)
	assert.Len(t, listed, len(declared))
	for _, name := range declared {
		e, ok := listed[name]
		if assert.Truef(t, ok, "%s is not in core.Sentinels", name) {
			assert.Same(t, sentinelClasses[name].err, e, name)
		}
	}
}

func TestMacroNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"ErrReadOnlyLegacy": "GD_E_READ_ONLY_LEGACY", "ErrDLDeviceArg": "GD_E_DL_DEVICE_ARG",
		"ErrDType": "GD_E_DTYPE", "ErrNoMemory": "GD_E_NO_MEMORY", "ErrIndex": "GD_E_INDEX",
	} {
		assert.Equal(t, want, errtables.Macro(name))
	}
}

// Every WithClass call in core is one of core.ClassExceptions: a sentinel
// raised with another class than its own is a documented departure.
func TestWithClassCallsAreListed(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{}
	for _, x := range core.ClassExceptions {
		name := ""
		for _, s := range core.Sentinels {
			if s.Err == x.Err {
				name = s.Name
			}
		}
		require.NotEmptyf(t, name, "ClassException %s names no sentinel", x.Name)
		allowed[classIdent(x.Class)+" "+name] = true
	}
	files, err := filepath.Glob("../core/*.go")
	require.NoError(t, err)
	calls := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "errors.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := c.Fun.(*ast.Ident); !ok || id.Name != "WithClass" || len(c.Args) != 3 {
				return true
			}
			cls, ok1 := c.Args[0].(*ast.Ident)
			sen, ok2 := c.Args[2].(*ast.Ident)
			if assert.Truef(t, ok1 && ok2, "%s: WithClass with a computed class or sentinel", path) {
				calls++
				assert.Truef(t, allowed[cls.Name+" "+sen.Name], "%s: WithClass(%s, ..., %s) is not in core.ClassExceptions",
					path, cls.Name, sen.Name)
			}
			return true
		})
	}
	assert.Positive(t, calls)
}

func classIdent(c core.Class) string {
	return map[core.Class]string{core.ClassBuffer: "ClassBuffer", core.ClassType: "ClassType", core.ClassValue: "ClassValue",
		core.ClassMemory: "ClassMemory", core.ClassRuntime: "ClassRuntime", core.ClassIndex: "ClassIndex",
		core.ClassOverflow: "ClassOverflow", core.ClassImport: "ClassImport"}[c]
}
