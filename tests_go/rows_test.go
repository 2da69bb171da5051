package tests_go

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// rowsOf collects ReadRows' rows (copied) and the leading indices of each.
func rowsOf(t *testing.T, a *core.Array) ([][]int64, [][]float64) {
	t.Helper()
	it, err := core.ReadRows[float64](a)
	require.NoError(t, err)
	var idx [][]int64
	var rows [][]float64
	for i, r := range it {
		idx = append(idx, append([]int64(nil), i...))
		row := make([]float64, r.Len())
		r.CopyTo(row)
		rows = append(rows, row)
	}
	return idx, rows
}

// core.Rows / ReadRows: every row of any strided view in C order, equal to
// what At reads; writes through Rows land in the array, whatever the stride.
func TestRowsOfStridedViews(t *testing.T) {
	t.Parallel()
	base, err := core.Empty(core.Float64, 3, 4)
	require.NoError(t, err)
	defer base.Release()
	s, _ := base.Float64s()
	for i := range s {
		s[i] = float64(i)
	}
	transposed := base.T()
	stepped, err := base.Slice(1, 3, math.MinInt64, -2) // columns 3, 1
	require.NoError(t, err)
	flat, err := base.Reshape(12)
	require.NoError(t, err)
	scalar, err := flat.Index(5)
	require.NoError(t, err)
	empty, err := base.Slice(0, 1, 1, 1)
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		a    *core.Array
		idx  [][]int64
		rows [][]float64
	}{
		{"contiguous", base, [][]int64{{0}, {1}, {2}}, [][]float64{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}},
		{"transposed", transposed, [][]int64{{0}, {1}, {2}, {3}}, [][]float64{{0, 4, 8}, {1, 5, 9}, {2, 6, 10}, {3, 7, 11}}},
		{"negative steps", stepped, [][]int64{{0}, {1}, {2}}, [][]float64{{3, 1}, {7, 5}, {11, 9}}},
		{"1-d", flat, [][]int64{nil}, [][]float64{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}},
		{"0-d", scalar, [][]int64{nil}, [][]float64{{5}}},
		{"empty", empty, nil, nil},
	} {
		idx, rows := rowsOf(t, c.a)
		assert.Equal(t, c.idx, idx, c.name)
		assert.Equal(t, c.rows, rows, c.name)
	}

	// writes through a gathered row are written back
	it, err := core.Rows[float64](transposed)
	require.NoError(t, err)
	for i, row := range it {
		for j := range row {
			row[j] += 100 * float64(i[0]+1)
		}
	}
	v, _ := core.At[float64](base, 2, 1)
	assert.Equal(t, 9.0+200, v)
	v, _ = core.At[float64](base, 0, 3)
	assert.Equal(t, 3.0+400, v)

	// stopping early stops
	n := 0
	it, _ = core.Rows[float64](base)
	for range it {
		n++
		break
	}
	assert.Equal(t, 1, n)
}

func TestRowsRefusals(t *testing.T) {
	t.Parallel()
	a, err := core.Zeros(core.Float64, 2, 2)
	require.NoError(t, err)
	defer a.Release()
	_, err = core.Rows[float32](a)
	assert.ErrorIs(t, err, core.ErrDType)
	h := a.Header()
	h.Flags |= core.HeaderReadOnly
	ro := core.Borrow(h, []int64{2, 2}, []int64{2, 1})
	defer ro.Release()
	_, err = core.Rows[float64](ro)
	assert.ErrorIs(t, err, core.ErrReadOnly)
	_, err = core.ReadRows[float64](ro)
	assert.NoError(t, err)
}
