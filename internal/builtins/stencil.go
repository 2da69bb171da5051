package builtins

import (
	"fmt"

	"github.com/godlpack/godlpack/core"
)

// box3 is the 3×3 box mean of the interior of a float64 image of any
// layout, written the way docs/go.md shows stencils: core.ReadRows hands
// out each row as a slice (a row of another stride than 1 gathered), and
// the last three rows are kept in a ring. make bench (row 13) times it on
// a contiguous image and on strided views of one.
func box3(img *core.Array) (*core.Array, error) {
	shape := img.Shape()
	if len(shape) != 2 || shape[0] < 3 || shape[1] < 3 {
		return nil, core.WithClass(core.ClassValue, fmt.Sprintf("_bench_box3(): img must be 2-d and at least 3×3, got shape %v; "+
			"pass a larger image", shape), core.ErrShape)
	}
	h, w := shape[0], shape[1]
	out, err := core.Empty(core.Float64, h-2, w-2)
	if err != nil {
		return nil, err
	}
	dst, _ := out.Float64s()
	rows, err := core.ReadRows[float64](img)
	if err != nil {
		out.Release()
		return nil, err
	}
	ring := [3][]float64{make([]float64, w), make([]float64, w), make([]float64, w)}
	for idx, r := range rows {
		i := idx[0]
		r.CopyTo(ring[i%3])
		if i < 2 {
			continue
		}
		a, b, c := ring[(i-2)%3], ring[(i-1)%3], ring[i%3]
		o := dst[(i-2)*(w-2) : (i-1)*(w-2)]
		for j := range o {
			o[j] = (a[j] + a[j+1] + a[j+2] + b[j] + b[j+1] + b[j+2] + c[j] + c[j+1] + c[j+2]) / 9
		}
	}
	return out, nil
}
