package kernels

// The walks of the kernels: a nest of loops over the axes of one or two
// operands, byte strides per axis, the innermost axis run by the kernel's
// row function and the outer ones stepped here.

// MaxNdim is the most axes a walk takes (core.MaxNdim, checked there at
// build time).
const MaxNdim = 64

// orderAxes sorts the axes of a two-operand walk, shape with the byte
// strides a of the operand that leads and b of the other, by decreasing a
// (ties by decreasing |b|; a stable insertion sort), and merges neighbours
// that walk both operands' memory as one axis. It returns the number of
// axes left (the first entries of shape, a and b).
func orderAxes(shape, a, b []int64) int {
	n := len(shape)
	for i := 1; i < n; i++ {
		for j := i; j > 0 && (a[j] > a[j-1] || a[j] == a[j-1] && abs64(b[j]) > abs64(b[j-1])); j-- {
			shape[j], shape[j-1] = shape[j-1], shape[j]
			a[j], a[j-1] = a[j-1], a[j]
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
	m := 0
	for i := 0; i < n; i++ {
		if m > 0 && a[m-1] == a[i]*shape[i] && b[m-1] == b[i]*shape[i] {
			shape[m-1] *= shape[i]
			a[m-1], b[m-1] = a[i], b[i]
			continue
		}
		shape[m], a[m], b[m] = shape[i], a[i], b[i]
		m++
	}
	return m
}

// Step moves the index idx over shape (one entry per axis, the last
// fastest) to the next element, and the offsets offA and offB with it by
// the strides a and b (b and offB nil for a walk of one operand). It
// returns false after the last element, idx back at zero.
func Step(idx, shape, a, b []int64, offA, offB *int64) bool {
	for j := len(idx) - 1; j >= 0; j-- {
		idx[j]++
		*offA += a[j]
		if b != nil {
			*offB += b[j]
		}
		if idx[j] < shape[j] {
			return true
		}
		*offA -= a[j] * shape[j]
		if b != nil {
			*offB -= b[j] * shape[j]
		}
		idx[j] = 0
	}
	return false
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
