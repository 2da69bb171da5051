package core

// Layout facts about shapes and strides (in elements), decided here once:
// the C skin reads them from Header flags (SetDerivedFlags), the fast path
// of fastpath.c mirrors them.

// isCContiguous reports whether strides address shape in C (row-major)
// order without gaps. As in numpy, strides of dimensions of size 1 do not
// matter and an array with a zero dimension is contiguous.
func isCContiguous(shape, strides []int64) bool {
	if hasZero(shape) {
		return true
	}
	want := int64(1)
	for k := len(shape) - 1; k >= 0; k-- {
		if d := shape[k]; d != 1 {
			if strides[k] != want {
				return false
			}
			var ok bool
			if want, ok = mul64(want, d); !ok && k > 0 {
				return false
			}
		}
	}
	return true
}

// isFContiguous is isCContiguous in Fortran (column-major) order.
func isFContiguous(shape, strides []int64) bool {
	if hasZero(shape) {
		return true
	}
	want := int64(1)
	for k, d := range shape {
		if d != 1 {
			if strides[k] != want {
				return false
			}
			var ok bool
			if want, ok = mul64(want, d); !ok && k < len(shape)-1 {
				return false
			}
		}
	}
	return true
}

func hasZero(shape []int64) bool {
	for _, d := range shape {
		if d == 0 {
			return true
		}
	}
	return false
}

// cStrides writes the C-contiguous strides of shape (in elements) to out.
// Zero dimensions give the strides of the shape with zeros replaced by 1.
func cStrides(shape, out []int64) {
	s := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		out[i] = s
		if d := shape[i]; d > 1 {
			s *= d
		}
	}
}

// contiguousStrides writes the C-contiguous strides (in elements) of shape
// into strides; a zero dimension counts as 1. It reports false on overflow.
func contiguousStrides(shape, strides []int64) bool {
	s := int64(1)
	for k := len(shape) - 1; k >= 0; k-- {
		strides[k] = s
		d := shape[k]
		if d > 1 {
			var ok bool
			if s, ok = mul64(s, d); !ok && k > 0 {
				return false
			}
		}
	}
	return true
}
