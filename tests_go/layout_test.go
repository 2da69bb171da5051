package tests_go

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/godlpack/godlpack/core"
)

// The Go mirrors of the DLPack structs and of gd_header must match the C
// definitions in core/dlpack.h and core/godlpack.h byte for byte.
func TestLayoutMatchesC(t *testing.T) {
	t.Parallel()
	for _, c := range core.LayoutTable() {
		assert.Equalf(t, c.C, c.Go, "%s.%s: Go %d, C %d", c.Type, c.Field, c.Go, c.C)
	}
}
