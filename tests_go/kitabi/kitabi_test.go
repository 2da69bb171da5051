package kitabi

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

func init() {
	gofunc.Func2("scale", func(a *core.Array, f float64) (*core.Array, error) {
		out, err := core.Empty(core.Float64, a.Shape()...)
		if err != nil {
			return nil, err
		}
		src, _ := a.Float64s()
		dst, _ := out.Float64s()
		for i, v := range src {
			dst[i] = v * f
		}
		return out, nil
	})
	gofunc.Func2("greet", func(s string, n int64) (string, error) { return s + "!" + string(rune('0'+n)), nil },
		gofunc.Params(gofunc.Arg("s"), gofunc.Arg("n").Default(int64(1))))
	gofunc.Func0("boom", func() (float64, error) { panic("kit bug") })
	gofunc.Func0("fails", func() (float64, error) { return 0, errors.New("bad input") })
	gofunc.Func1("slow", func(ctx context.Context) (int64, error) { <-ctx.Done(); return 7, nil })
	gofunc.Func0("latin1", func() (string, error) { return "caf\xe9", nil })
	gofunc.Func1("quits", func(ctx context.Context) (int64, error) { runtime.Goexit(); return 0, nil })
	gofunc.Func0("badError", func() (float64, error) { return 0, panicky{} })
	gofunc.Func1("echo", func(a *core.Array) (*core.Array, error) { kept = a; return a, nil }, gofunc.Quick())
	gofunc.Func1("size", func(a *core.Array) (float64, error) { return float64(a.Size()), nil })
	gofunc.Func1("sizeQuick", func(a *core.Array) (float64, error) { return float64(a.Size()), nil }, gofunc.Quick())
	gofunc.Func1("keepBlock", keepBlock)
}

var keptBlock core.Reader[float64] // kept by keepBlock against Blocks' rule (a test of core.CheckBlocks)

// keepBlock sums the block the previous call kept, then keeps its first.
func keepBlock(a *core.Array) (float64, error) {
	s := core.SumOf(keptBlock)
	it, err := core.ReadBlocks[float64](a)
	if err != nil {
		return 0, err
	}
	for b := range it {
		keptBlock = b
		break
	}
	return s, nil
}

var kept *core.Array // what echo was lent, kept against Quick's promise (a test of the lending)

// panicky is an error whose Error panics: the function's author's bug.
type panicky struct{}

func (panicky) Error() string { panic("Error() broke") }

func index(t *testing.T, name string) int {
	for i, e := range gofunc.Opened() {
		if e.Name == name {
			return i
		}
	}
	t.Fatalf("%s is not registered", name)
	return -1
}

func TestCallThroughTheCABI(t *testing.T) {
	n, err := gofunc.Open()
	require.NoError(t, err)
	require.Equal(t, 26, n)
	require.Len(t, gofunc.Opened(), n)

	name, kinds, optional := Describe(func(d unsafe.Pointer) { gofunc.DescribeC(index(t, "greet"), d) })
	assert.Equal(t, "greet", name)
	assert.Equal(t, []int{int(gofunc.KindString), int(gofunc.KindInt)}, kinds)
	assert.Equal(t, []bool{false, true}, optional)

	// an array lent, an array handed back with an owner reference of its own
	a, err := core.Empty(core.Float64, 3)
	require.NoError(t, err)
	s, _ := a.Float64s()
	copy(s, []float64{1, 2, 3})
	args, res := NewSlots(2), NewSlots(1)
	defer args.Free()
	defer res.Free()
	args.SetArray(0, a.Header(), []int64{3}, []int64{1})
	args.SetFloat(1, 2)
	pending, _, err := gofunc.CallC(index(t, "scale"), args.Ptr(), 2, res.Ptr(), 0)
	require.NoError(t, err)
	assert.False(t, pending)
	require.Equal(t, int(gofunc.KindArray), res.Kind(0))
	h, shape := res.Array(0)
	assert.Equal(t, []int64{3}, shape)
	assert.Equal(t, []float64{2, 4, 6}, unsafe.Slice((*float64)(h.Data), 3))
	assert.EqualValues(t, 1, h.Owner.Refs(), "the result's reference is the skin's only: the Go Array released its own")
	h.Owner.Release()
	a.Release()

	// strings in, a malloc'ed string out
	args2 := NewSlots(2)
	defer args2.Free()
	args2.SetString(0, "hi")
	args2.SetInt(1, 3)
	_, _, err = gofunc.CallC(index(t, "greet"), args2.Ptr(), 2, res.Ptr(), 0)
	require.NoError(t, err)
	assert.Equal(t, "hi!3", res.String(0))

	// the author's panic and error are the call's error, worded for the user
	_, _, err = gofunc.CallC(index(t, "boom"), nil, 0, res.Ptr(), 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "boom()")
	assert.Contains(t, err.Error(), "kit bug")
	_, _, err = gofunc.CallC(index(t, "fails"), nil, 0, res.Ptr(), 0)
	require.ErrorContains(t, err, "bad input")
	// a Python str holds text: bytes that are not UTF-8 become U+FFFD
	_, _, err = gofunc.CallC(index(t, "latin1"), nil, 0, res.Ptr(), 0)
	require.NoError(t, err)
	assert.Equal(t, "caf\uFFFD", res.String(0))
	// an Error() that panics is the function's bug, named as such
	_, _, err = gofunc.CallC(index(t, "badError"), nil, 0, res.Ptr(), 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "badError(): the Go function")
	assert.Contains(t, err.Error(), "panicked: Error() broke")
	// runtime.Goexit in a function with a context (on a goroutine) is the call's RuntimeError
	pending, handle, err := gofunc.CallC(index(t, "quits"), nil, 0, res.Ptr(), time.Second)
	if pending {
		pending, err = gofunc.WaitC(handle, 5*time.Second, false, res.Ptr())
	}
	require.False(t, pending)
	require.Error(t, err)
	assert.Equal(t, core.ClassRuntime, core.ClassOf(err))
	assert.Contains(t, err.Error(), "quits(): the Go function")
	assert.Contains(t, err.Error(), "called runtime.Goexit instead of returning")
	_, _, err = gofunc.CallC(99, nil, 0, res.Ptr(), 0)
	assert.ErrorIs(t, err, core.ErrInternal)

	// a slot of the wrong kind, or one missing, is still refused when no
	// parameter has defaults or constraints (callNow's direct path)
	one := NewSlots(1)
	defer one.Free()
	one.SetFloat(0, 1)
	for _, name := range []string{"size", "sizeQuick"} {
		_, _, err = gofunc.CallC(index(t, name), one.Ptr(), 1, res.Ptr(), 0)
		assert.Equal(t, core.ClassType, core.ClassOf(err), name)
		assert.Contains(t, err.Error(), name+"(): argument 'arg0' must be Array")
		_, _, err = gofunc.CallC(index(t, name), nil, 0, res.Ptr(), 0)
		assert.Contains(t, err.Error(), name+"() missing required argument 'arg0'")
	}

	// a block kept past its call: caught when blocks are checked
	defer core.CheckBlocks(core.CheckBlocks(true))
	_, _, err = gofunc.CallC(index(t, "keepBlock"), args.Ptr(), 1, res.Ptr(), 0)
	require.NoError(t, err)
	_, _, err = gofunc.CallC(index(t, "keepBlock"), args.Ptr(), 1, res.Ptr(), 0)
	require.Error(t, err)
	assert.Equal(t, core.ClassRuntime, core.ClassOf(err))
	assert.Contains(t, err.Error(), "keepBlock(): the Go function")
	assert.Contains(t, err.Error(), "used a block of core.Blocks, ReadBlocks or MapBlocks after its step")
	core.CheckBlocks(false)

	// a context function is pending until cancelled through WaitC
	pending, handle, err = gofunc.CallC(index(t, "slow"), nil, 0, res.Ptr(), time.Millisecond)
	require.NoError(t, err)
	require.True(t, pending)
	pending, err = gofunc.WaitC(handle, time.Second, true, res.Ptr())
	require.False(t, pending)
	require.NoError(t, err) // the function saw its context cancelled and returned
	assert.Equal(t, int64(7), res.Int(0))
	_, err = gofunc.WaitC(handle, 0, false, res.Ptr())
	assert.ErrorIs(t, err, core.ErrInternal) // a finished call's handle is gone
}

// A Quick function's arrays are lent from its held frame: the same object
// each call, returned (ErrReleased) when the call ends, and a lent array
// handed back as the result gets an owner reference of its own first.
func TestQuickCallLendsAndReturns(t *testing.T) {
	_, err := gofunc.Open()
	require.NoError(t, err)
	a, err := core.Zeros(core.Float64, 4)
	require.NoError(t, err)
	defer a.Release()
	args, res := NewSlots(1), NewSlots(1)
	defer args.Free()
	defer res.Free()
	var first *core.Array
	for call := range 3 {
		args.SetArray(0, a.Header(), []int64{4}, []int64{1})
		_, _, err = gofunc.CallC(index(t, "echo"), args.Ptr(), 1, res.Ptr(), 0)
		require.NoError(t, err)
		require.Equal(t, int(gofunc.KindArray), res.Kind(0))
		h, shape := res.Array(0)
		assert.Equal(t, []int64{4}, shape)
		assert.Equal(t, a.DataPtr(), h.Data)
		require.NotNil(t, h.Owner, "the result holds a reference of its own")
		h.Owner.Release()
		if call == 0 {
			first = kept
		}
		assert.Same(t, first, kept, "call %d: the held frame's Array", call)
		_, err = kept.Float64s()
		assert.ErrorIs(t, err, core.ErrReleased, "call %d: returned when the call ended", call)
	}
	allocs := testing.AllocsPerRun(50, func() {
		args.SetArray(0, a.Header(), []int64{4}, []int64{1})
		if _, _, err := gofunc.CallC(index(t, "echo"), args.Ptr(), 1, res.Ptr(), 0); err != nil {
			panic(err)
		}
		res.Owner(0).Release()
	})
	assert.Zero(t, allocs, "a Quick call allocates nothing")
}

// A kit's Go plugin registers its functions after the module opened the
// registry: Extend adds what a load registers, numbered after the others,
// or nothing when the load or any registration of it fails (the plugin's
// functions never half reach Python).
func TestExtendAddsWhatALoadRegisters(t *testing.T) {
	n, err := gofunc.Open()
	require.NoError(t, err)
	first, end, err := gofunc.Extend(func() error {
		gofunc.Func1("late_double", func(x float64) (float64, error) { return 2 * x, nil })
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, [2]int{n, n + 1}, [2]int{first, end})
	require.Len(t, gofunc.Opened(), end)
	args, res := NewSlots(1), NewSlots(1)
	defer args.Free()
	defer res.Free()
	args.SetFloat(0, 21)
	_, _, err = gofunc.CallC(index(t, "late_double"), args.Ptr(), 1, res.Ptr(), 0)
	require.NoError(t, err)
	assert.Equal(t, 42.0, res.Float(0))

	for _, tc := range []struct {
		name string
		load func() error
		want string
	}{
		{"a bad registration", func() error {
			gofunc.Func1("late_ok", func(x float64) (float64, error) { return x, nil })
			gofunc.Func1("late_bad", func(x float32) (float32, error) { return x, nil })
			return nil
		}, `registering "late_bad"`},
		{"a refused load", func() error {
			gofunc.Func1("late_ok", func(x float64) (float64, error) { return x, nil })
			return errors.New("plugin refused")
		}, "plugin refused"},
	} {
		lo, hi, err := gofunc.Extend(tc.load)
		require.ErrorContains(t, err, tc.want, tc.name)
		assert.Equal(t, [2]int{end, end}, [2]int{lo, hi}, tc.name)
		assert.Len(t, gofunc.Opened(), end, tc.name)
		assert.Nil(t, gofunc.Lookup("late_ok"), tc.name)
	}
	// the names a failed load took are free again
	_, hi, err := gofunc.Extend(func() error {
		gofunc.Func1("late_ok", func(x float64) (float64, error) { return x, nil })
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, end+1, hi)
	// outside Extend, the opened registry refuses registrations
	gofunc.Func1("too_late", func(x float64) (float64, error) { return x, nil })
	assert.ErrorContains(t, gofunc.Err(), `"too_late" registered after its module was built`)
}
