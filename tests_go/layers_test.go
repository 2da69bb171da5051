package tests_go

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// core is three packages that import downward only (docs/architecture.md):
// core/kernels at the bottom (loops over raw memory: the standard library
// and nothing of DLPack), core above it (the DLPack model and rules, the
// Array, the plans), core/conformance on top (the checker's judge).

const module = "github.com/godlpack/godlpack/"

// packageImports returns the imports of the non-test Go files of dir (a
// directory of the module), "C" included.
func packageImports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files, dir)
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, im := range ast.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			require.NoError(t, err)
			out[p] = append(out[p], filepath.Base(f))
		}
	}
	return out
}

func TestCorePackagesImportDownwardOnly(t *testing.T) {
	layers := []struct {
		dir     string
		allowed []string // the module's packages it may import
		cgo     bool
	}{
		{"core/kernels", nil, false},
		{"core", []string{"core/kernels", "backends", "backends/cpu", "backends/oneapi"}, true},
		{"core/conformance", []string{"core"}, true},
	}
	for _, l := range layers {
		t.Run(l.dir, func(t *testing.T) {
			for p, files := range packageImports(t, l.dir) {
				switch {
				case p == "C":
					assert.True(t, l.cgo, "%s uses cgo (%v): the kernels are plain Go and Go assembly", l.dir, files)
				case strings.HasPrefix(p, module):
					assert.Contains(t, l.allowed, strings.TrimPrefix(p, module),
						"%s imports %s (%v): core's packages import downward only (kernels < core < conformance)", l.dir, p, files)
				case strings.Contains(strings.SplitN(p, "/", 2)[0], "."):
					assert.Fail(t, "outside import", "%s imports %s (%v): core depends on the standard library only", l.dir, p, files)
				}
			}
		})
	}
}

// The kernels know nothing of DLPack: no data type codes, devices or
// errors of core's model; core maps a DataType to a kernels.Kind.
func TestKernelsKnowNoDLPack(t *testing.T) {
	files, err := filepath.Glob("../core/kernels/*.go")
	require.NoError(t, err)
	dl := regexp.MustCompile(`\b(KDL\w+|DL[A-Z]\w*|DataType|Device|Header|Err[A-Z]\w*)\b`)
	comments := regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		src := comments.ReplaceAllString(string(b), "")
		assert.Empty(t, dl.FindAllString(src, -1), "%s names core's DLPack model: take plain pointers, strides and Kinds", f)
	}
}

// pyext's functions call one another without cycles: each C file reads
// from its entry points down, and no helper leads back up. The call graph
// is read from the sources (gd_* functions defined at the top level of the
// .c files and the headers' static inline ones, and the gd_* names their
// bodies call); a function calling itself is allowed. A name defined twice
// (static in two files) would merge into one node: none is.
func TestSkinCallGraphHasNoCycle(t *testing.T) {
	def := regexp.MustCompile(`(?ms)^[A-Za-z][^\n;]*?\b(gd_\w+)\(([^;{]*?)\)\s*\{\n(.*?)^\}`)
	call := regexp.MustCompile(`\b(gd_\w+)\s*\(`)
	calls := map[string]map[string]bool{}
	for name, src := range skinSources(t) {
		for _, m := range def.FindAllStringSubmatch(src, -1) {
			_, twice := calls[m[1]]
			require.False(t, twice, "%s defines %s, defined in another file too: the call graph would merge them", name, m[1])
			out := map[string]bool{}
			for _, c := range call.FindAllStringSubmatch(m[3], -1) {
				if c[1] != m[1] {
					out[c[1]] = true
				}
			}
			calls[m[1]] = out
		}
	}
	require.Greater(t, len(calls), 100, "the call graph reader found too few functions")
	for _, c := range stronglyConnected(calls) {
		assert.Len(t, c, 1, "pyext functions call one another in a circle: %v", c)
	}
}

// stronglyConnected returns the strongly connected components of the graph
// (Tarjan), each sorted, edges to unknown names ignored.
func stronglyConnected(g map[string]map[string]bool) [][]string {
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		on[v] = true
		for w := range g[v] {
			if _, known := g[w]; !known {
				continue
			}
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var c []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				c = append(c, w)
				if w == v {
					break
				}
			}
			sort.Strings(c)
			out = append(out, c)
		}
	}
	names := make([]string, 0, len(g))
	for v := range g {
		names = append(names, v)
	}
	sort.Strings(names)
	for _, v := range names {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return out
}
