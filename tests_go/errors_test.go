package tests_go

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/godlpack/godlpack/core"
)

// The class every sentinel must map to, stated independently of errors.go.
var sentinelClasses = map[string]struct {
	err   *core.Error
	class core.Class
}{
	"ErrNoMemory":       {core.ErrNoMemory, core.ClassMemory},
	"ErrVersion":        {core.ErrVersion, core.ClassBuffer},
	"ErrNdim":           {core.ErrNdim, core.ClassBuffer},
	"ErrShape":          {core.ErrShape, core.ClassBuffer},
	"ErrOverflow":       {core.ErrOverflow, core.ClassBuffer},
	"ErrDType":          {core.ErrDType, core.ClassBuffer},
	"ErrLanes":          {core.ErrLanes, core.ClassBuffer},
	"ErrSubByte":        {core.ErrSubByte, core.ClassBuffer},
	"ErrSubByteView":    {core.ErrSubByteView, core.ClassValue},
	"ErrDevice":         {core.ErrDevice, core.ClassBuffer},
	"ErrNullData":       {core.ErrNullData, core.ClassBuffer},
	"ErrNullShape":      {core.ErrNullShape, core.ClassBuffer},
	"ErrStrides":        {core.ErrStrides, core.ClassBuffer},
	"ErrReadOnly":       {core.ErrReadOnly, core.ClassValue},
	"ErrReadOnlyLegacy": {core.ErrReadOnlyLegacy, core.ClassBuffer},
	"ErrCopyNeeded":     {core.ErrCopyNeeded, core.ClassBuffer},
	"ErrStream":         {core.ErrStream, core.ClassBuffer},
	"ErrMaxVersion":     {core.ErrMaxVersion, core.ClassType},
	"ErrCopyArg":        {core.ErrCopyArg, core.ClassValue},
	"ErrDLDeviceArg":    {core.ErrDLDeviceArg, core.ClassType},
	"ErrIndex":          {core.ErrIndex, core.ClassIndex},
	"ErrAxis":           {core.ErrAxis, core.ClassValue},
	"ErrReshape":        {core.ErrReshape, core.ClassValue},
	"ErrReleased":       {core.ErrReleased, core.ClassValue},
	"ErrForkChild":      {core.ErrForkChild, core.ClassRuntime},
	"ErrUnsupported":    {core.ErrUnsupported, core.ClassType},
	"ErrNoIdentity":     {core.ErrNoIdentity, core.ClassValue},
	"ErrBroadcast":      {core.ErrBroadcast, core.ClassValue},
	"ErrInternal":       {core.ErrInternal, core.ClassRuntime},
	"ErrKit":            {core.ErrKit, core.ClassRuntime},
	"ErrArrow":          {core.ErrArrow, core.ClassBuffer},
	"ErrConsumed":       {core.ErrConsumed, core.ClassBuffer},
	"ErrByteOffset":     {core.ErrByteOffset, core.ClassBuffer},
	"ErrCapsule":        {core.ErrCapsule, core.ClassBuffer},
	"ErrProducer":       {core.ErrProducer, core.ClassBuffer},
	"ErrBufferRequest":  {core.ErrBufferRequest, core.ClassBuffer},
	"ErrShapeArg":       {core.ErrShapeArg, core.ClassValue},
	"ErrAmbiguous":      {core.ErrAmbiguous, core.ClassValue},
	"ErrPickle":         {core.ErrPickle, core.ClassValue},
	"ErrArgument":       {core.ErrArgument, core.ClassValue},
	"ErrArgType":        {core.ErrArgType, core.ClassType},
	"ErrOutOfRange":     {core.ErrOutOfRange, core.ClassOverflow},
	"ErrInit":           {core.ErrInit, core.ClassImport},
}

// declaredSentinels returns the names of the package-level variables of
// core/errors.go initialised with newErr(...): every sentinel.
func declaredSentinels(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../core/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, v := range vs.Values {
			if c, ok := v.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "newErr" {
					names = append(names, vs.Names[i].Name)
				}
			}
		}
		return true
	})
	return names
}

func TestSentinelClasses(t *testing.T) {
	t.Parallel()
	declared := declaredSentinels(t)
	assert.Len(t, declared, len(sentinelClasses), "sentinels in core/errors.go vs the test table")
	msgs := map[string]bool{}
	for _, name := range declared {
		row, ok := sentinelClasses[name]
		if !assert.Truef(t, ok, "sentinel %s not in the test table", name) {
			continue
		}
		e := row.err
		assert.Equalf(t, row.class, e.Class(), "%s.Class()", name)
		assert.Equalf(t, row.class, core.ClassOf(e), "ClassOf(%s)", name)
		assert.NotEmpty(t, e.Error())
		assert.Falsef(t, msgs[e.Error()], "duplicate message %q", e.Error())
		msgs[e.Error()] = true
	}
}

func TestClassOfThroughWrapping(t *testing.T) {
	t.Parallel()
	for _, row := range sentinelClasses {
		e, want := row.err, row.class
		w1 := fmt.Errorf("from_dlpack(): %w; pass copy=True", e)
		w2 := fmt.Errorf("outer: %w", w1)
		w3 := errors.Join(errors.New("other"), w2)
		for _, err := range []error{w1, w2, w3} {
			assert.Truef(t, errors.Is(err, e), "errors.Is(%q, %q)", err, e.Error())
			assert.Equalf(t, want, core.ClassOf(err), "ClassOf(%q)", err)
		}
	}
}

func TestWithClass(t *testing.T) {
	t.Parallel()
	err := core.WithClass(core.ClassValue, "bad dtype", core.ErrDType)
	assert.Equal(t, "bad dtype", err.Error())
	assert.True(t, errors.Is(err, core.ErrDType))
	assert.Equal(t, core.ClassValue, core.ClassOf(err))
	assert.Equal(t, core.ClassValue, core.ClassOf(fmt.Errorf("x: %w", err)))
}

func TestClassOfUnclassed(t *testing.T) {
	t.Parallel()
	assert.Equal(t, core.ClassRuntime, core.ClassOf(errors.New("plain")))
	assert.Equal(t, core.ClassRuntime, core.ClassOf(nil))
}

func TestClassString(t *testing.T) {
	t.Parallel()
	want := map[core.Class]string{
		core.ClassBuffer: "BufferError", core.ClassType: "TypeError", core.ClassValue: "ValueError",
		core.ClassMemory: "MemoryError", core.ClassRuntime: "RuntimeError", core.ClassIndex: "IndexError",
		core.ClassOverflow: "OverflowError", core.ClassImport: "ImportError", core.Class(0): "RuntimeError",
	}
	for c, s := range want {
		assert.Equal(t, s, c.String())
	}
}

// A message cut to fit the skin's buffer stays valid UTF-8: the cut falls
// before a character it would split.
func TestCutUTF8(t *testing.T) {
	t.Parallel()
	euros := strings.Repeat("€", 200) // 3 bytes each
	for _, c := range []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short enough", "abc", 5, "abc"},
		{"exact", "abc", 3, "abc"},
		{"ascii cut", "abcdef", 4, "abcd"},
		{"inside a character", euros, 511, strings.Repeat("€", 170)},
		{"at a boundary", euros, 510, strings.Repeat("€", 170)},
		{"before the first", "€", 2, ""},
		{"invalid bytes are kept whole", "a\xff\xfeb", 3, "a\xff\xfe"},
	} {
		got := core.CutUTF8(c.s, c.n)
		assert.Equal(t, c.want, got, c.name)
		assert.LessOrEqual(t, len(got), c.n, c.name)
		if utf8.ValidString(c.s) {
			assert.True(t, utf8.ValidString(got), c.name)
		}
	}
}
