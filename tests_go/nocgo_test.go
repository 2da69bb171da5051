package tests_go

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A build without cgo must fail on a message that names cgo (core/abi_nocgo.go),
// not on "undefined: Owner".
func TestBuildWithoutCgoSaysCgoIsRequired(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Go toolchain")
	}
	gobin, err := exec.LookPath("go")
	require.NoError(t, err)
	cmd := exec.Command(gobin, "build", "-o", os.DevNull, "./core")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "a cgo-less build of core must fail")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.GreaterOrEqual(t, len(lines), 2, string(out))
	first := lines[1] // lines[0] is "# github.com/godlpack/godlpack/core"
	assert.Contains(t, first, "core/abi_nocgo.go", string(out))
	assert.Contains(t, first, "CGO_ENABLED_1", string(out))
}
