package tests_go

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/godlpack/godlpack/core"
)

// The class every sentinel must map to, stated independently of errors.go.
var sentinelClasses = map[*core.Error]core.Class{
	core.ErrNoMemory:       core.ClassMemory,
	core.ErrVersion:        core.ClassBuffer,
	core.ErrNdim:           core.ClassBuffer,
	core.ErrShape:          core.ClassBuffer,
	core.ErrOverflow:       core.ClassBuffer,
	core.ErrDType:          core.ClassBuffer,
	core.ErrLanes:          core.ClassBuffer,
	core.ErrSubByte:        core.ClassBuffer,
	core.ErrSubByteView:    core.ClassValue,
	core.ErrDevice:         core.ClassBuffer,
	core.ErrNullData:       core.ClassBuffer,
	core.ErrNullShape:      core.ClassBuffer,
	core.ErrStrides:        core.ClassBuffer,
	core.ErrReadOnly:       core.ClassValue,
	core.ErrReadOnlyLegacy: core.ClassBuffer,
	core.ErrCopyNeeded:     core.ClassBuffer,
	core.ErrStream:         core.ClassBuffer,
	core.ErrMaxVersion:     core.ClassType,
	core.ErrCopyArg:        core.ClassValue,
	core.ErrDLDeviceArg:    core.ClassType,
	core.ErrIndex:          core.ClassIndex,
	core.ErrAxis:           core.ClassIndex,
	core.ErrReshape:        core.ClassValue,
	core.ErrReleased:       core.ClassValue,
	core.ErrForkChild:      core.ClassRuntime,
	core.ErrUnsupported:    core.ClassType,
	core.ErrInternal:       core.ClassRuntime,
	core.ErrConsumed:       core.ClassBuffer,
}

func TestSentinelClasses(t *testing.T) {
	t.Parallel()
	assert.Len(t, core.Sentinels, len(sentinelClasses))
	msgs := map[string]bool{}
	for _, e := range core.Sentinels {
		want, ok := sentinelClasses[e]
		if !assert.Truef(t, ok, "sentinel %q not in the test table", e.Error()) {
			continue
		}
		assert.Equalf(t, want, e.Class(), "%q.Class()", e.Error())
		assert.Equalf(t, want, core.ClassOf(e), "ClassOf(%q)", e.Error())
		assert.NotEmpty(t, e.Error())
		assert.Falsef(t, msgs[e.Error()], "duplicate message %q", e.Error())
		msgs[e.Error()] = true
	}
}

func TestClassOfThroughWrapping(t *testing.T) {
	t.Parallel()
	for e, want := range sentinelClasses {
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
		core.Class(0): "RuntimeError",
	}
	for c, s := range want {
		assert.Equal(t, s, c.String())
	}
}
