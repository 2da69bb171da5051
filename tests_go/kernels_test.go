package tests_go

import (
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/core/kernels"
)

// The AVX2 kernels of core/kernels against their pure-Go twins (the path a
// CPU without AVX2 or GODLPACK_NOSIMD=1 takes) and against references
// written here from first principles. Where the CPU lacks AVX2 both paths
// are the Go one and the reference checks still bite.

// paths runs f once per kernel path, labelled, and restores the setting.
func paths(t *testing.T, f func(path string)) {
	t.Helper()
	prev := kernels.SetSIMD(true)
	defer kernels.SetSIMD(prev)
	if kernels.SIMD() {
		f("avx2")
	}
	kernels.SetSIMD(false)
	f("go")
}

// kernelLens: every length to 300 (all tails of every step), then a few
// that reach several levels of the pairwise recursion.
func kernelLens() []int {
	var ns []int
	for n := 0; n <= 300; n++ {
		ns = append(ns, n)
	}
	return append(ns, 1000, 1023, 1024, 1025, 4097, 65537)
}

// randF64 draws values of mixed signs over 40 binades, so that the order of
// the additions shows in the low bits of a sum.
func randF64(r *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Ldexp(r.Float64()-0.5, r.IntN(40)-20)
	}
	return x
}

// pairRef is numpy's pairwise_sum (numpy/_core/src/umath/loops_utils.h.src)
// transcribed: the order that SumFloat64 must reproduce bit for bit.
func pairRef(x []float64) float64 {
	n := len(x)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], x[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += x[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += x[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairRef(x[:n2]) + pairRef(x[n2:])
}

func TestKernelSumIsNumpysPairwiseSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := randF64(r, 65537+3)
	paths(t, func(path string) {
		for _, n := range kernelLens() {
			for off := 0; off < 3; off++ { // misaligned starts
				x := buf[off : off+n]
				got, want := kernels.SumFloat64(x), pairRef(x)
				require.Equal(t, math.Float64bits(want), math.Float64bits(got), "%s n=%d off=%d: %v != %v", path, n, off, got, want)
			}
		}
	})
}

// The pairwise error bound: |sum - exact| <= c * eps * log2(n) * sum|x|,
// against the exact sum of math/big.
func TestKernelSumAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{10, 1000, 100_000, 1_000_003} {
		x := make([]float64, n)
		for i := range x {
			x[i] = 0.1 + r.Float64()*1e-3 // naive summation drifts here
		}
		exact, abs := new(big.Float).SetPrec(2000), 0.0
		for _, v := range x {
			exact.Add(exact, new(big.Float).SetFloat64(v))
			abs += math.Abs(v)
		}
		want, _ := exact.Float64()
		bound := 2 * 0x1p-53 * math.Max(1, math.Log2(float64(n))) * abs
		paths(t, func(path string) {
			got := kernels.SumFloat64(x)
			assert.LessOrEqual(t, math.Abs(got-want), bound, "%s n=%d", path, n)
		})
	}
}

func TestKernelSumSpecials(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name string
		x    []float64
		want float64
	}{
		{"empty", nil, 0},
		{"inf", append(make([]float64, 40), inf), inf},
		{"inf-inf", append(make([]float64, 40), inf, -inf), math.NaN()},
		{"nan", append(make([]float64, 200), math.NaN()), math.NaN()},
		{"overflow", []float64{1e308, 1e308, 1e308, 1e308, 1e308, 1e308, 1e308, 1e308, 1e308}, inf},
	}
	paths(t, func(path string) {
		for _, c := range cases {
			got := kernels.SumFloat64(c.x)
			if math.IsNaN(c.want) {
				assert.True(t, math.IsNaN(got), "%s %s", path, c.name)
			} else {
				assert.Equal(t, c.want, got, "%s %s", path, c.name)
			}
		}
	})
}

func extRef(x []float64, isMax bool) float64 {
	m := math.Inf(1)
	if isMax {
		m = math.Inf(-1)
	}
	for _, v := range x {
		if v != v {
			return v
		}
		if (isMax && v > m) || (!isMax && v < m) {
			m = v
		}
	}
	return m
}

func TestKernelMaxMinMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	buf := randF64(r, 65537+3)
	buf[17], buf[4000] = math.Inf(1), math.Inf(-1)
	paths(t, func(path string) {
		for _, n := range kernelLens() {
			for off := 0; off < 3; off++ {
				x := buf[off : off+n]
				assert.Equal(t, extRef(x, true), kernels.MaxFloat64(x), "%s max n=%d off=%d", path, n, off)
				assert.Equal(t, extRef(x, false), kernels.MinFloat64(x), "%s min n=%d off=%d", path, n, off)
			}
		}
	})
}

// A NaN anywhere, in a step, in the tail, first or last, wins: the first
// NaN of the row, payload and sign included, as numpy's. The kernels read a
// row as four streams, so a later NaN is also put where it is read before
// the first one: at the start of the next quarter of the row.
func TestKernelMaxMinNaNEveryPosition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	nan1 := math.Float64frombits(0x7ff8_0000_0000_0001)
	nan2 := math.Float64frombits(0xfff8_0000_0000_0002)
	for _, n := range []int{1, 7, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 128, 257, 320, 1000} {
		base := randF64(r, n)
		q := max(n/4, 1)
		for i := 0; i < n; i++ {
			for _, j := range []int{n - 1, (i/q + 1) * q, i + 1} {
				x := append([]float64(nil), base...)
				x[i] = nan1
				if j > i && j < n {
					x[j] = nan2 // a later NaN of other bits
				}
				paths(t, func(path string) {
					for _, isMax := range []bool{true, false} {
						got := kernels.MinFloat64(x)
						if isMax {
							got = kernels.MaxFloat64(x)
						}
						require.Equal(t, math.Float64bits(nan1), math.Float64bits(got),
							"%s max=%v n=%d nan at %d, later one at %d: not the first NaN", path, isMax, n, i, j)
					}
				})
			}
		}
	}
}

func TestKernelMaxMinSpecials(t *testing.T) {
	inf := math.Inf(1)
	rep := func(v float64, n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = v
		}
		return x
	}
	cases := []struct {
		name     string
		x        []float64
		max, min float64
	}{
		{"empty", nil, -inf, inf},
		{"all -inf", rep(-inf, 50), -inf, -inf},
		{"all +inf", rep(inf, 50), inf, inf},
		{"tiny", append(rep(-5e-324, 33), 5e-324), 5e-324, -5e-324},
		{"huge", append(rep(-math.MaxFloat64, 32), math.MaxFloat64), math.MaxFloat64, -math.MaxFloat64},
	}
	paths(t, func(path string) {
		for _, c := range cases {
			assert.Equal(t, c.max, kernels.MaxFloat64(c.x), "%s %s", path, c.name)
			assert.Equal(t, c.min, kernels.MinFloat64(c.x), "%s %s", path, c.name)
		}
	})
}

// f64Specials: zeros, subnormals, the float32 range's edges, infinities
// and NaNs (quiet and signalling, both signs, with payloads).
func f64Specials() []float64 {
	bits := []uint64{
		0, 1 << 63, 1, 0x000f_ffff_ffff_ffff, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000,
		0x7ff8_0000_0000_0000, 0xfff8_0000_0000_0000, 0x7ff0_0000_0000_0001, 0xfff4_0000_dead_beef,
		0x7fff_ffff_ffff_ffff,
	}
	var x []float64
	for _, b := range bits {
		x = append(x, math.Float64frombits(b))
	}
	for _, f := range []float32{math.MaxFloat32, math.SmallestNonzeroFloat32, 0x1p-126} {
		v := float64(f)
		x = append(x, v, -v, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1)))
	}
	// halfway above MaxFloat32: overflows to Inf; just below: rounds down
	h := float64(math.MaxFloat32) + 0x1p103
	return append(x, h, math.Nextafter(h, 0), -h)
}

func TestKernelFloat64ToFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var src []float64
	for len(src) < 40000 {
		// halfway between two float32 neighbours, and one float64 ulp
		// either side: ties to even, and the rounding direction
		f := math.Float32frombits(r.Uint32())
		if f != f || math.IsInf(float64(f), 0) {
			continue
		}
		mid := (float64(f) + float64(math.Nextafter32(f, float32(math.Inf(1))))) / 2
		src = append(src, mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1)), math.Float64frombits(r.Uint64()))
	}
	src = append(src, f64Specials()...)
	want := make([]float32, len(src))
	for i, v := range src {
		want[i] = float32(v)
	}
	paths(t, func(path string) {
		for _, n := range kernelLens()[:300] {
			for off := 0; off < 3; off++ {
				dst := make([]float32, n+2)
				dst[n] = 42 // beyond the row: untouched
				kernels.Float64ToFloat32(dst, src[off:off+n])
				for i := 0; i < n; i++ {
					require.Equal(t, math.Float32bits(want[off+i]), math.Float32bits(dst[i]), "%s n=%d off=%d i=%d src=%x", path, n, off, i, math.Float64bits(src[off+i]))
				}
				require.Equal(t, float32(42), dst[n], "%s n=%d: wrote past the row", path, n)
			}
		}
		dst := make([]float32, len(src))
		kernels.Float64ToFloat32(dst, src)
		for i := range src {
			require.Equal(t, math.Float32bits(want[i]), math.Float32bits(dst[i]), "%s i=%d src=%x", path, i, math.Float64bits(src[i]))
		}
	})
}

// bf16Ref rounds from first principles: the two bfloat16 neighbours of x
// (truncation and the next code), the nearer by exact float64 distance,
// the even code on a tie; NaN -> quiet NaN with x's sign.
func bf16Ref(x float32) uint16 {
	u := math.Float32bits(x)
	if x != x {
		return uint16(u>>16&0x8000 | 0x7fc0)
	}
	lo := uint16(u >> 16)
	hi := lo + 1
	if u&0xffff == 0 {
		return lo
	}
	val := func(c uint16) float64 {
		if c&0x7fff == 0x7f80 { // the code after the largest finite: 2^128
			return math.Copysign(0x1p128, float64(x))
		}
		return float64(math.Float32frombits(uint32(c) << 16))
	}
	dl, dh := math.Abs(float64(x)-val(lo)), math.Abs(val(hi)-float64(x))
	if dl < dh || (dl == dh && lo&1 == 0) {
		return lo
	}
	return hi
}

func TestKernelFloat32ToBFloat16(t *testing.T) {
	// Every bfloat16 code with the low halves that decide the rounding:
	// exact, just above, just below and exactly at the halfway point.
	var src []float32
	for c := uint32(0); c < 1<<16; c++ {
		for _, low := range []uint32{0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff} {
			src = append(src, math.Float32frombits(c<<16|low))
		}
	}
	want := make([]uint16, len(src))
	for i, v := range src {
		want[i] = bf16Ref(v)
	}
	// spot checks of the rule itself (ml_dtypes' results)
	assert.Equal(t, uint16(0x3f80), bf16Ref(math.Float32frombits(0x3f808000)), "tie to even, down")
	assert.Equal(t, uint16(0x3f82), bf16Ref(math.Float32frombits(0x3f818000)), "tie to even, up")
	assert.Equal(t, uint16(0x7f80), bf16Ref(math.Float32frombits(0x7f7f8000)), "overflow to inf")
	assert.Equal(t, uint16(0xffc0), bf16Ref(math.Float32frombits(0xff800001)), "NaN keeps its sign")
	paths(t, func(path string) {
		dst := make([]uint16, len(src))
		kernels.Float32ToBFloat16(dst, src)
		for i := range src {
			require.Equal(t, want[i], dst[i], "%s src=%#08x", path, math.Float32bits(src[i]))
		}
		for n := 0; n <= 300; n++ {
			for off := 0; off < 3; off++ {
				d := make([]uint16, n+1)
				d[n] = 0xabcd
				kernels.Float32ToBFloat16(d, src[1000+off:1000+off+n])
				require.Equal(t, want[1000+off:1000+off+n], d[:n], "%s n=%d off=%d", path, n, off)
				require.Equal(t, uint16(0xabcd), d[n], "%s n=%d: wrote past the row", path, n)
			}
		}
	})
}

func TestKernelInt64ToFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	src := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MinInt64 + 1,
		1<<53 - 1, 1 << 53, 1<<53 + 1, 1<<53 + 3, -(1<<53 + 1), -(1<<53 + 3),
		1<<62 + 1<<9, 1<<62 + 3<<9, 1<<62 + 1<<9 + 1, 1<<32 - 1, 1 << 32, -(1 << 32), 1<<31 - 1, -(1 << 31)}
	for len(src) < 20000 {
		v := int64(r.Uint64()) >> r.IntN(64) // every magnitude
		src = append(src, v, v|1<<10, v&^(1<<10-1)|1<<9)
	}
	want := make([]float64, len(src))
	for i, v := range src {
		want[i] = float64(v)
		// float64(v) is the nearest double, ties to even: check against big
		exact := new(big.Float).SetInt64(v)
		ref, _ := exact.Float64()
		require.Equal(t, ref, want[i], "%d", v)
	}
	paths(t, func(path string) {
		dst := make([]float64, len(src))
		kernels.Int64ToFloat64(dst, src)
		for i := range src {
			require.Equal(t, math.Float64bits(want[i]), math.Float64bits(dst[i]), "%s %d", path, src[i])
		}
		for n := 0; n <= 300; n++ {
			off := n % 3
			d := make([]float64, n+1)
			d[n] = 42
			kernels.Int64ToFloat64(d, src[off:off+n])
			require.Equal(t, want[off:off+n], d[:n], "%s n=%d", path, n)
			require.Equal(t, 42.0, d[n], "%s n=%d: wrote past the row", path, n)
		}
	})
}

func TestKernelsAllocateNothing(t *testing.T) {
	x := randF64(rand.New(rand.NewPCG(13, 14)), 10007)
	f32 := make([]float32, len(x))
	b16 := make([]uint16, len(x))
	i64 := make([]int64, len(x))
	paths(t, func(path string) {
		allocs := testing.AllocsPerRun(5, func() {
			_ = kernels.SumFloat64(x)
			_ = kernels.SumFloat64(x[:100])
			_ = kernels.SumFloat64(x[:5000])
			_ = kernels.MaxFloat64(x)
			_ = kernels.MinFloat64(x)
			kernels.Float64ToFloat32(f32, x)
			kernels.Float32ToBFloat16(b16, f32)
			kernels.Int64ToFloat64(x, i64)
		})
		assert.Zero(t, allocs, path)
	})
}

// SetSIMD cannot switch the AVX2 kernels on where the CPU lacks AVX2, and
// GODLPACK_NOSIMD=1 switches them off at start-up (checked in a child
// process of this test binary).
func TestKernelsSwitch(t *testing.T) {
	prev := kernels.SetSIMD(true)
	defer kernels.SetSIMD(prev)
	assert.Equal(t, kernels.HasAVX2(), kernels.SIMD())
	kernels.SetSIMD(false)
	assert.False(t, kernels.SIMD())

	if os.Getenv("GODLPACK_KERNELS_CHILD") != "" {
		return
	}
	for _, c := range []struct {
		env  string
		simd bool
	}{{"GODLPACK_NOSIMD=1", false}, {"GODLPACK_NOSIMD=0", kernels.HasAVX2()}, {"GODLPACK_NOSIMD=", kernels.HasAVX2()}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKernelsChildReport$", "-test.v")
		cmd.Env = append(os.Environ(), "GODLPACK_KERNELS_CHILD=1", c.env)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		if c.simd {
			assert.Contains(t, string(out), "simd=true", c.env)
		} else {
			assert.Contains(t, string(out), "simd=false", c.env)
		}
	}
}

func TestKernelsChildReport(t *testing.T) {
	if os.Getenv("GODLPACK_KERNELS_CHILD") == "" {
		t.Skip("run by TestKernelsSwitch in a child process")
	}
	t.Logf("simd=%v", kernels.SIMD())
}

// go test -run - -bench Kernels ./tests_go: each kernel on both paths.
func BenchmarkKernels(b *testing.B) {
	for _, n := range []int{1000, 1_000_000} {
		x := randF64(rand.New(rand.NewPCG(15, 16)), n)
		f32 := make([]float32, n)
		b16 := make([]uint16, n)
		i64 := make([]int64, n)
		out := make([]float64, n)
		for i := range i64 {
			i64[i] = int64(x[i] * 1e12)
		}
		kernels.Float64ToFloat32(f32, x)
		ops := []struct {
			name string
			f    func()
		}{
			{"sum", func() { _ = kernels.SumFloat64(x) }},
			{"max", func() { _ = kernels.MaxFloat64(x) }},
			{"f64-f32", func() { kernels.Float64ToFloat32(f32, x) }},
			{"f32-bf16", func() { kernels.Float32ToBFloat16(b16, f32) }},
			{"i64-f64", func() { kernels.Int64ToFloat64(out, i64) }},
		}
		for _, op := range ops {
			for _, simd := range []bool{true, false} {
				name := "go"
				if simd {
					if !kernels.HasAVX2() {
						continue
					}
					name = "avx2"
				}
				b.Run(op.name+"/"+name+"/"+strconv.Itoa(n), func(b *testing.B) {
					prev := kernels.SetSIMD(simd)
					defer kernels.SetSIMD(prev)
					b.SetBytes(int64(8 * n))
					for b.Loop() {
						op.f()
					}
				})
			}
		}
	}
}

// Whole reductions through core on both paths: contiguous rows (the
// kernels) and stride-3 rows (core's strided loops) of float64 and float32
// give numpy's pairwise sum bit for bit and the first NaN for max and min.
func TestKernelsThroughCoreReductions(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	nan64 := []float64{math.Float64frombits(0x7ff8_0000_0000_0001), math.Float64frombits(0xfff8_0000_0000_0002)}
	nan32 := []float64{float64(math.Float32frombits(0x7fc0_0001)), float64(math.Float32frombits(0xffc0_0002))}
	for _, dt := range []core.DataType{core.Float64, core.Float32} {
		nans := nan64
		if dt == core.Float32 {
			nans = nan32
		}
		for _, n := range []int{1, 5, 8, 17, 64, 129, 300, 1001} {
			for _, nanAt := range []int{-1, 0, n / 2, n - 1} {
				vals := randF64(r, 3*n)
				if dt == core.Float32 {
					for i, v := range vals {
						vals[i] = float64(float32(v))
					}
				}
				full := redIn(t, dt, []int64{int64(3 * n)}, vals)
				strided, err := full.Slice(0, 0, int64(3*n), 3)
				require.NoError(t, err)
				contig, err := full.Slice(0, 0, int64(n), 1)
				require.NoError(t, err)
				views := map[string]*core.Array{"contiguous": contig, "stride 3": strided}
				if nanAt >= 0 {
					// the same NaN positions in both views: elements nanAt
					// (first NaN) and n-1 (a later one of other bits)
					setF(full, dt, nanAt, nans[1])
					setF(full, dt, 3*nanAt, nans[1])
					setF(full, dt, n-1, nans[1])
					setF(full, dt, 3*(n-1), nans[1])
					setF(full, dt, nanAt, nans[0])
					setF(full, dt, 3*nanAt, nans[0])
				}
				for name, v := range views {
					x := redOut(t, v)
					paths(t, func(path string) {
						what := func(op string) string {
							return path + " " + dt.String() + " " + name + " " + op + " n=" + strconv.Itoa(n) + " nan at " + strconv.Itoa(nanAt)
						}
						for _, c := range []struct {
							op   core.ReduceOp
							want float64
						}{
							{core.ReduceSum, pairRef(x)},
							{core.ReduceMax, extRef(x, true)},
							{core.ReduceMin, extRef(x, false)},
						} {
							res, err := reduceGo(t, c.op, v, redOpts{}, false)
							require.NoError(t, err)
							got := redOut(t, res)[0]
							res.Release()
							want := c.want
							if dt == core.Float32 {
								want = float64(float32(want))
							}
							if c.op == core.ReduceSum && want != want {
								// which NaN an addition keeps is the hardware's
								require.True(t, math.IsNaN(got), what("sum()"))
								continue
							}
							require.Equal(t, math.Float64bits(want), math.Float64bits(got), "%s: %v != %v", what(c.op.String()), got, want)
						}
					})
				}
				contig.Release()
				strided.Release()
				full.Release()
			}
		}
	}
}

// setF stores v (as dt) at element i of the contiguous array a.
func setF(a *core.Array, dt core.DataType, i int, v float64) {
	b, _ := a.Bytes()
	if dt == core.Float32 {
		*(*float32)(unsafe.Pointer(&b[4*i])) = float32(v)
		return
	}
	*(*float64)(unsafe.Pointer(&b[8*i])) = v
}

// The strided copy (eight elements a step, then the tail) of every element
// size, every tail length, forwards and backwards.
func TestStridedCopyEveryTail(t *testing.T) {
	t.Parallel()
	for _, dt := range []core.DataType{core.Uint8, core.Uint16, core.Float32, core.Float64, core.Complex128} {
		k := int(dt.ItemSize())
		for _, n := range append(kernelLens()[:41], 1001) {
			for _, step := range []int64{3, -2} {
				m := 3 * n
				base, err := core.Zeros(dt, int64(m))
				require.NoError(t, err)
				b, err := base.Bytes()
				require.NoError(t, err)
				for i := range b {
					b[i] = byte(i*7 + i/251)
				}
				start, stop := int64(0), int64(m)
				if step < 0 {
					start, stop = int64(m)-1, -int64(m)-1 // the whole axis backwards
				}
				v, err := base.Slice(0, start, stop, step)
				require.NoError(t, err)
				c, err := v.Copy()
				require.NoError(t, err)
				got, err := c.Bytes()
				require.NoError(t, err)
				as := int(step)
				if as < 0 {
					as = -as
				}
				require.Equal(t, int64((m+as-1)/as), v.Size(), "%v n=%d step=%d", dt, n, step)
				require.Equal(t, int(v.Size())*k, len(got))
				for i := 0; i < int(v.Size()); i++ {
					j := i * int(step)
					if step < 0 {
						j = m - 1 + j
					}
					require.Equal(t, b[j*k:(j+1)*k], got[i*k:(i+1)*k], "%v n=%d step=%d element %d", dt, n, step, i)
				}
				c.Release()
				v.Release()
				base.Release()
			}
		}
	}
}
