package kernels

import "unsafe"

// The row kernels of the comparisons (compare.go plans them): a row of
// elements of each operand at byte strides (0 for a scalar or a broadcast
// operand), decoded a block at a time into the comparison's domain and
// compared into bools. The block buffers are arrays in the row functions'
// own frames: nothing here allocates.

// cmpBlock is the number of elements converted at a time (on the stack).
const cmpBlock = 128

// row compares n elements at byte strides xs and ys (0 for a scalar or a
// broadcast operand) into n bools at out. Each domain has its own function
// (and stack frame) for its conversion buffers.
func (p *cmpPlan) row(xp, yp unsafe.Pointer, xs, ys, n int64, out unsafe.Pointer) {
	if p.x.scalar {
		xp, xs = unsafe.Pointer(&p.x.val), 0
	}
	if p.y.scalar {
		yp, ys = unsafe.Pointer(&p.y.val), 0
	}
	res := unsafe.Slice((*bool)(out), n)
	if p.same {
		sameRow(p.x.k, p.op, xp, yp, xs, ys, res)
		return
	}
	switch p.dom {
	case domF64:
		rowOrdered[float64](p, xp, yp, xs, ys, res)
	case domC128:
		rowPair[complex128, complex128](p, xp, yp, xs, ys, res)
	case domU64:
		rowOrdered[uint64](p, xp, yp, xs, ys, res)
	case domMixed:
		rowPair[int64, uint64](p, xp, yp, xs, ys, res)
	default:
		rowOrdered[int64](p, xp, yp, xs, ys, res)
	}
}

// domElem is the element types of the comparison domains.
type domElem interface {
	float64 | uint64 | int64 | complex128
}

// rowOrdered compares a row in the ordered domain T (float64, uint64 or
// int64), each operand decoded into it a block at a time.
func rowOrdered[T float64 | uint64 | int64](p *cmpPlan, xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	var a, b [cmpBlock]T
	n := int64(len(res))
	if ys == 0 {
		decodeTo(p.y.k, b[:1], yp, 0)
	}
	for i := int64(0); i < n; i += cmpBlock {
		m := min(cmpBlock, n-i)
		decodeTo(p.x.k, a[:m], unsafe.Add(xp, i*xs), xs)
		if ys == 0 {
			cmpScalar(p.op, a[:m], b[0], res[i:i+m])
			continue
		}
		decodeTo(p.y.k, b[:m], unsafe.Add(yp, i*ys), ys)
		cmpOrdered(p.op, a[:m], b[:m], res[i:i+m])
	}
}

// rowPair compares a row in the complex domain (A and B complex128) or the
// mixed one (int64 against uint64), each operand decoded a block at a
// time; a scalar or broadcast y (ys 0) is decoded once. The ordered
// domains keep rowOrdered, whose scalar rows call cmpScalar directly.
func rowPair[A, B int64 | uint64 | complex128](p *cmpPlan, xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	var a [cmpBlock]A
	var b [cmpBlock]B
	n := int64(len(res))
	if ys == 0 {
		decodeTo(p.y.k, b[:1], yp, 0)
	}
	for i := int64(0); i < n; i += cmpBlock {
		m := min(cmpBlock, n-i)
		decodeTo(p.x.k, a[:m], unsafe.Add(xp, i*xs), xs)
		yy := b[:1]
		if ys != 0 {
			yy = b[:m]
			decodeTo(p.y.k, yy, unsafe.Add(yp, i*ys), ys)
		}
		switch a := any(a[:m]).(type) {
		case []complex128:
			cmpComplex(p.op, a, any(yy).([]complex128), res[i:i+m])
		case []int64:
			cmpMixed(p.op, a, any(yy).([]uint64), res[i:i+m])
		}
	}
}

// sameRow compares operands of one fast kind (sameKernel) in its Go type.
func sameRow(k Kind, op CompareOp, xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	switch k {
	case Float64:
		cmpSame[float64](op, xp, yp, xs, ys, res)
	case Float32:
		cmpSame[float32](op, xp, yp, xs, ys, res)
	case Int8:
		cmpSame[int8](op, xp, yp, xs, ys, res)
	case Int16:
		cmpSame[int16](op, xp, yp, xs, ys, res)
	case Int32:
		cmpSame[int32](op, xp, yp, xs, ys, res)
	case Int64:
		cmpSame[int64](op, xp, yp, xs, ys, res)
	case Uint8:
		cmpSame[uint8](op, xp, yp, xs, ys, res)
	case Uint16:
		cmpSame[uint16](op, xp, yp, xs, ys, res)
	case Uint32:
		cmpSame[uint32](op, xp, yp, xs, ys, res)
	default:
		cmpSame[uint64](op, xp, yp, xs, ys, res)
	}
}

type sameElem interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// cmpSame compares len(res) elements of T at byte strides xs and ys:
// contiguous operands and a scalar (stride 0) as Go slices, others
// through pointers.
func cmpSame[T sameElem](op CompareOp, xp, yp unsafe.Pointer, xs, ys int64, res []bool) {
	n := len(res)
	k := int64(unsafe.Sizeof(*(*T)(xp)))
	switch {
	case xs == k && ys == k:
		cmpOrdered(op, unsafe.Slice((*T)(xp), n), unsafe.Slice((*T)(yp), n), res)
	case xs == k && ys == 0:
		cmpScalar(op, unsafe.Slice((*T)(xp), n), *(*T)(yp), res)
	case xs == 0 && ys == k:
		cmpScalar(op.swapped(), unsafe.Slice((*T)(yp), n), *(*T)(xp), res)
	default:
		cmpStrided[T](op, xp, yp, xs, ys, res)
	}
}

func cmpStrided[T sameElem](op CompareOp, xp, yp unsafe.Pointer, xs, ys int64, out []bool) {
	at := func(p unsafe.Pointer, i int, s int64) T { return *(*T)(unsafe.Add(p, int64(i)*s)) }
	switch op {
	case CmpLT:
		for i := range out {
			out[i] = at(xp, i, xs) < at(yp, i, ys)
		}
	case CmpLE:
		for i := range out {
			out[i] = at(xp, i, xs) <= at(yp, i, ys)
		}
	case CmpEQ:
		for i := range out {
			out[i] = at(xp, i, xs) == at(yp, i, ys)
		}
	case CmpNE:
		for i := range out {
			out[i] = at(xp, i, xs) != at(yp, i, ys)
		}
	case CmpGT:
		for i := range out {
			out[i] = at(xp, i, xs) > at(yp, i, ys)
		}
	default:
		for i := range out {
			out[i] = at(xp, i, xs) >= at(yp, i, ys)
		}
	}
}

// ---- conversions (len(dst) elements at byte stride st) ----

func decodeAs[E int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64,
	D int64 | uint64 | float64](dst []D, p unsafe.Pointer, st int64) {
	for i := range dst {
		dst[i] = D(*(*E)(unsafe.Add(p, int64(i)*st)))
	}
}

func decodeBool[D int64 | uint64 | float64](dst []D, p unsafe.Pointer, st int64) {
	for i := range dst {
		var v D
		if *(*uint8)(unsafe.Add(p, int64(i)*st)) != 0 {
			v = 1
		}
		dst[i] = v
	}
}

// decodeTo is decodeF64, decodeU64, decodeI64 or decodeC128, by dst's
// type.
func decodeTo[T domElem](k Kind, dst []T, p unsafe.Pointer, st int64) {
	switch d := any(dst).(type) {
	case []complex128:
		decodeC128(k, d, p, st)
	case []float64:
		decodeF64(k, d, p, st)
	case []uint64:
		decodeU64(k, d, p, st)
	case []int64:
		decodeI64(k, d, p, st)
	}
}

// decodeI64 converts bools and integers that int64 holds.
func decodeI64(k Kind, dst []int64, p unsafe.Pointer, st int64) {
	switch k {
	case Bool:
		decodeBool(dst, p, st)
	case Int8:
		decodeAs[int8](dst, p, st)
	case Int16:
		decodeAs[int16](dst, p, st)
	case Int32:
		decodeAs[int32](dst, p, st)
	case Int64:
		decodeAs[int64](dst, p, st)
	case Uint8:
		decodeAs[uint8](dst, p, st)
	case Uint16:
		decodeAs[uint16](dst, p, st)
	default:
		decodeAs[uint32](dst, p, st)
	}
}

// decodeU64 converts bools and unsigned integers.
func decodeU64(k Kind, dst []uint64, p unsafe.Pointer, st int64) {
	switch k {
	case Bool:
		decodeBool(dst, p, st)
	case Uint8:
		decodeAs[uint8](dst, p, st)
	case Uint16:
		decodeAs[uint16](dst, p, st)
	case Uint32:
		decodeAs[uint32](dst, p, st)
	default:
		decodeAs[uint64](dst, p, st)
	}
}

// decodeF64 converts any real kind (64-bit integers rounded to nearest).
func decodeF64(k Kind, dst []float64, p unsafe.Pointer, st int64) {
	switch k {
	case Float64:
		decodeAs[float64](dst, p, st)
	case Float32:
		decodeAs[float32](dst, p, st)
	case Float16:
		for i := range dst {
			dst[i] = float64(Float16ToFloat32(*(*uint16)(unsafe.Add(p, int64(i)*st))))
		}
	case BFloat16:
		for i := range dst {
			dst[i] = float64(BFloat16ToFloat32(*(*uint16)(unsafe.Add(p, int64(i)*st))))
		}
	case Bool:
		decodeBool(dst, p, st)
	case Int8:
		decodeAs[int8](dst, p, st)
	case Int16:
		decodeAs[int16](dst, p, st)
	case Int32:
		decodeAs[int32](dst, p, st)
	case Int64:
		decodeAs[int64](dst, p, st)
	case Uint8:
		decodeAs[uint8](dst, p, st)
	case Uint16:
		decodeAs[uint16](dst, p, st)
	case Uint32:
		decodeAs[uint32](dst, p, st)
	default:
		decodeAs[uint64](dst, p, st)
	}
}

// decodeC128 converts any kind to complex128 (reals with imaginary 0).
func decodeC128(k Kind, dst []complex128, p unsafe.Pointer, st int64) {
	switch k {
	case Complex128:
		for i := range dst {
			dst[i] = *(*complex128)(unsafe.Add(p, int64(i)*st))
		}
	case Complex64:
		for i := range dst {
			dst[i] = complex128(*(*complex64)(unsafe.Add(p, int64(i)*st)))
		}
	default:
		var re [cmpBlock]float64
		for j := 0; j < len(dst); j += cmpBlock {
			m := min(cmpBlock, len(dst)-j)
			decodeF64(k, re[:m], unsafe.Add(p, int64(j)*st), st)
			for i := range m {
				dst[j+i] = complex(re[i], 0)
			}
		}
	}
}

// ---- comparisons of converted blocks ----

func cmpOrdered[T sameElem](op CompareOp, a, b []T, out []bool) {
	b = b[:len(a)]
	out = out[:len(a)]
	switch op {
	case CmpLT:
		for i := range a {
			out[i] = a[i] < b[i]
		}
	case CmpLE:
		for i := range a {
			out[i] = a[i] <= b[i]
		}
	case CmpEQ:
		for i := range a {
			out[i] = a[i] == b[i]
		}
	case CmpNE:
		for i := range a {
			out[i] = a[i] != b[i]
		}
	case CmpGT:
		for i := range a {
			out[i] = a[i] > b[i]
		}
	default:
		for i := range a {
			out[i] = a[i] >= b[i]
		}
	}
}

func cmpScalar[T sameElem](op CompareOp, a []T, b T, out []bool) {
	out = out[:len(a)]
	switch op {
	case CmpLT:
		for i := range a {
			out[i] = a[i] < b
		}
	case CmpLE:
		for i := range a {
			out[i] = a[i] <= b
		}
	case CmpEQ:
		for i := range a {
			out[i] = a[i] == b
		}
	case CmpNE:
		for i := range a {
			out[i] = a[i] != b
		}
	case CmpGT:
		for i := range a {
			out[i] = a[i] > b
		}
	default:
		for i := range a {
			out[i] = a[i] >= b
		}
	}
}

// cmpMixed compares signed a with unsigned b (len(b) is len(a), or 1 for
// a scalar or broadcast b).
func cmpMixed(op CompareOp, a []int64, b []uint64, out []bool) {
	out = out[:len(a)]
	for i := range a {
		bi := b[0]
		if len(b) > 1 {
			bi = b[i]
		}
		// sign: -1, 0, 1 for a < b, a == b, a > b
		var c int
		switch {
		case a[i] < 0 || uint64(a[i]) < bi:
			c = -1
		case uint64(a[i]) > bi:
			c = 1
		}
		out[i] = signHolds(op, c)
	}
}

func signHolds(op CompareOp, c int) bool {
	switch op {
	case CmpLT:
		return c < 0
	case CmpLE:
		return c <= 0
	case CmpEQ:
		return c == 0
	case CmpNE:
		return c != 0
	case CmpGT:
		return c > 0
	}
	return c >= 0
}

// cmpComplex compares lexicographically as numpy does: an ordering decided
// by the real parts needs both imaginary parts to be numbers.
func cmpComplex(op CompareOp, a, b []complex128, out []bool) {
	out = out[:len(a)]
	for i := range a {
		bi := b[0]
		if len(b) > 1 {
			bi = b[i]
		}
		xr, xi, yr, yi := real(a[i]), imag(a[i]), real(bi), imag(bi)
		ordered := xi == xi && yi == yi //nolint:gocritic // false for NaN
		var r bool
		switch op {
		case CmpEQ:
			r = xr == yr && xi == yi
		case CmpNE:
			r = xr != yr || xi != yi
		case CmpLT:
			r = xr < yr && ordered || xr == yr && xi < yi
		case CmpLE:
			r = xr < yr && ordered || xr == yr && xi <= yi
		case CmpGT:
			r = xr > yr && ordered || xr == yr && xi > yi
		default:
			r = xr > yr && ordered || xr == yr && xi >= yi
		}
		out[i] = r
	}
}
