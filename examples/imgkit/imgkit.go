// Package imgkit is the example of godlpack's extension kit: image kernels
// in plain Go over *core.Array, registered with gofunc and built into a
// Python module that numpy, torch and dpnp arrays reach without a copy:
//
//	python -m godlpack build-ext imgkit ./examples/imgkit -o build/
//	python -c 'import imgkit, numpy as np; print(imgkit.blur(np.ones((4, 4), np.float32), 1.0))'
package imgkit

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

func init() {
	gofunc.Func3("blur", Blur, gofunc.Params(
		gofunc.Array("img").DType(core.Float32).NDim(2).Contiguous(),
		gofunc.Arg("sigma").Default(1.0)))
	gofunc.Func2("histogram", Histogram, gofunc.Params(
		gofunc.Array("data").DType(core.Uint8).Contiguous(),
		gofunc.Arg("bins").Default(256)))
	gofunc.Proc2("scale", Scale, gofunc.Params(
		gofunc.Array("img").DType(core.Float32).Contiguous().Writable(),
		gofunc.Arg("factor")))
}

// Blur returns img (a 2-d float32 image) blurred by a Gaussian of standard
// deviation sigma, in two separable passes with edges clamped. Rows are
// shared among the CPU cores; Ctrl-C cancels it.
func Blur(ctx context.Context, img *core.Array, sigma float64) (*core.Array, error) {
	if sigma <= 0 || math.IsNaN(sigma) || sigma > 1000 {
		return nil, core.WithClass(core.ClassValue, fmt.Sprintf("sigma must be in (0, 1000], got %v; pass a positive sigma", sigma), core.ErrUnsupported)
	}
	src, err := core.ReadSlice[float32](img) // read-only inputs too
	if err != nil {
		return nil, err
	}
	sh := img.Shape()
	h, w := int(sh[0]), int(sh[1])
	k := kernel(sigma)
	tmp := make([]float32, h*w)
	out, err := core.Empty(core.Float32, sh...)
	if err != nil {
		return nil, err
	}
	dst, _ := out.Float32s()
	r := len(k) / 2
	clamp := func(i, n int) int { return min(max(i, 0), n-1) }
	// horizontal pass: src -> tmp; vertical pass: tmp -> dst
	err = rows(ctx, h, func(y int) {
		for x := 0; x < w; x++ {
			var s float32
			for j, c := range k {
				s += c * src.At(y*w+clamp(x+j-r, w))
			}
			tmp[y*w+x] = s
		}
	})
	if err == nil {
		err = rows(ctx, h, func(y int) {
			for x := 0; x < w; x++ {
				var s float32
				for j, c := range k {
					s += c * tmp[clamp(y+j-r, h)*w+x]
				}
				dst[y*w+x] = s
			}
		})
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// kernel is the normalised Gaussian of radius ceil(3 sigma).
func kernel(sigma float64) []float32 {
	r := int(math.Ceil(3 * sigma))
	k := make([]float32, 2*r+1)
	var sum float64
	for i := -r; i <= r; i++ {
		v := math.Exp(-float64(i*i) / (2 * sigma * sigma))
		k[i+r] = float32(v)
		sum += v
	}
	for i := range k {
		k[i] = float32(float64(k[i]) / sum)
	}
	return k
}

// rows runs f for every row in [0, n) on all cores, stopping early when ctx
// is cancelled.
func rows(ctx context.Context, n int, f func(y int)) error {
	workers := min(runtime.GOMAXPROCS(0), max(n, 1))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for y := w; y < n; y += workers {
				if y%16 == 0 && ctx.Err() != nil {
					return
				}
				f(y)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// Histogram counts the values of data (uint8, any shape) in bins equal
// bins over [0, 256); it returns an int64 array of bins counts.
func Histogram(data *core.Array, bins int) (*core.Array, error) {
	if bins < 1 || bins > 256 {
		return nil, core.WithClass(core.ClassValue, fmt.Sprintf("bins must be in [1, 256], got %d; pass bins=256 for one per value", bins), core.ErrUnsupported)
	}
	src, err := core.ReadSlice[uint8](data)
	if err != nil {
		return nil, err
	}
	var counts [256]int64
	for i := 0; i < src.Len(); i++ {
		counts[src.At(i)]++
	}
	out, err := core.Zeros(core.Int64, int64(bins))
	if err != nil {
		return nil, err
	}
	dst, _ := out.Int64s()
	for v, c := range counts {
		dst[v*bins/256] += c
	}
	return out, nil
}

// Scale multiplies img by factor in place: the caller's numpy array or
// torch tensor changes, no copy is made.
func Scale(img *core.Array, factor float64) error {
	s, err := img.Float32s()
	if err != nil {
		return err
	}
	f := float32(factor)
	for i := range s {
		s[i] *= f
	}
	return nil
}
