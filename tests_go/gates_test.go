package tests_go

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/internal/gentables/gates"
)

// pyext/gocall_gen.h is what pyext's //export functions and the gate table
// generate today; every export has a row, every row an export, and the
// hand-written wrappers exist.
func TestGatesUpToDate(t *testing.T) {
	t.Parallel()
	exports, err := gates.Exports("../pyext")
	require.NoError(t, err)
	require.NotEmpty(t, exports)
	want, err := gates.Render(exports)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("..", gates.Path))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "%s differs: run `make tables`", gates.Path)

	hand, err := os.ReadFile("../pyext/gocall.h")
	require.NoError(t, err)
	for name, g := range gates.Table {
		if g.Hand {
			wrapper := "gd_go_" + strings.TrimPrefix(name, "gdgo_")
			assert.Containsf(t, string(hand), "static inline int "+wrapper+"(", "%s is hand-written in gocall.h", wrapper)
		}
	}
}

func TestGatesRefuseUnknownExports(t *testing.T) {
	t.Parallel()
	_, err := gates.Render([]gates.Export{{Name: "gdgo_new_op", Result: "int", File: "exports.go"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gdgo_new_op (pyext/exports.go) has no row")
}
