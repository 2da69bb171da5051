package tests_go

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/internal/gentables/pyspec"
)

// pyext/pyspec_gen.{c,h}, CPython's tables of the module and of Array, are
// what internal/gentables renders from package pyspec's rows.
func TestPySpecIsGenerated(t *testing.T) {
	t.Parallel()
	for _, f := range []struct {
		path string
		want []byte
	}{{pyspec.CPath, pyspec.RenderC()}, {pyspec.HPath, pyspec.RenderH()}} {
		got, err := os.ReadFile(filepath.Join("..", f.path))
		require.NoError(t, err)
		assert.Equal(t, string(f.want), string(got), "%s differs: run `make tables`", f.path)
	}
}

// Every Python name of the tables is unique within its table, and every
// docstring's signature names the function it documents.
func TestPySpecNamesAreUnique(t *testing.T) {
	t.Parallel()
	for table, fns := range map[string][]pyspec.Fn{"module": pyspec.Module, "Array": pyspec.Methods} {
		seen := map[string]bool{}
		for _, f := range fns {
			assert.False(t, seen[f.Name], "%s: %s twice", table, f.Name)
			seen[f.Name] = true
			if f.Doc == "" {
				assert.Equal(t, "_", f.Name[:1], "%s.%s is public and has no docstring", table, f.Name)
			}
		}
	}
	seen := map[string]bool{}
	for _, a := range pyspec.Attrs {
		assert.False(t, seen[a.Name], "Array.%s twice", a.Name)
		seen[a.Name] = true
	}
}
