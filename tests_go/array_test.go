package tests_go

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// ---- helpers shared by array_test, view_test and copy_test (prefix ar) ----

// arNew returns a C-contiguous array whose element bytes follow arPattern
// and releases it when the test ends.
func arNew(t testing.TB, dt core.DataType, shape ...int64) *core.Array {
	t.Helper()
	a := arEmpty(t, dt, shape...)
	k := dt.ItemSize()
	if b, err := a.Bytes(); err == nil {
		for i := range b {
			b[i] = arPattern(int64(i)/k, int64(i)%k)
		}
	}
	return a
}

// arEmpty is Empty, also for dtypes Empty refuses but Copy handles (e.g.
// uint24: a uint8 buffer relabelled), released when the test ends.
func arEmpty(t testing.TB, dt core.DataType, shape ...int64) *core.Array {
	t.Helper()
	if core.ValidateDataType(dt, 0) == nil {
		a, err := core.Empty(dt, shape...)
		require.NoError(t, err)
		t.Cleanup(a.Release)
		return a
	}
	n := dt.ItemSize()
	for _, d := range shape {
		n *= d
	}
	buf, err := core.Zeros(core.Uint8, n)
	require.NoError(t, err)
	defer buf.Release()
	h := buf.Header()
	h.DType = dt
	a := core.NewArray(h, shape, nil)
	t.Cleanup(a.Release)
	return a
}

func arPattern(idx, b int64) byte { return byte(idx*7 + b*13 + idx>>8 + idx>>16) }

// arElem returns the address of element idx of a (unsafe, tests only).
func arElem(a *core.Array, idx []int64) unsafe.Pointer {
	h := a.Header()
	st := a.Strides()
	off := h.Offset
	for i, v := range idx {
		off += v * st[i]
	}
	return unsafe.Add(h.Data, off*h.DType.ItemSize())
}

// arEachIndex calls f with every index of shape in C order.
func arEachIndex(shape []int64, f func(idx []int64)) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	idx := make([]int64, len(shape))
	for {
		f(idx)
		j := len(shape) - 1
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < shape[j] {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

// arSameElements checks that got and want hold the same bytes at every
// index (naive reference).
func arSameElements(t testing.TB, got, want *core.Array) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape())
	k := want.ItemSize()
	bad := 0
	arEachIndex(want.Shape(), func(idx []int64) {
		g := unsafe.Slice((*byte)(arElem(got, idx)), k)
		w := unsafe.Slice((*byte)(arElem(want, idx)), k)
		if string(g) != string(w) && bad < 5 {
			bad++
			t.Errorf("element %v: got %v, want %v", idx, g, w)
		}
	})
}

func arRefs(a *core.Array) int64 { return a.Header().Owner.Refs() }

// arIota returns a float64 array 0, 1, 2, ... of the given shape.
func arIota(t testing.TB, shape ...int64) *core.Array {
	t.Helper()
	a, err := core.Empty(core.Float64, shape...)
	require.NoError(t, err)
	t.Cleanup(a.Release)
	xs, err := a.Float64s()
	require.NoError(t, err)
	for i := range xs {
		xs[i] = float64(i)
	}
	return a
}

// arReadOnly returns a read-only view of a (NewArray with the read-only
// flag), released when the test ends.
func arReadOnly(t testing.TB, a *core.Array) *core.Array {
	h := a.Header()
	h.Flags |= core.HeaderReadOnly
	r := core.NewArray(h, a.Shape(), a.Strides())
	t.Cleanup(r.Release)
	return r
}

// ---- tests ----

var arAllTypes = []core.DataType{
	core.Bool, core.Int8, core.Int16, core.Int32, core.Int64,
	core.Uint8, core.Uint16, core.Uint32, core.Uint64,
	core.Float16, core.BFloat16, core.Float32, core.Float64,
	core.Complex64, core.Complex128, core.Float8E4M3FN,
}

func TestEmptyLayout(t *testing.T) {
	t.Parallel()
	shapes := [][]int64{{}, {0}, {1}, {7}, {2, 3}, {3, 0, 2}, {2, 3, 4, 5}, {1, 1, 1}}
	for _, dt := range arAllTypes {
		for _, shape := range shapes {
			a, err := core.Empty(dt, shape...)
			require.NoError(t, err, "%v %v", dt, shape)
			size := int64(1)
			for _, d := range shape {
				size *= d
			}
			assert.Equal(t, shape, a.Shape())
			assert.Equal(t, len(shape), a.Ndim())
			assert.Equal(t, size, a.Size())
			assert.Equal(t, dt, a.DType())
			assert.Equal(t, core.CPU, a.Device())
			assert.Equal(t, dt.ItemSize(), a.ItemSize())
			assert.Equal(t, size*dt.ItemSize(), a.NBytes())
			assert.False(t, a.ReadOnly())
			assert.True(t, a.IsCContiguous())
			h := a.Header()
			assert.Equal(t, int32(len(shape)), h.Ndim)
			assert.Zero(t, h.Offset)
			require.NotNil(t, h.Data, "zero-size arrays get a valid pointer too")
			assert.Zero(t, uintptr(h.Data)%core.Alignment, "alignment")
			assert.Equal(t, core.OwnFree, h.Owner.Kind())
			assert.Equal(t, int64(1), h.Owner.Refs())
			a.Release()
		}
	}
}

func TestEmptyStrides(t *testing.T) {
	t.Parallel()
	cases := []struct {
		shape, strides []int64
	}{
		{[]int64{}, []int64{}},
		{[]int64{4}, []int64{1}},
		{[]int64{2, 3, 4}, []int64{12, 4, 1}},
		{[]int64{2, 0, 4}, []int64{4, 4, 1}},
		{[]int64{5, 1, 3}, []int64{3, 3, 1}},
	}
	for _, c := range cases {
		a, err := core.Empty(core.Int32, c.shape...)
		require.NoError(t, err)
		assert.Equal(t, c.strides, a.Strides(), "shape %v", c.shape)
		a.Release()
	}
}

func TestZeros(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Complex128, 17, 33)
	require.NoError(t, err)
	defer a.Release()
	b, err := a.Bytes()
	require.NoError(t, err)
	require.Len(t, b, 17*33*16)
	for i, v := range b {
		if v != 0 {
			t.Fatalf("byte %d = %d", i, v)
		}
	}
}

func TestEmptyErrors(t *testing.T) {
	t.Parallel()
	big := make([]int64, core.MaxNdim+1)
	for i := range big {
		big[i] = 1
	}
	cases := []struct {
		name  string
		dt    core.DataType
		shape []int64
		want  error
	}{
		{"negative dim", core.Float32, []int64{2, -1}, core.ErrShape},
		{"too many dims", core.Float32, big, core.ErrNdim},
		{"element overflow", core.Float32, []int64{1 << 40, 1 << 40}, core.ErrOverflow},
		{"byte overflow", core.Float64, []int64{1 << 61}, core.ErrOverflow},
		{"no memory", core.Uint8, []int64{1 << 62}, core.ErrNoMemory},
		{"lanes", core.DataType{Code: core.KDLFloat, Bits: 32, Lanes: 4}, []int64{2}, core.ErrLanes},
		{"opaque", core.DataType{Code: core.KDLOpaqueHandle, Bits: 64, Lanes: 1}, []int64{2}, core.ErrDType},
		{"unknown code", core.DataType{Code: 99, Bits: 8, Lanes: 1}, []int64{2}, core.ErrDType},
		{"odd bits", core.DataType{Code: core.KDLFloat, Bits: 12, Lanes: 1}, []int64{2}, core.ErrDType},
		{"zero bits", core.DataType{Code: core.KDLInt, Bits: 0, Lanes: 1}, []int64{2}, core.ErrDType},
		{"uint24", core.DataType{Code: core.KDLUInt, Bits: 24, Lanes: 1}, []int64{2}, core.ErrDType},
		{"float4 as 8 bits", core.DataType{Code: core.KDLFloat4E2M1FN, Bits: 8, Lanes: 1}, []int64{2}, core.ErrSubByte},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, err := core.Empty(c.dt, c.shape...)
			require.ErrorIs(t, err, c.want)
			assert.Nil(t, a)
			z, err := core.Zeros(c.dt, c.shape...)
			require.ErrorIs(t, err, c.want)
			assert.Nil(t, z)
		})
	}
}

func TestEmptySubByte(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Float4E2M1FN, 3, 5)
	require.NoError(t, err)
	defer a.Release()
	assert.Equal(t, int64(15), a.Size())
	assert.Equal(t, int64(8), a.NBytes(), "15 4-bit elements pack into 8 bytes")
	assert.Zero(t, a.ItemSize())
	b, err := a.Bytes()
	require.NoError(t, err)
	assert.Len(t, b, 8)
}

func TestReleaseIdempotentAndConcurrent(t *testing.T) {
	t.Parallel()
	a := arIota(t, 4)
	o := a.Header().Owner
	o.Retain() // watch the count
	defer o.Release()
	assert.Equal(t, int64(2), o.Refs())
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.Release()
		}()
	}
	wg.Wait()
	a.Release()
	assert.Equal(t, int64(1), o.Refs())
	assert.True(t, a.Released())
	assert.Nil(t, a.Header().Owner)
	assert.Nil(t, a.DataPtr())

	_, err := a.Copy()
	assert.ErrorIs(t, err, core.ErrReleased)
	_, err = a.Index(0)
	assert.ErrorIs(t, err, core.ErrReleased)
	_, err = a.Reshape(2, 2)
	assert.ErrorIs(t, err, core.ErrReleased)
	_, err = a.Transpose()
	assert.ErrorIs(t, err, core.ErrReleased)
	assert.Nil(t, a.T())
	_, err = a.Float64s()
	assert.ErrorIs(t, err, core.ErrReleased)
	_, err = core.At[float64](a, 0)
	assert.ErrorIs(t, err, core.ErrReleased)
	assert.ErrorIs(t, core.Set(a, 1.0, 0), core.ErrReleased)
	_, err = core.All[float64](a)
	assert.ErrorIs(t, err, core.ErrReleased)
	assert.Equal(t, core.ClassValue, core.ClassOf(err))
}

func TestNewArrayRetainsOwner(t *testing.T) {
	t.Parallel()
	a := arIota(t, 2, 3)
	h := a.Header()
	b := core.NewArray(h, []int64{3, 2}, nil)
	assert.Equal(t, int64(2), arRefs(a))
	assert.Equal(t, []int64{2, 1}, b.Strides(), "nil strides mean C-contiguous")
	assert.Equal(t, int32(2), b.Header().Ndim)
	c := core.NewArray(h, []int64{3, 2}, []int64{1, 3})
	assert.True(t, c.IsFContiguous())
	assert.Equal(t, int64(3), arRefs(a))
	b.Release()
	c.Release()
	assert.Equal(t, int64(1), arRefs(a))
	assert.Panics(t, func() { core.NewArray(h, []int64{3, 2}, []int64{1}) })

	r := core.NewArray(core.Header{DType: core.Float64}, []int64{2}, nil)
	assert.True(t, r.Released(), "nil owner gives a released array")
}

func TestNewArrayShapeIsCopied(t *testing.T) {
	t.Parallel()
	a := arIota(t, 6)
	shape, strides := []int64{2, 3}, []int64{3, 1}
	b := core.NewArray(a.Header(), shape, strides)
	defer b.Release()
	shape[0], strides[0] = 99, 99
	assert.Equal(t, []int64{2, 3}, b.Shape())
	b.Shape()[0] = 42
	b.Strides()[0] = 42
	assert.Equal(t, []int64{2, 3}, b.Shape())
	assert.Equal(t, []int64{3, 1}, b.Strides())
}

func TestContiguity(t *testing.T) {
	t.Parallel()
	cases := []struct {
		shape, strides []int64
		c, f           bool
	}{
		{[]int64{}, []int64{}, true, true},
		{[]int64{5}, []int64{1}, true, true},
		{[]int64{5}, []int64{2}, false, false},
		{[]int64{5}, []int64{-1}, false, false},
		{[]int64{1}, []int64{77}, true, true},
		{[]int64{2, 3}, []int64{3, 1}, true, false},
		{[]int64{2, 3}, []int64{1, 2}, false, true},
		{[]int64{2, 1, 3}, []int64{3, 100, 1}, true, false},
		{[]int64{1, 3}, []int64{0, 1}, true, true},
		{[]int64{3, 1}, []int64{1, -5}, true, true},
		{[]int64{2, 0, 3}, []int64{7, 9, 11}, true, true},
		{[]int64{2, 3}, []int64{0, 1}, false, false},
		{[]int64{2, 2}, []int64{2, 1}, true, false},
		{[]int64{2, 2}, []int64{4, 1}, false, false},
	}
	a := arIota(t, 1000)
	for _, c := range cases {
		v := core.NewArray(a.Header(), c.shape, c.strides)
		assert.Equal(t, c.c, v.IsCContiguous(), "C %v %v", c.shape, c.strides)
		assert.Equal(t, c.f, v.IsFContiguous(), "F %v %v", c.shape, c.strides)
		v.Release()
	}
}

func TestTypedSlices(t *testing.T) {
	t.Parallel()
	a := arIota(t, 2, 3)
	xs, err := a.Float64s()
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 1, 2, 3, 4, 5}, xs)
	xs[4] = 40
	v, err := core.At[float64](a, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, 40.0, v, "the slice aliases the array")

	_, err = a.Float32s()
	assert.ErrorIs(t, err, core.ErrDType)
	_, err = a.Int64s()
	assert.ErrorIs(t, err, core.ErrDType)

	tr := a.T()
	defer tr.Release()
	_, err = tr.Float64s()
	assert.ErrorIs(t, err, core.ErrStrides, "transposed arrays are not C-contiguous")

	row, err := a.Index(1)
	require.NoError(t, err)
	defer row.Release()
	rs, err := row.Float64s()
	require.NoError(t, err)
	assert.Equal(t, []float64{3, 40, 5}, rs, "a contiguous view with an offset")

	e, err := core.Empty(core.Int16, 0, 3)
	require.NoError(t, err)
	defer e.Release()
	es, err := e.Int16s()
	require.NoError(t, err)
	assert.Empty(t, es)
}

func TestTypedAccessorsEveryType(t *testing.T) {
	t.Parallel()
	type acc struct {
		dt  core.DataType
		get func(a *core.Array) (int, error)
	}
	l := func(n int, err error) (int, error) { return n, err }
	accs := []acc{
		{core.Bool, func(a *core.Array) (int, error) { s, e := a.Bools(); return l(len(s), e) }},
		{core.Int8, func(a *core.Array) (int, error) { s, e := a.Int8s(); return l(len(s), e) }},
		{core.Int16, func(a *core.Array) (int, error) { s, e := a.Int16s(); return l(len(s), e) }},
		{core.Int32, func(a *core.Array) (int, error) { s, e := a.Int32s(); return l(len(s), e) }},
		{core.Int64, func(a *core.Array) (int, error) { s, e := a.Int64s(); return l(len(s), e) }},
		{core.Uint8, func(a *core.Array) (int, error) { s, e := a.Uint8s(); return l(len(s), e) }},
		{core.Uint16, func(a *core.Array) (int, error) { s, e := a.Uint16s(); return l(len(s), e) }},
		{core.Uint32, func(a *core.Array) (int, error) { s, e := a.Uint32s(); return l(len(s), e) }},
		{core.Uint64, func(a *core.Array) (int, error) { s, e := a.Uint64s(); return l(len(s), e) }},
		{core.Float32, func(a *core.Array) (int, error) { s, e := a.Float32s(); return l(len(s), e) }},
		{core.Float64, func(a *core.Array) (int, error) { s, e := a.Float64s(); return l(len(s), e) }},
		{core.Complex64, func(a *core.Array) (int, error) { s, e := a.Complex64s(); return l(len(s), e) }},
		{core.Complex128, func(a *core.Array) (int, error) { s, e := a.Complex128s(); return l(len(s), e) }},
	}
	for i, ac := range accs {
		for j, other := range accs {
			a, err := core.Zeros(other.dt, 3)
			require.NoError(t, err)
			n, err := ac.get(a)
			if i == j {
				require.NoError(t, err, "%v", ac.dt)
				assert.Equal(t, 3, n)
			} else {
				assert.ErrorIs(t, err, core.ErrDType, "%v accessor on %v", ac.dt, other.dt)
			}
			a.Release()
		}
	}
}

func TestAtSet(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Int32, 2, 3)
	require.NoError(t, err)
	defer a.Release()
	require.NoError(t, core.Set[int32](a, 7, 1, 2))
	require.NoError(t, core.Set[int32](a, -3, -2, -3))
	v, err := core.At[int32](a, -1, -1)
	require.NoError(t, err)
	assert.Equal(t, int32(7), v)
	v, err = core.At[int32](a, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, int32(-3), v)

	cases := []struct {
		name string
		err  error
		want error
	}{
		{"type", core.Set[int64](a, 1, 0, 0), core.ErrDType},
		{"index high", core.Set[int32](a, 1, 2, 0), core.ErrIndex},
		{"index low", core.Set[int32](a, 1, 0, -4), core.ErrIndex},
		{"too few", core.Set[int32](a, 1, 0), core.ErrIndex},
		{"too many", core.Set[int32](a, 1, 0, 0, 0), core.ErrIndex},
		{"read-only", core.Set[int32](arReadOnly(t, a), 1, 0, 0), core.ErrReadOnly},
	}
	for _, c := range cases {
		assert.ErrorIs(t, c.err, c.want, c.name)
	}
	_, err = core.At[float32](a, 0, 0)
	assert.ErrorIs(t, err, core.ErrDType)
	r := arReadOnly(t, a)
	got, err := core.At[int32](r, 1, 2)
	require.NoError(t, err, "reads of read-only arrays work")
	assert.Equal(t, int32(7), got)
	assert.True(t, r.ReadOnly())

	z, err := core.Zeros(core.Complex64)
	require.NoError(t, err)
	defer z.Release()
	require.NoError(t, core.Set(z, complex64(1+2i)))
	c, err := core.At[complex64](z)
	require.NoError(t, err)
	assert.Equal(t, complex64(1+2i), c)
}

func TestIterationStrided(t *testing.T) {
	t.Parallel()
	a := arIota(t, 3, 4)
	// a[::-1, ::2].T : shape (2, 3), negative and positive strides.
	v, err := a.SliceOps(
		core.IndexOp{Kind: core.IdxSlice, Step: -1},
		core.IndexOp{Kind: core.IdxSlice, Step: 2},
	)
	require.NoError(t, err)
	defer v.Release()
	tv := v.T()
	defer tv.Release()
	var got []float64
	var idxs [][]int64
	all, err := core.All[float64](tv)
	require.NoError(t, err)
	for idx, x := range all {
		idxs = append(idxs, append([]int64(nil), idx...))
		got = append(got, x)
		idx[0] = 99 // must not disturb the iteration
	}
	assert.Equal(t, []float64{8, 4, 0, 10, 6, 2}, got)
	assert.Equal(t, [][]int64{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}, idxs)

	// Zero strides: a broadcast view.
	b := core.NewArray(a.Header(), []int64{2, 3}, []int64{0, 1})
	defer b.Release()
	vals, err := core.Values[float64](b)
	require.NoError(t, err)
	got = got[:0]
	for x := range vals {
		got = append(got, x)
	}
	assert.Equal(t, []float64{0, 1, 2, 0, 1, 2}, got)

	// Early break, and 0-d / empty arrays.
	n := 0
	for range vals {
		n++
		if n == 2 {
			break
		}
	}
	assert.Equal(t, 2, n)
	s, err := a.Index(0)
	require.NoError(t, err)
	defer s.Release()
	s0, err := s.Index(1)
	require.NoError(t, err)
	defer s0.Release()
	vals, err = core.Values[float64](s0)
	require.NoError(t, err)
	got = got[:0]
	for x := range vals {
		got = append(got, x)
	}
	assert.Equal(t, []float64{1}, got)
	e, err := core.Empty(core.Float64, 3, 0)
	require.NoError(t, err)
	defer e.Release()
	vals, err = core.Values[float64](e)
	require.NoError(t, err)
	for range vals {
		t.Fatal("empty arrays yield nothing")
	}
	_, err = core.Values[int8](a)
	assert.ErrorIs(t, err, core.ErrDType)
}

func TestIterationSurvivesRelease(t *testing.T) {
	t.Parallel()
	a, err := core.Empty(core.Int64, 100)
	require.NoError(t, err)
	xs, err := a.Int64s()
	require.NoError(t, err)
	for i := range xs {
		xs[i] = int64(i)
	}
	vals, err := core.Values[int64](a)
	require.NoError(t, err)
	var sum int64
	i := 0
	for x := range vals {
		if i == 0 {
			a.Release() // the iterator holds its own reference
		}
		i++
		sum += x
	}
	assert.Equal(t, int64(4950), sum)
}

func TestFill(t *testing.T) {
	t.Parallel()
	for _, dt := range arAllTypes {
		k := dt.ItemSize()
		a := arNew(t, dt, 5, 6)
		elem := make([]byte, k)
		for i := range elem {
			elem[i] = byte(0xA0 + i)
		}
		// Fill a strided view a[1::2, ::-3]; the rest must stay untouched.
		v, err := a.SliceOps(
			core.IndexOp{Kind: core.IdxSlice, Start: 1, HasStart: true, Step: 2},
			core.IndexOp{Kind: core.IdxSlice, Step: -3},
		)
		require.NoError(t, err)
		h := v.Header()
		require.NoError(t, core.Fill(&h, v.Shape(), v.Strides(), elem), "%v", dt)
		arEachIndex(a.Shape(), func(idx []int64) {
			got := unsafe.Slice((*byte)(arElem(a, idx)), k)
			inView := idx[0]%2 == 1 && (5-idx[1])%3 == 0
			for b := range got {
				want := arPattern(idx[0]*6+idx[1], int64(b))
				if inView {
					want = elem[b]
				}
				if got[b] != want {
					t.Fatalf("%v %v byte %d: got %#x want %#x (in view %v)", dt, idx, b, got[b], want, inView)
				}
			}
		})
		v.Release()
	}
}

func TestFillLargeAndSerial(t *testing.T) {
	t.Parallel()
	for _, serial := range []bool{false, true} {
		a, err := core.Empty(core.Float32, 1<<21, 2) // 16 MiB: parallel unless serial
		require.NoError(t, err)
		tr := a.T()
		h := tr.Header()
		if serial {
			core.SetSerial(true)
		}
		one := []byte{0, 0, 0x80, 0x3f} // 1.0f
		err = core.Fill(&h, tr.Shape(), tr.Strides(), one)
		core.SetSerial(false)
		require.NoError(t, err)
		hh := a.Header()
		s, err := core.Sum(&hh, a.Shape(), a.Strides())
		require.NoError(t, err)
		assert.Equal(t, float64(1<<22), s.F)
		tr.Release()
		a.Release()
	}
}

func TestFillErrors(t *testing.T) {
	t.Parallel()
	a := arNew(t, core.Float32, 4)
	h := a.Header()
	assert.ErrorIs(t, core.Fill(&h, a.Shape(), a.Strides(), []byte{1, 2}), core.ErrDType)
	r := arReadOnly(t, a)
	rh := r.Header()
	assert.ErrorIs(t, core.Fill(&rh, r.Shape(), r.Strides(), []byte{1, 2, 3, 4}), core.ErrReadOnly)
	gpu := h
	gpu.Device = core.Device{Type: core.KDLCUDA, ID: 0}
	assert.ErrorIs(t, core.Fill(&gpu, a.Shape(), a.Strides(), []byte{1, 2, 3, 4}), core.ErrDevice)
	sb, err := core.Empty(core.Float4E2M1FN, 4)
	require.NoError(t, err)
	defer sb.Release()
	sh := sb.Header()
	assert.ErrorIs(t, core.Fill(&sh, sb.Shape(), sb.Strides(), []byte{1}), core.ErrSubByteView)
	e, err := core.Empty(core.Float32, 0)
	require.NoError(t, err)
	defer e.Release()
	eh := e.Header()
	assert.NoError(t, core.Fill(&eh, e.Shape(), e.Strides(), []byte{1, 2, 3, 4}))
}

func TestSum(t *testing.T) {
	t.Parallel()
	mk := func(dt core.DataType, shape []int64, set func(b []byte, i int)) *core.Array {
		a, err := core.Empty(dt, shape...)
		require.NoError(t, err)
		t.Cleanup(a.Release)
		b, err := a.Bytes()
		require.NoError(t, err)
		k := int(dt.ItemSize())
		for i := 0; i*k < len(b); i++ {
			set(b[i*k:(i+1)*k], i)
		}
		return a
	}
	put := func(b []byte, v uint64) {
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
	cases := []struct {
		name string
		a    *core.Array
		want core.SumResult
	}{
		{"int8 wraps", mk(core.Int8, []int64{4}, func(b []byte, i int) { put(b, 100) }), core.SumResult{Kind: core.SumInt, I: 400}},
		{"int16 negative", mk(core.Int16, []int64{3}, func(b []byte, i int) { put(b, uint64(0xffff)) }), core.SumResult{Kind: core.SumInt, I: -3}},
		{"int32", mk(core.Int32, []int64{2, 5}, func(b []byte, i int) { put(b, uint64(i)) }), core.SumResult{Kind: core.SumInt, I: 45}},
		{"int64", mk(core.Int64, []int64{10}, func(b []byte, i int) { put(b, uint64(i*1000)) }), core.SumResult{Kind: core.SumInt, I: 45000}},
		{"uint8", mk(core.Uint8, []int64{4}, func(b []byte, i int) { put(b, 255) }), core.SumResult{Kind: core.SumUint, U: 1020}},
		{"uint16", mk(core.Uint16, []int64{4}, func(b []byte, i int) { put(b, 65535) }), core.SumResult{Kind: core.SumUint, U: 4 * 65535}},
		{"uint32", mk(core.Uint32, []int64{3}, func(b []byte, i int) { put(b, 1<<31) }), core.SumResult{Kind: core.SumUint, U: 3 << 31}},
		{"uint64", mk(core.Uint64, []int64{3}, func(b []byte, i int) { put(b, 7) }), core.SumResult{Kind: core.SumUint, U: 21}},
		{"bool", mk(core.Bool, []int64{5}, func(b []byte, i int) { put(b, uint64(i%2)) }), core.SumResult{Kind: core.SumInt, I: 2}},
		{"float16", mk(core.Float16, []int64{3}, func(b []byte, i int) { put(b, 0x3c00) }), core.SumResult{Kind: core.SumFloat, F: 3}},
		{"float16 subnormal", mk(core.Float16, []int64{2}, func(b []byte, i int) { put(b, 0x0001) }), core.SumResult{Kind: core.SumFloat, F: 2 * 5.960464477539063e-08}},
		{"float16 negative", mk(core.Float16, []int64{2}, func(b []byte, i int) { put(b, 0xc000) }), core.SumResult{Kind: core.SumFloat, F: -4}},
		{"bfloat16", mk(core.BFloat16, []int64{4}, func(b []byte, i int) { put(b, 0x3fc0) }), core.SumResult{Kind: core.SumFloat, F: 6}},
		{"float32", mk(core.Float32, []int64{2, 3}, func(b []byte, i int) { put(b, 0x3f000000) }), core.SumResult{Kind: core.SumFloat, F: 3}},
		{"float64", arIota(t, 10, 10), core.SumResult{Kind: core.SumFloat, F: 4950}},
		{"complex64", mk(core.Complex64, []int64{2}, func(b []byte, i int) { put(b[:4], 0x3f800000); put(b[4:], 0x40000000) }), core.SumResult{Kind: core.SumComplex, C: 2 + 4i}},
		{"complex128", mk(core.Complex128, []int64{3}, func(b []byte, i int) { put(b[:8], 0x3ff0000000000000); put(b[8:], 0xbff0000000000000) }), core.SumResult{Kind: core.SumComplex, C: 3 - 3i}},
		{"empty", mk(core.Float64, []int64{0, 3}, nil), core.SumResult{Kind: core.SumFloat}},
		{"0-d", mk(core.Int64, nil, func(b []byte, i int) { put(b, 42) }), core.SumResult{Kind: core.SumInt, I: 42}},
	}
	for _, c := range cases {
		h := c.a.Header()
		got, err := core.Sum(&h, c.a.Shape(), c.a.Strides())
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
	// Strided: sum of a[::-2, 1:] of iota(4, 3).
	a := arIota(t, 4, 3)
	v, err := a.SliceOps(core.IndexOp{Kind: core.IdxSlice, Step: -2}, core.IndexOp{Kind: core.IdxSlice, Start: 1, HasStart: true, Step: 1})
	require.NoError(t, err)
	defer v.Release()
	h := v.Header()
	got, err := core.Sum(&h, v.Shape(), v.Strides())
	require.NoError(t, err)
	assert.Equal(t, 10.0+11+4+5, got.F)

	for _, dt := range []core.DataType{core.Float8E4M3FN, core.Float8E5M2, core.Float4E2M1FN, {Code: core.KDLInt, Bits: 24, Lanes: 1}} {
		a := arEmpty(t, dt, 2)
		h := a.Header()
		_, err = core.Sum(&h, a.Shape(), a.Strides())
		assert.ErrorIs(t, err, core.ErrUnsupported, "%v", dt)
	}
}

func TestFloat16Conversion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		bits uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xbc00, -1}, {0x7bff, 65504}, {0x0400, 6.103515625e-05},
		{0x0001, 5.9604645e-08}, {0x3555, 0.33325195}, {0xc400, -4},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, core.Float16ToFloat32(c.bits), "%#x", c.bits)
	}
	assert.True(t, isInf32(core.Float16ToFloat32(0x7c00)))
	assert.True(t, core.Float16ToFloat32(0x7e00) != core.Float16ToFloat32(0x7e00), "NaN")
	assert.Equal(t, float32(1), core.BFloat16ToFloat32(0x3f80))
	assert.Equal(t, float32(-2), core.BFloat16ToFloat32(0xc000))
}

func isInf32(f float32) bool { return f > 3.4e38 }

// The garbage-collection safety net releases an unreachable, never released
// array, but not one whose memory a slice aliases.
func TestCleanupSafetyNet(t *testing.T) {
	base := arIota(t, 8)
	o := base.Header().Owner
	func() {
		v := core.NewArray(base.Header(), []int64{8}, nil)
		_ = v
	}()
	require.Eventually(t, func() bool {
		runtime.GC()
		return o.Refs() == 1
	}, 5*time.Second, 10*time.Millisecond, "cleanup releases the lost view")

	var xs []float64
	func() {
		v := core.NewArray(base.Header(), []int64{8}, nil)
		var err error
		xs, err = v.Float64s() // pins: only an explicit Release frees
		require.NoError(t, err)
	}()
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	assert.Equal(t, int64(2), o.Refs(), "a pinned array is never released by the GC")
	assert.Equal(t, 7.0, xs[7])
	o.Release() // the leaked view's reference
}

func TestErrorClasses(t *testing.T) {
	t.Parallel()
	a := arIota(t, 3)
	_, err := a.Index(5)
	assert.Equal(t, core.ClassIndex, core.ClassOf(err))
	assert.True(t, errors.Is(err, core.ErrIndex))
	assert.Contains(t, err.Error(), "Index()")
	_, err = a.Reshape(4)
	assert.Equal(t, core.ClassValue, core.ClassOf(err))
}

func TestIterationAfterReleaseYieldsNothing(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Float64, 3)
	require.NoError(t, err)
	vals, err := core.Values[float64](a)
	require.NoError(t, err)
	a.Release()
	for range vals {
		t.Fatal("a loop started after Release yields nothing")
	}
}

// Views, copies and Release may race: every view either fails with
// ErrReleased or holds a valid reference.
func TestConcurrentViewsAndRelease(t *testing.T) {
	t.Parallel()
	for round := 0; round < 50; round++ {
		a, err := core.Zeros(core.Int32, 8, 8)
		require.NoError(t, err)
		o := a.Header().Owner
		o.Retain()
		var wg sync.WaitGroup
		views := make([]*core.Array, 4)
		for g := range views {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var v *core.Array
				var err error
				switch g {
				case 0:
					v, err = a.Index(1)
				case 1:
					v, err = a.Transpose()
				case 2:
					v, err = a.Reshape(64)
				default:
					v, err = a.Copy()
				}
				if err != nil {
					assert.ErrorIs(t, err, core.ErrReleased)
					return
				}
				views[g] = v
			}()
		}
		a.Release()
		wg.Wait()
		for g, v := range views {
			if v != nil {
				if g != 3 {
					_, err := core.At[int32](v, make([]int64, v.Ndim())...)
					assert.NoError(t, err)
				}
				v.Release()
			}
		}
		assert.Equal(t, int64(1), o.Refs())
		o.Release()
	}
}
