// Package kernels holds godlpack's hot contiguous loops: the pairwise sum,
// maximum and minimum of float64 rows and the float64 -> float32,
// float32 -> bfloat16 and int64 -> float64 conversions; and the typed
// kernels kits call on []T of any integer or float type (typed.go: Sum,
// Dot, Axpy, Max, Min), plain Go with several partial results. On amd64 CPUs with
// AVX2 they run as Go assembly (kernels_amd64.s); everywhere else, and when
// GODLPACK_NOSIMD is set to a non-empty value other than "0" at start-up,
// as the pure-Go loops of generic.go. Both paths give the same results bit
// for bit (a max or min of a row holding NaNs is its first NaN), except
// the sign of a zero maximum or minimum of mixed signed zeros;
// tests_go/kernels_test.go compares them.
//
// The package exists apart from core because core uses cgo, and a cgo
// package cannot hold Go assembly (its .s files go to the C compiler).
// It imports nothing outside the standard library and allocates nothing.
//
// # Files
//
//	kernels.go            the exported kernels and the switch between paths
//	typed.go              the typed kernels for kits, generic over Number
//	generic.go            the pure-Go kernels (fallback and reference)
//	cpu_amd64.go, .s      CPUID/XGETBV: does the CPU and OS support AVX2
//	kernels_amd64.go, .s  the AVX2 kernels and their declarations
//	kernels_other.go      stubs for other architectures (never called)
package kernels
