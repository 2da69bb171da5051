package tests_go

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
	_ "github.com/godlpack/godlpack/internal/builtins" // godlpack's own registrations
	_ "github.com/godlpack/godlpack/internal/probes"   // the probes of the tests
)

// The extension kit's registry and call path, driven as the C skin drives
// them (gofunc.Entry.Call with Values), on godlpack's own registered
// functions and on registrations made here.

func lookup(t *testing.T, name string) *gofunc.Entry {
	t.Helper()
	e := gofunc.Lookup(name)
	require.NotNil(t, e, name)
	return e
}

func arrVal(a *core.Array) gofunc.Value { return gofunc.Value{Kind: gofunc.KindArray, Array: a} }

func TestGofuncScalarsAndDefaults(t *testing.T) {
	t.Parallel()
	e := lookup(t, "_gofunc_scalars")
	assert.Equal(t, []string{"i", "f", "b", "c", "s", "n"}, paramNames(e))
	assert.False(t, e.Params[0].Optional())
	assert.True(t, e.Params[5].Optional())
	assert.Equal(t, "(2, 3)", e.Params[5].DefaultRepr())
	cases := []struct {
		name string
		n    gofunc.Value
		want string
	}{
		{"given", gofunc.Value{Kind: gofunc.KindInts, Ints: []int64{7}}, "i=-1 f=0.5 b=true c=(1+2i) s=hé n=[7]"},
		{"default", gofunc.Value{}, "i=-1 f=0.5 b=true c=(1+2i) s=hé n=[2 3]"},
	}
	for _, c := range cases {
		args := []gofunc.Value{{Kind: gofunc.KindInt, I: -1}, {Kind: gofunc.KindFloat, F: 0.5}, {Kind: gofunc.KindBool, I: 1},
			{Kind: gofunc.KindComplex, C: 1 + 2i}, {Kind: gofunc.KindString, S: "hé"}, c.n}
		res := make([]gofunc.Value, 1)
		require.NoError(t, e.Call(nil, args, res), c.name)
		assert.Equal(t, gofunc.KindString, res[0].Kind, c.name)
		assert.Equal(t, c.want, res[0].S, c.name)
	}
	err := e.Call(nil, []gofunc.Value{{Kind: gofunc.KindInt}}, make([]gofunc.Value, 1))
	assert.Equal(t, core.ClassType, core.ClassOf(err))
	assert.Contains(t, err.Error(), "_gofunc_scalars() missing required argument 'f'")
}

func paramNames(e *gofunc.Entry) []string {
	var out []string
	for _, p := range e.Params {
		out = append(out, p.Name)
	}
	return out
}

func TestGofuncTupleResult(t *testing.T) {
	t.Parallel()
	e := lookup(t, "_gofunc_tuple")
	assert.True(t, e.Tuple)
	assert.Equal(t, []gofunc.Kind{gofunc.KindInt, gofunc.KindInts, gofunc.KindComplex}, e.Results)
	res := make([]gofunc.Value, 3)
	require.NoError(t, e.Call(nil, []gofunc.Value{{Kind: gofunc.KindInt, I: 4}}, res))
	assert.Equal(t, int64(-4), res[0].I)
	assert.Equal(t, []int64{4, 4}, res[1].Ints)
	assert.Equal(t, complex(4, 1), res[2].C)
}

// Errors keep their class and get the function's name in front; panics
// become RuntimeError (ErrInternal) naming the Go function.
func TestGofuncErrorsAndPanics(t *testing.T) {
	t.Parallel()
	e := lookup(t, "_gofunc_fail")
	cases := []struct {
		how   string
		class core.Class
		is    error
		msg   string
	}{
		{"value", core.ClassValue, core.ErrUnsupported, "_gofunc_fail(): the value is wrong; pass another"},
		{"index", core.ClassIndex, core.ErrIndex, "_gofunc_fail(): no such element: index out of range"},
		{"plain", core.ClassRuntime, nil, "_gofunc_fail(): a plain Go error"},
		{"prefixed", core.ClassRuntime, nil, "_gofunc_fail(): already prefixed"},
		{"panic", core.ClassRuntime, core.ErrInternal, "_gofunc_fail(): the Go function github.com/godlpack/godlpack/internal/probes.failWith panicked: assignment to entry in nil map"},
	}
	for _, c := range cases {
		err := e.Call(nil, []gofunc.Value{{Kind: gofunc.KindString, S: c.how}}, nil)
		require.Error(t, err, c.how)
		assert.Equal(t, c.class, core.ClassOf(err), c.how)
		assert.Contains(t, err.Error(), c.msg, c.how)
		if c.is != nil {
			assert.ErrorIs(t, err, c.is, c.how)
		}
	}
	require.NoError(t, e.Call(nil, []gofunc.Value{{Kind: gofunc.KindString, S: "none"}}, nil))
}

// Array constraints are checked before the function runs, each with its
// class and a message ending in the way out.
func TestGofuncArrayConstraints(t *testing.T) {
	t.Parallel()
	e := lookup(t, "_gofunc_fill")
	f64, err := core.Zeros(core.Float64, 3, 4)
	require.NoError(t, err)
	defer f64.Release()
	f32, err := core.Zeros(core.Float32, 3)
	require.NoError(t, err)
	defer f32.Release()
	col, err := f64.Slice(1, 0, 1, 1)
	require.NoError(t, err)
	defer col.Release()
	h := f64.Header()
	h.Flags |= core.HeaderReadOnly
	ro := core.NewArray(h, f64.Shape(), f64.Strides())
	defer ro.Release()
	cases := []struct {
		name  string
		a     *core.Array
		class core.Class
		is    error
		msg   string
	}{
		{"dtype", f32, core.ClassType, core.ErrDType, "_gofunc_fill(): a must have dtype float64, got float32; convert it first"},
		{"layout", col, core.ClassBuffer, core.ErrStrides, "_gofunc_fill(): a must be C-contiguous"},
		{"read-only", ro, core.ClassValue, core.ErrReadOnly, "_gofunc_fill(): a must be writable, got a read-only array; pass a writable copy"},
	}
	for _, c := range cases {
		err := e.Call(nil, []gofunc.Value{arrVal(c.a), {Kind: gofunc.KindFloat, F: 1}}, nil)
		require.Error(t, err, c.name)
		assert.Equal(t, c.class, core.ClassOf(err), c.name)
		assert.ErrorIs(t, err, c.is, c.name)
		assert.Contains(t, err.Error(), c.msg, c.name)
	}
	require.NoError(t, e.Call(nil, []gofunc.Value{arrVal(f64), {Kind: gofunc.KindFloat, F: 2.5}}, nil))
	v, err := core.At[float64](f64, 2, 3)
	require.NoError(t, err)
	assert.Equal(t, 2.5, v, "the function wrote the caller's memory")
}

// A borrowed array holds no reference: releasing it leaves the owner alone,
// later use reads ErrReleased; Retain keeps the memory beyond the borrow.
func TestBorrowAndRetain(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Float64, 4)
	require.NoError(t, err)
	defer a.Release()
	h := a.Header()
	refs := h.Owner.Refs()
	b := core.Borrow(h, a.Shape(), a.Strides())
	assert.Equal(t, refs, h.Owner.Refs(), "a borrow takes no reference")
	k, err := b.Retain()
	require.NoError(t, err)
	assert.Equal(t, refs+1, h.Owner.Refs())
	b.Release()
	assert.Equal(t, refs+1, h.Owner.Refs(), "releasing a borrow drops nothing")
	_, err = b.Float64s()
	assert.ErrorIs(t, err, core.ErrReleased)
	_, err = b.Retain()
	assert.ErrorIs(t, err, core.ErrReleased)
	s, err := k.Float64s()
	require.NoError(t, err)
	assert.Len(t, s, 4)
	k.Release()
	assert.Equal(t, refs, h.Owner.Refs())
}

// Read-only arrays have no writable slice; ReadSlice reads them.
func TestReadOnlyHasNoWritableSlice(t *testing.T) {
	t.Parallel()
	a := arIota(t, 2, 3)
	r := arReadOnly(t, a)
	_, err := r.Float64s()
	assert.ErrorIs(t, err, core.ErrReadOnly)
	_, err = r.Bytes()
	assert.ErrorIs(t, err, core.ErrReadOnly)
	rs, err := core.ReadSlice[float64](r)
	require.NoError(t, err)
	require.Equal(t, 6, rs.Len())
	assert.Equal(t, 5.0, rs.At(5))
	dst := make([]float64, 6)
	assert.Equal(t, 6, rs.CopyTo(dst))
	_, err = core.ReadSlice[int32](r)
	assert.ErrorIs(t, err, core.ErrDType)
}

func TestGofuncContext(t *testing.T) {
	t.Parallel()
	e := lookup(t, "_gofunc_sleep")
	assert.True(t, e.Context)
	assert.Len(t, e.Params, 1, "a context is not a Python parameter")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := make([]gofunc.Value, 1)
	require.NoError(t, e.Call(ctx, []gofunc.Value{{Kind: gofunc.KindFloat, F: 60}}, res))
	assert.Equal(t, int64(1), res[0].I, "a cancelled context ends the call")
}

// A call of a registered function allocates nothing on the Go heap beyond
// what the function itself allocates.
func TestGofuncCallAllocatesNothing(t *testing.T) {
	a, err := core.Zeros(core.Float32, 8)
	require.NoError(t, err)
	defer a.Release()
	e := lookup(t, "_bench_call")
	args := []gofunc.Value{arrVal(a)}
	res := make([]gofunc.Value, 1)
	n := testing.AllocsPerRun(100, func() {
		if err := e.Call(nil, args, res); err != nil {
			panic(err)
		}
	})
	assert.Zero(t, n)
	assert.Equal(t, 8.0, res[0].F)
}

func TestMayShareMemory(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Float64, 4, 4)
	require.NoError(t, err)
	defer a.Release()
	b, err := core.Zeros(core.Float64, 4)
	require.NoError(t, err)
	defer b.Release()
	row, err := a.Index(3)
	require.NoError(t, err)
	defer row.Release()
	rev, err := a.Slice(0, 3, -100, -1)
	require.NoError(t, err)
	defer rev.Release()
	first, err := a.Index(0)
	require.NoError(t, err)
	defer first.Release()
	cases := []struct {
		name string
		x, y *core.Array
		want bool
	}{
		{"itself", a, a, true}, {"a row", a, row, true}, {"reversed view", rev, first, true},
		{"other array", a, b, false}, {"two rows", row, first, false},
	}
	e := lookup(t, "may_share_memory")
	for _, c := range cases {
		res := make([]gofunc.Value, 1)
		require.NoError(t, e.Call(nil, []gofunc.Value{arrVal(c.x), arrVal(c.y)}, res), c.name)
		assert.Equal(t, c.want, res[0].I == 1, c.name)
	}
}

func testFn(int64) (float64, error) { return 0, nil }

// Bad registrations are programming errors: each is recorded, naming the
// function and the problem (gofunc.Err), and not registered; the module
// built from the registry refuses to import with them (ImportError) rather
// than the process dying in a Go init.
func TestGofuncBadRegistrations(t *testing.T) {
	t.Parallel()
	gofunc.Func1("_test_ok_once", testFn)
	cases := []struct {
		name string
		reg  func()
		msg  string
	}{
		{"twice", func() { gofunc.Func1("_test_ok_once", testFn) }, "registered twice"},
		{"bad name", func() { gofunc.Func1("not-a-name", testFn) }, "Python identifier"},
		{"bad type", func() { gofunc.Func1("_test_bad_type", func(uint16) (float64, error) { return 0, nil }) }, "not a supported"},
		{"too many names", func() { gofunc.Func1("_test_names", testFn, gofunc.Params(gofunc.Arg("a"), gofunc.Arg("b"))) }, "Params names 2"},
		{"default type", func() { gofunc.Func1("_test_default", testFn, gofunc.Params(gofunc.Arg("a").Default("x"))) }, "does not suit"},
		{"array constraint on int", func() { gofunc.Func1("_test_arr", testFn, gofunc.Params(gofunc.Array("a"))) }, "Array(...) constraints"},
		{"context result", func() {
			gofunc.Func0("_test_ctx_res", func() (context.Context, error) { return nil, nil })
		}, "cannot be a result"},
		{"nil", func() { gofunc.Func1[int64, float64]("_test_nil", nil) }, "nil function"},
		{"quick with a context", func() {
			gofunc.Func1("_test_quick_ctx", func(context.Context) (bool, error) { return false, nil }, gofunc.Quick())
		}, "Quick() and a context.Context parameter exclude each other"},
	}
	for _, c := range cases {
		assert.NotPanics(t, c.reg, c.name)
		require.Error(t, gofunc.Err(), c.name)
		assert.Contains(t, gofunc.Err().Error(), c.msg, c.name)
	}
	assert.Nil(t, gofunc.Lookup("_test_bad_type"), "a failed registration registers nothing")
	assert.NotNil(t, gofunc.Lookup("_test_ok_once"))
}

// Quick is recorded on the entry (the skin keeps the GIL for it) and only
// there.
func TestGofuncQuick(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		quick bool
	}{
		{"_bench_call", false},
		{"_bench_call_quick", true},
		{"_gofunc_spin", true},
		{"_gofunc_sleep", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.quick, lookup(t, c.name).Quick, c.name)
	}
}

// A Frame reused from call to call carries nothing over: an argument given
// to one call and omitted from the next takes its default; the context goes
// to its position; results land in Res.
func TestGofuncCallFrameReuse(t *testing.T) {
	scalars, sleep := lookup(t, "_gofunc_scalars"), lookup(t, "_gofunc_sleep")
	base := []gofunc.Value{{Kind: gofunc.KindInt, I: 1}, {Kind: gofunc.KindFloat, F: 2}, {Kind: gofunc.KindBool, I: 0},
		{Kind: gofunc.KindComplex, C: 3}, {Kind: gofunc.KindString, S: "s"}}
	cases := []struct {
		name  string
		e     *gofunc.Entry
		args  []gofunc.Value
		check func(*gofunc.Frame)
	}{
		{"n given", scalars, append(append([]gofunc.Value{}, base...), gofunc.Value{Kind: gofunc.KindInts, Ints: []int64{9}}),
			func(f *gofunc.Frame) { assert.Equal(t, "i=1 f=2 b=false c=(3+0i) s=s n=[9]", f.Res[0].S) }},
		{"n omitted: the default, not the last call's", scalars, base,
			func(f *gofunc.Frame) { assert.Equal(t, "i=1 f=2 b=false c=(3+0i) s=s n=[2 3]", f.Res[0].S) }},
		{"context inserted", sleep, []gofunc.Value{{Kind: gofunc.KindFloat, F: 0}},
			func(f *gofunc.Frame) { assert.Equal(t, gofunc.KindBool, f.Res[0].Kind) }},
	}
	f := gofunc.NewFrame()
	defer f.Free()
	for _, c := range cases {
		copy(f.Args[:], c.args)
		require.NoError(t, c.e.CallFrame(nil, f, len(c.args)), c.name)
		c.check(f)
	}
}

// The skin's call path (NewFrame, CallFrame, Free) allocates nothing on the
// Go heap beyond what the function itself allocates.
func TestGofuncCallFrameAllocatesNothing(t *testing.T) {
	a, err := core.Zeros(core.Float32, 8)
	require.NoError(t, err)
	defer a.Release()
	e := lookup(t, "_bench_call_quick")
	h, shape, strides := a.Header(), a.Shape(), a.Strides()
	var got float64
	n := testing.AllocsPerRun(100, func() {
		f := gofunc.NewFrame()
		f.Args[0] = arrVal(f.Lend(0, h, shape, strides)) // a Quick function's argument
		if err := e.CallFrame(nil, f, 1); err != nil {
			panic(err)
		}
		got = f.Res[0].F
		f.Args[0].Array.Release()
		f.Free()
	})
	assert.Zero(t, n)
	assert.Equal(t, 8.0, got)
}

// A LendSlot lends one Array object again and again: released after each
// call (ErrReleased), live with the next call's header, shape and strides;
// Retain outlives the slot's reuse; more than 8 dimensions are borrowed
// afresh.
func TestLendSlot(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Float64, 2, 3)
	require.NoError(t, err)
	defer a.Release()
	b, err := core.Zeros(core.Int8, 5)
	require.NoError(t, err)
	defer b.Release()
	big, err := core.Zeros(core.Float32, 1, 1, 1, 1, 1, 1, 1, 1, 2)
	require.NoError(t, err)
	defer big.Release()
	var slot core.LendSlot
	first := slot.Lend(a.Header(), a.Shape(), a.Strides())
	kept, err := first.Retain()
	require.NoError(t, err)
	defer kept.Release()
	first.Release()
	_, err = first.Float64s()
	assert.ErrorIs(t, err, core.ErrReleased, "released after its call")
	cases := []struct {
		name   string
		src    *core.Array
		shared bool // the slot's own object
	}{
		{"2-d float64", a, true},
		{"1-d int8", b, true},
		{"9-d: borrowed afresh", big, false},
	}
	for _, c := range cases {
		l := slot.Lend(c.src.Header(), c.src.Shape(), c.src.Strides())
		assert.Equal(t, c.shared, l == first, c.name)
		assert.Equal(t, c.src.Shape(), l.Shape(), c.name)
		assert.Equal(t, c.src.Strides(), l.Strides(), c.name)
		assert.Equal(t, c.src.DType(), l.DType(), c.name)
		assert.Equal(t, c.src.DataPtr(), l.DataPtr(), c.name)
		l.Release()
		assert.Nil(t, l.DataPtr(), c.name)
	}
	s, err := kept.Float64s()
	require.NoError(t, err, "a Retain outlives the slot's reuse")
	assert.Len(t, s, 6)
}

func TestGofuncDocstringAndMeta(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		lead      string // the __text_signature__ line and what follows
		notes     []string
		metaParam string
	}{
		{"_gofunc_scalars", "_gofunc_scalars(i, f, b, c, s, n=(2, 3))\n--\n\n", nil, `"name":"n","type":"tuple[int, ...]","default":"(2, 3)"`},
		{"_gofunc_fill", "_gofunc_fill(a, v)\n--\n\n", []string{"a: an array ("}, `"name":"a","type":"Array","constraints":`},
		{"_gofunc_sleep", "_gofunc_sleep(seconds)\n--\n\n", []string{"Ctrl-C cancels the call"}, `"name":"seconds","type":"float"`},
		{"_gofunc_spin", "_gofunc_spin(seconds)\n--\n\n", []string{"Holds the GIL while it runs"}, `"name":"seconds"`},
	}
	for _, c := range cases {
		e := lookup(t, c.name)
		d := e.Docstring()
		assert.True(t, len(d) > len(c.lead) && d[:len(c.lead)] == c.lead, "%s: %q", c.name, d)
		for _, n := range c.notes {
			assert.Contains(t, d, "\n\n"+n, c.name)
		}
		b, err := gofunc.MetaJSON([]*gofunc.Entry{e})
		require.NoError(t, err)
		assert.Contains(t, string(b), `"name":"`+c.name+`"`)
		assert.Contains(t, string(b), c.metaParam, c.name)
	}
}

func TestGofuncPendingParksAndCancels(t *testing.T) {
	t.Parallel()
	p := &gofunc.Pending{Entry: lookup(t, "_gofunc_sleep"), NArgs: 1}
	p.Args[0] = gofunc.Value{Kind: gofunc.KindFloat, F: 30}
	p.Start()
	require.False(t, p.Wait(time.Millisecond), "a 30 s sleep returned at once")
	id := p.ID()
	require.NotZero(t, id)
	assert.Same(t, p, gofunc.Parked(id))
	assert.False(t, p.Wait(time.Millisecond))
	assert.Equal(t, id, p.ID(), "a call parked twice keeps its ID")
	p.Cancel()
	require.True(t, p.Wait(10*time.Second), "cancelling the context did not end the call")
	require.NoError(t, p.Err)
	assert.Equal(t, gofunc.Value{Kind: gofunc.KindBool, I: 1}, p.Res[0], "the call should report it was cancelled")
	assert.Nil(t, gofunc.Parked(id), "a finished call stays parked")
}
