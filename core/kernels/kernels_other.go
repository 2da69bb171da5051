//go:build !amd64

package kernels

// No assembly here: hasAVX2 is false and the stubs are never called.

const hasAVX2 = false

func sumLeavesAVX2(p *float64, lens *int, k int, sums *float64) { panic("kernels: no AVX2") }
func maxAVX2(p *float64, n int) (m float64, nan int)            { panic("kernels: no AVX2") }
func minAVX2(p *float64, n int) (m float64, nan int)            { panic("kernels: no AVX2") }
func f64ToF32AVX2(dst *float32, src *float64, n int)            { panic("kernels: no AVX2") }
func f32ToBF16AVX2(dst *uint16, src *float32, n int)            { panic("kernels: no AVX2") }
func i64ToF64AVX2(dst *float64, src *int64, n int)              { panic("kernels: no AVX2") }
