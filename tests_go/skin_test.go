package tests_go

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The C skin (pyext/*.c, *.h) translates; it does not decide. These checks
// read its source: a C file that calls Go around the gate of gocall.h, names
// a device type the core should be asked about, or a Go file that reaches
// into the runtime's internals, fails here.

// skinSources returns the C sources of pyext with comments removed.
func skinSources(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("../pyext/*.[ch]")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	comments := regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		out[filepath.Base(f)] = comments.ReplaceAllString(string(b), "")
	}
	return out
}

// Every call into Go goes through gocall.h, where a forked child is refused
// before it can enter the Go runtime.
func TestSkinCallsGoOnlyThroughTheGate(t *testing.T) {
	call := regexp.MustCompile(`\bgdgo_[a-z_]+\s*\(`)
	for name, src := range skinSources(t) {
		if name == "gocall.h" || name == "gocall_gen.h" {
			continue
		}
		assert.Empty(t, call.FindAllString(src, -1), "%s calls a Go export directly; use its gd_go_* wrapper (gocall.h, gocall_gen.h)", name)
	}
}

// Which devices the CPU can read, which carry byte_offset, which need a
// stream: core decides (core/device.go, core/negotiate.go). The skin names
// kDLCPU only, for memory it creates itself from Python buffers.
func TestSkinHoldsNoDeviceList(t *testing.T) {
	dev := regexp.MustCompile(`\bkDL(CUDA|CUDAHost|OpenCL|Vulkan|Metal|VPI|ROCM|ROCMHost|ExtDev|CUDAManaged|OneAPI|WebGPU|Hexagon|MAIA|Trn)\b`)
	for name, src := range skinSources(t) {
		assert.Empty(t, dev.FindAllString(src, -1), "%s names device types: ask core (a header flag or a plan)", name)
	}
}

// No Go file depends on the runtime's private layout or linknamed internals.
func TestNoRuntimeInternals(t *testing.T) {
	for _, dir := range []string{"../core", "../pyext", "../backends", "../backends/cpu"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			assert.NotContains(t, string(b), "go:"+"linkname", f)
			assert.False(t, strings.Contains(string(b), `"runtime/internal`) || strings.Contains(string(b), `"internal/runtime`), f)
		}
	}
}

// The skin stays small: its hand-written files (C, headers, Go; generated
// ones are named *_gen.*) hold at most 5,651 lines, so that what grows
// grows in core or in a generated table (issue 23; 5,500 until the kit
// plugins' host, issue 34, added _load_kit's glue: the load and the
// registry's growth are gofunc's; 5,530 until the Arrow PyCapsule
// interface, issue 35, added pyext/arrow.c: two capsules around what
// core/arrow.c fills and decides; 5,600 until issue 39's subclass fix
// added the fact core's C9 step needs, whether a type's __dlpack__ is the
// one of the class that owns its exchange API: reading it takes Python's
// attributes, deciding on it is core/exchange.c's; 5,625 until numpy's
// promotion of a stacked list left the Python shim for core/promote.go,
// 55 lines of Python for the 26 of _result_type's glue).
func TestSkinIsSmall(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../pyext/*")
	require.NoError(t, err)
	lines := 0
	for _, f := range files {
		if strings.Contains(filepath.Base(f), "_gen.") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines += strings.Count(string(b), "\n")
	}
	assert.LessOrEqual(t, lines, 5651, "hand-written lines in pyext/: move decisions to core/, glue to internal/gentables")
	assert.Greater(t, lines, 3000, "pyext/ was not read")
}
