package core

import "fmt"

// Views share the memory (and the owner) of the array they come from and
// hold their own owner reference: release each of them. Views of packed
// sub-byte arrays return ErrSubByteView.

// Index returns the view a[i]: axis 0 dropped (a 0-d array for a 1-d
// input). Negative i counts from the end. Errors: ErrIndex (0-d array or i
// out of range), ErrReleased, ErrSubByteView.
func (a *Array) Index(i int64) (*Array, error) {
	return a.view("Index()", []IndexOp{{Kind: IdxInt, I: i}})
}

// Slice returns the view a[..., start:stop:step, ...] on axis (negative
// axis counts from the end) with Python semantics: negative start/stop
// count from the end, out-of-range values clamp, any non-zero step works
// (negative steps walk backwards). With a negative step, stop =
// math.MinInt64 means "through the first element" (Python's None); with a
// positive step, stop = math.MaxInt64 means "to the end". Errors: ErrAxis,
// ErrIndex (step 0), ErrReleased, ErrSubByteView.
func (a *Array) Slice(axis int, start, stop, step int64) (*Array, error) {
	const where = "Slice()"
	nd := len(a.shape)
	ax := axis
	if ax < 0 {
		ax += nd
	}
	if ax < 0 || ax >= nd {
		return nil, errorf(ErrAxis, "%s: axis %d is out of bounds for array of dimension %d; pass an axis in [-%d, %d)", where, axis, nd, nd, nd)
	}
	var ops [MaxNdim]IndexOp
	for i := 0; i < ax; i++ {
		ops[i] = IndexOp{Kind: IdxSlice, Step: 1}
	}
	ops[ax] = IndexOp{Kind: IdxSlice, Start: start, Stop: stop, Step: step, HasStart: true, HasStop: true}
	return a.view(where, ops[:ax+1])
}

// SliceOps returns the view a[ops...] for a general basic index expression
// (see IndexOp and ApplyIndex).
func (a *Array) SliceOps(ops ...IndexOp) (*Array, error) { return a.view("SliceOps()", ops) }

func (a *Array) view(where string, ops []IndexOp) (*Array, error) {
	h, err := a.acquire(where)
	if err != nil {
		return nil, err
	}
	var sh, st [MaxNdim]int64
	var out Header
	n, err := applyIndex(where, &h, a.shape, a.strides, ops, &out, sh[:], st[:])
	if err != nil {
		h.Owner.Release()
		return nil, err
	}
	return newOwnedArray(out, sh[:n], st[:n]), nil
}

// Transpose returns the view whose axis i is axis axes[i] of a (negative
// axes count from the end); no axes reverses them. Errors: ErrAxis,
// ErrReleased, ErrSubByteView.
func (a *Array) Transpose(axes ...int) (*Array, error) {
	const where = "Transpose()"
	h, err := a.acquire(where)
	if err != nil {
		return nil, err
	}
	var sh, st [MaxNdim]int64
	var out Header
	if err := TransposeDesc(&h, a.shape, a.strides, axes, &out, sh[:], st[:]); err != nil {
		h.Owner.Release()
		return nil, err
	}
	nd := len(a.shape)
	return newOwnedArray(out, sh[:nd], st[:nd]), nil
}

// T returns Transpose() with the axes reversed. It returns nil when a is
// released or a packed sub-byte array (use Transpose to see the error).
func (a *Array) T() *Array {
	v, err := a.Transpose()
	if err != nil {
		return nil
	}
	return v
}

// Reshape returns a view of a with the given shape (C order; one entry may
// be -1). It never copies: when the strides do not allow a view it returns
// ErrReshape, and a.Copy() followed by Reshape does the job (a copy is
// C-contiguous, which always reshapes). Errors: ErrReshape, ErrNdim,
// ErrReleased, ErrSubByteView.
func (a *Array) Reshape(shape ...int64) (*Array, error) {
	const where = "Reshape()"
	if len(shape) > MaxNdim {
		return nil, fmt.Errorf("%s: %d dimensions, at most %d are supported: %w", where, len(shape), MaxNdim, ErrNdim)
	}
	var ns, st [MaxNdim]int64
	copy(ns[:], shape)
	nn := len(shape)
	h, err := a.acquire(where)
	if err != nil {
		return nil, err
	}
	var out Header
	if err := ReshapeDesc(&h, a.shape, a.strides, ns[:nn], &out, st[:]); err != nil {
		h.Owner.Release()
		return nil, err
	}
	return newOwnedArray(out, ns[:nn], st[:nn]), nil
}
