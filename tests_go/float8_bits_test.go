package tests_go

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// float32 -> float8, every bit pattern (issue 27, item 2): core's kernel
// (ConvertInto, what astype runs) and its C twin (gd_elem_write, what a
// Python float written into an array runs) against ml_dtypes' rules spelled
// out below from the definitions, NaN sign and payload included.
//
// A float32's float8 code depends on its sign, exponent and mantissa bits
// down to the kind's rounding bit, and below that only on whether any bit
// is set. So the patterns are every value of the top 20 bits (sign,
// exponent, 11 mantissa bits) with a set of low 12-bit tails: all 4096
// tails for the kernel when GODLPACK_EXHAUSTIVE=1 (make test-slow: every
// one of the 2^32 patterns), else tails that cover each rounding case. The
// twin's input is a Python float, a double, whose 2^64 values no run
// covers: it gets every top with the rounding tails and, exhaustively, one
// tail in 32 besides, which keeps the run that CI makes to the kernel's
// cost.

// f8rule is one kind's encoding.
type f8rule struct {
	mbits, bias int
	max         float64 // the largest finite value
	// how the kind spells what it lacks: "ieee" has inf (infCode) and a
	// signed quiet NaN (nanCode), "fn" has no inf (both become the signed
	// NaN 0x7f), "fnuz" has neither a negative zero nor a signed NaN (0x80
	// is its one NaN)
	style   string
	infCode uint8
	nanCode uint8
}

var f8rules = map[core.DataType]f8rule{
	core.Float8E3M4:        {4, 3, 15.5, "ieee", 0x70, 0x78},
	core.Float8E4M3:        {3, 7, 240, "ieee", 0x78, 0x7c},
	core.Float8E5M2:        {2, 15, 57344, "ieee", 0x7c, 0x7e},
	core.Float8E4M3FN:      {3, 7, 448, "fn", 0x7f, 0x7f},
	core.Float8E4M3FNUZ:    {3, 8, 240, "fnuz", 0x80, 0x80},
	core.Float8E5M2FNUZ:    {2, 16, 57344, "fnuz", 0x80, 0x80},
	core.Float8E4M3B11FNUZ: {3, 11, 30, "fnuz", 0x80, 0x80},
}

// encode is the code of the float32 with bits b: round to nearest, ties to
// even, on the value (exact in float64: every float32 and every float8
// value and midpoint is).
func (r f8rule) encode(b uint32) uint8 {
	f := float64(math.Float32frombits(b))
	var sign uint8
	if b>>31 != 0 {
		sign = 0x80
	}
	unsigned := func(code uint8) uint8 { // fnuz: one zero and one NaN, both unsigned
		if r.style == "fnuz" {
			return code
		}
		return sign | code
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if r.style == "ieee" && math.IsInf(f, 0) {
			return sign | r.infCode
		}
		return unsigned(r.nanCode)
	}
	a := math.Abs(f)
	emin := 1 - r.bias // the smallest normal exponent
	if a == 0 {
		return unsigned(0)
	}
	ulp := math.Ldexp(1, max(math.Ilogb(a), emin)-r.mbits)
	v := math.RoundToEven(a/ulp) * ulp
	if v > r.max {
		if r.style == "ieee" {
			return sign | r.infCode
		}
		return unsigned(r.nanCode)
	}
	if v == 0 {
		return unsigned(0)
	}
	ev := math.Ilogb(v)
	if ev < emin { // subnormal
		return sign | uint8(v/math.Ldexp(1, emin-r.mbits))
	}
	m := uint8(v/math.Ldexp(1, ev-r.mbits)) - 1<<r.mbits
	return sign | uint8(ev+r.bias)<<r.mbits | m
}

// e8m0fnu is ml_dtypes' float8_e8m0fnu: a power of two, unsigned, no zero;
// 0xff (NaN) for NaN, inf, zero and every negative. A normal value keeps its
// float32 exponent, one up from half-way (mantissa >= 0x400000); a
// subnormal is 2^-127 up to it and 2^-126 above.
func e8m0fnu(b uint32) uint8 {
	e, m := b>>23&0xff, b&0x7fffff
	switch {
	case b>>31 != 0, e == 0xff, e == 0 && m == 0:
		return 0xff
	case e == 0:
		if m > 0x400000 {
			return 1
		}
		return 0
	case m >= 0x400000:
		return uint8(min(e+1, 0xff))
	}
	return uint8(e)
}

// f8Tails are the low 12 bits of the patterns a run gives the kernel,
// and twinTails those it gives the twin.
func f8Tails() (kernel, twin []uint32) {
	// zero and nonzero below the rounding bit of every kind (the lowest is
	// bit 19 of e3m4), NaN payloads in the low bits, both neighbours of the
	// half-way tail
	rounding := []uint32{0, 1, 2, 0x3ff, 0x400, 0x401, 0x7ff, 0x800, 0x801, 0xbff, 0xc00, 0xfff}
	if os.Getenv("GODLPACK_EXHAUSTIVE") != "1" {
		return rounding, rounding
	}
	kernel = make([]uint32, 4096)
	for i := range kernel {
		kernel[i] = uint32(i)
	}
	twin = append([]uint32(nil), rounding...)
	for tail := uint32(0x10); tail < 4096; tail += 32 { // clear of the rounding tails
		twin = append(twin, tail)
	}
	return kernel, twin
}

func TestFloat8FromEveryFloat32BitPattern(t *testing.T) {
	if raceDetector {
		t.Skip("a sweep of pure functions, its workers sharing only the list of mismatches: make test-go runs it")
	}
	tails, twinTails := f8Tails()
	exhaustive := len(tails) == 4096
	require.True(t, tails[0] == 0 && twinTails[0] == 0, "check reads the first tail as the one zero tail")
	t.Logf("%d float32 patterns per kind for ConvertInto, %d for gd_elem_write (GODLPACK_EXHAUSTIVE=1: all 2^32 for ConvertInto)",
		len(tails)<<20, len(twinTails)<<20)
	require.Len(t, f8rules, len(float8Types)-1, "a rule for every float8 kind (e8m0fnu has its own)")
	const tops = 1 << 20 // sign, exponent and the top 11 mantissa bits
	const perChunk = 1 << 12
	// fill writes the patterns of perChunk tops from first, each with every
	// tail, into src
	fill := func(src []float32, first uint32, tails []uint32) {
		bits := unsafe.Slice((*uint32)(unsafe.Pointer(&src[0])), len(src))
		for i := range perChunk {
			for k, tail := range tails {
				bits[i*len(tails)+k] = (first+uint32(i))<<12 | tail
			}
		}
	}
	for _, dt := range float8Types {
		t.Run(dt.String(), func(t *testing.T) {
			want := e8m0fnu
			if r, ok := f8rules[dt]; ok {
				want = r.encode
			}
			var mu sync.Mutex
			var bad []string
			note := func(kind string, b uint32, got, w uint8) {
				mu.Lock()
				defer mu.Unlock()
				if len(bad) < 20 {
					bad = append(bad, fmt.Sprintf("%s: %#08x -> %#02x, want %#02x", kind, b, got, w))
				}
			}
			// check compares the codes of fill's patterns with the rule, which
			// reads the bits below the top 20 only as "any set": one
			// computation per top and class (checked against the whole rule
			// on the local tails)
			check := func(who string, got []byte, first uint32, tails []uint32) {
				for i := range perChunk {
					top := (first + uint32(i)) << 12
					r0, r1 := want(top), want(top|1)
					row := got[i*len(tails) : (i+1)*len(tails)]
					// tails[0] is the one zero tail: the rest must all be r1
					// (bytes.Count scans as memchr does, which keeps the
					// exhaustive run's cost the kernel's)
					if exhaustive && row[0] == r0 && bytes.Count(row[1:], []byte{r1}) == len(row)-1 {
						continue
					}
					for k, tail := range tails {
						w := r1
						if tail == 0 {
							w = r0
						}
						if !exhaustive && want(top|tail) != w {
							note("the rule itself", top|tail, want(top|tail), w)
						}
						if got[i*len(tails)+k] != w {
							note(who, top|tail, got[i*len(tails)+k], w)
						}
					}
				}
			}
			var wg sync.WaitGroup
			next := make(chan uint32, 64)
			for range runtime.GOMAXPROCS(0) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := perChunk * len(tails)
					src, kernel := make([]float32, n), make([]byte, n)
					twinSrc, twin := make([]float32, perChunk*len(twinTails)), make([]byte, perChunk*len(twinTails))
					sh := core.Header{Data: unsafe.Pointer(&src[0]), DType: core.Float32, Ndim: 1, Device: core.CPU}
					dh := core.Header{Data: unsafe.Pointer(&kernel[0]), DType: dt, Ndim: 1, Device: core.CPU}
					dims := []int64{int64(n)}
					for first := range next {
						fill(src, first, tails)
						if err := core.ConvertInto(&dh, dims, []int64{1}, &sh, dims, []int64{1}); err != nil {
							note("ConvertInto failed: "+err.Error(), first<<12, 0, 0)
							continue
						}
						check("ConvertInto", kernel, first, tails)
						fill(twinSrc, first, twinTails)
						cfixture.ElemWriteFloat32s(dt, twinSrc, twin)
						check("gd_elem_write", twin, first, twinTails)
					}
				}()
			}
			for first := uint32(0); first < tops; first += perChunk {
				next <- first
			}
			close(next)
			wg.Wait()
			require.Empty(t, bad, "float32 bit patterns whose %v code differs from ml_dtypes' rule", dt)
		})
	}
}

// TestSubByteToFloat64 checks every code of the float6 and float4 dtypes
// against ml_dtypes' values (the positive half; the sign bit negates).
func TestSubByteToFloat64(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dt   core.DataType
		bits uint
		pos  []float64
	}{
		{core.Float4E2M1FN, 4, []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}},
		{core.Float6E2M3FN, 6, []float64{0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1, 1.125, 1.25, 1.375, 1.5,
			1.625, 1.75, 1.875, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5}},
		{core.Float6E3M2FN, 6, []float64{0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, 0.5, 0.625, 0.75, 0.875,
			1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28}},
	}
	for _, c := range cases {
		require.Len(t, c.pos, 1<<(c.bits-1), c.dt.String())
		for i, want := range c.pos {
			got, ok := core.SubByteToFloat64(c.dt, byte(i))
			assert.True(t, ok)
			assert.Equal(t, want, got, "%v code %d", c.dt, i)
			neg, _ := core.SubByteToFloat64(c.dt, byte(i)|1<<(c.bits-1))
			assert.Equal(t, -want, neg, "%v code %d", c.dt, i|1<<(c.bits-1))
			assert.True(t, math.Signbit(neg), "%v code %d is negative", c.dt, i|1<<(c.bits-1))
		}
	}
	_, ok := core.SubByteToFloat64(core.Float32, 1)
	assert.False(t, ok, "float32 is not a sub-byte dtype")
}
