package tests_go

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// A Go program that imports only core has every device the extension has:
// core links the backends itself (core/backend.go), and pyext adds none.
func TestDeviceRegistryIsCores(t *testing.T) {
	t.Parallel()
	oneapi := core.Device{Type: core.KDLOneAPI, ID: 0}
	assert.True(t, core.Reachable(core.CPU))
	assert.True(t, core.Reachable(oneapi), "kDLOneAPI must be registered by core itself")
	assert.False(t, core.FoldsByteOffset(oneapi), "oneAPI keeps offsets in byte_offset (dpctl's convention)")
	assert.False(t, core.AsksHostCopy(core.KDLOneAPI), "a registered device is held, not copied to the host")
	assert.False(t, core.Reachable(core.Device{Type: core.KDLCUDA}), "no CUDA backend yet")

	files, err := filepath.Glob("../pyext/*.go")
	require.NoError(t, err)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NotContainsf(t, string(src), "godlpack/backends/", "%s links a backend: core/backend.go is the one list", f)
	}
}
