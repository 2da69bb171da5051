package tests_go

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/internal/gentables/pytables"
)

// The committed python/godlpack/_tables.py is byte for byte what the core's
// tables generate today.
func TestPyTablesUpToDate(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", filepath.FromSlash(pytables.Path))
	got, err := os.ReadFile(path)
	require.NoErrorf(t, err, "%s is missing; run `%s`", pytables.Path, pytables.Command)
	want := pytables.Render()
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from the core's tables at line %d:\n  file: %q\n  core: %q\nrun `%s` (go run ./internal/gentables) and commit the file",
				pytables.Path, i+1, g, w, pytables.Command)
		}
	}
}

// Every alias in core.DataTypeAliases parses to its type, and
// ParseDataType accepts no short name that is neither a DataType.String
// nor listed there (its switch spells the aliases itself). Short names
// are every string of up to 3 characters from the alphabet of the known
// names, and every known name followed by "_".
func TestDataTypeAliasesAreWhatParseDataTypeAccepts(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, d := range core.DataTypes {
		known[d.String()] = true
	}
	alphabet := map[rune]bool{}
	for _, a := range core.DataTypeAliases {
		got, err := core.ParseDataType(a.Alias)
		require.NoErrorf(t, err, "ParseDataType(%q)", a.Alias)
		assert.Equalf(t, a.Type, got, "ParseDataType(%q)", a.Alias)
		assert.Falsef(t, known[a.Alias], "alias %q is also a DataType.String name", a.Alias)
		known[a.Alias] = true
	}
	for n := range known {
		for _, r := range n {
			alphabet[r] = true
		}
	}
	var chars []string
	for r := range alphabet {
		chars = append(chars, string(r))
	}
	probe := []string{}
	for n := range known {
		probe = append(probe, n+"_")
	}
	level := []string{""}
	for k := 0; k < 3; k++ {
		var next []string
		for _, p := range level {
			for _, c := range chars {
				next = append(next, p+c)
			}
		}
		probe = append(probe, next...)
		level = next
	}
	for _, s := range probe {
		if _, err := core.ParseDataType(s); err == nil && !known[s] {
			t.Errorf("ParseDataType(%q) succeeds but %q is not in core.DataTypeAliases; add it there and run `%s`",
				s, s, pytables.Command)
		}
	}
}

// The type stubs declare what the generated tables create at runtime: the
// DLDeviceType members of core.DeviceTypes (python/godlpack/_types.pyi, the
// one definition of the value types) and one dtype constant per
// core.DataTypes (python/godlpack/__init__.pyi; "bool" is bool_ in Python).
func TestPyStubMatchesCoreTables(t *testing.T) {
	t.Parallel()
	member := regexp.MustCompile(`^\s+(kDL\w+) = (\d+)\s*$`)
	constant := regexp.MustCompile(`^(\w+): DType\s*$`)
	var members, constants []string
	for _, stub := range []string{"_types.pyi", "__init__.pyi"} {
		f, err := os.Open(filepath.Join("..", "python", "godlpack", stub))
		require.NoError(t, err)
		in := false
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "class ") {
				in = strings.HasPrefix(line, "class DLDeviceType(")
				continue
			}
			if m := member.FindStringSubmatch(line); in && m != nil {
				members = append(members, m[1]+" = "+m[2])
			}
			if m := constant.FindStringSubmatch(line); m != nil && stub == "__init__.pyi" {
				constants = append(constants, m[1])
			}
		}
		require.NoError(t, sc.Err())
		f.Close()
	}
	var wantMembers, wantConstants []string
	for _, d := range core.DeviceTypes {
		wantMembers = append(wantMembers, d.String()+" = "+strconv.Itoa(int(d)))
	}
	for _, d := range core.DataTypes {
		n := d.String()
		if n == "bool" {
			n = "bool_"
		}
		wantConstants = append(wantConstants, n)
	}
	assert.Equal(t, wantMembers, members, "class DLDeviceType in python/godlpack/_types.pyi must list core.DeviceTypes")
	assert.ElementsMatch(t, wantConstants, constants, "the `NAME: DType` constants of python/godlpack/__init__.pyi must be core.DataTypes")
}
