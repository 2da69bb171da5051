package tests_go

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/internal/gentables/fnentries"
)

// pyext/gofunc_gen.h holds one C entry point per function a module may
// register (gofunc.MaxFunctions), as internal/gentables renders it.
func TestFnEntriesAreGenerated(t *testing.T) {
	t.Parallel()
	got, err := os.ReadFile(filepath.Join("..", fnentries.Path))
	require.NoError(t, err)
	assert.Equal(t, string(fnentries.Render()), string(got), "%s differs: run `make tables`", fnentries.Path)
}
