package core

// Conversions between dtypes (astype): the checks and the dtype of each
// side here; the kernels' conversion (core/kernels/convert.go) gives
// numpy's casting results.

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/core/kernels"
)

// CanConvert reports whether ConvertInto converts between from and to:
// every pair of byte-sized dtypes of the DLPack table (bool, int, uint,
// float16/32/64, bfloat16, complex, float8). Packed sub-byte dtypes
// (float6, float4) are not converted.
func CanConvert(from, to DataType) bool {
	_, ok1 := elemKind(from)
	_, ok2 := elemKind(to)
	return ok1 && ok2
}

// CheckConvert returns nil when ConvertInto converts from into to (equal
// byte-sized dtypes included), else ErrDType with a message that starts
// with where and names the way out.
func CheckConvert(where string, from, to DataType) error {
	if from == to && !from.IsSubByte() || CanConvert(from, to) {
		return nil
	}
	return convertTypeErr(where, from, to)
}

// ConvertInto writes the elements of src, converted to dst's dtype, into
// dst. Shapes must be equal; dtypes may differ (equal dtypes copy, as
// CopyInto). Both must be CPU-accessible. An overlapping source and
// destination of different dtypes go through a temporary C buffer. It does
// not allocate on the Go heap unless it runs in parallel (large arrays) or
// fails.
//
// Errors: ErrReadOnly, ErrDType (a packed sub-byte or unknown dtype; the
// message names the way out), ErrShape, ErrDevice, ErrNullData, ErrNoMemory.
func ConvertInto(dst *Header, dstShape, dstStrides []int64, src *Header, srcShape, srcStrides []int64) error {
	const where = "astype()"
	if dst.DType == src.DType {
		return CopyInto(dst, dstShape, dstStrides, src, srcShape, srcStrides)
	}
	if dst.ReadOnly() {
		return fmt.Errorf("%s: destination is read-only: %w", where, ErrReadOnly)
	}
	dk, ok1 := elemKind(dst.DType)
	sk, ok2 := elemKind(src.DType)
	if !ok1 || !ok2 {
		return convertTypeErr(where, src.DType, dst.DType)
	}
	nd := len(dstShape)
	if len(srcShape) != nd || len(dstStrides) != nd || len(srcStrides) != nd || nd > MaxNdim {
		return fmt.Errorf("%s: shapes %s and %s differ: %w", where, dimsString(srcShape), dimsString(dstShape), ErrShape)
	}
	for i := range dstShape {
		if dstShape[i] != srcShape[i] {
			return fmt.Errorf("%s: shapes %s and %s differ: %w", where, dimsString(srcShape), dimsString(dstShape), ErrShape)
		}
	}
	if !src.hostAccessible() {
		return notHostErr(where, src)
	}
	if !dst.hostAccessible() {
		return notHostErr(where, dst)
	}
	size, err := shapeSize(where, dstShape)
	if err != nil || size == 0 {
		return err
	}
	if dst.Data == nil || src.Data == nil {
		return fmt.Errorf("%s: %w", where, ErrNullData)
	}
	dp := unsafe.Add(dst.Data, dst.Offset*dk.Size())
	sp := unsafe.Add(src.Data, src.Offset*sk.Size())
	dlo, dhi := extent(dp, dstShape, dstStrides, dk.Size())
	slo, shi := extent(sp, srcShape, srcStrides, sk.Size())
	if dlo < shi && slo < dhi {
		// Overlap: convert into a contiguous temporary, then copy.
		host := hostBackend()
		tmp, err := host.Allocate(0, size*dk.Size(), false)
		if err != nil {
			return fmt.Errorf("%s: cannot allocate a %d-byte temporary: %w", where, size*dk.Size(), ErrNoMemory)
		}
		defer host.Free(tmp)
		var cs [MaxNdim]int64
		cStrides(dstShape, cs[:nd])
		kernels.Convert(tmp, cs[:nd], dk, sp, srcStrides, sk, dstShape, size)
		kernels.Copy(dp, dstStrides, tmp, cs[:nd], dstShape, dk.Size(), size)
		return nil
	}
	kernels.Convert(dp, dstStrides, dk, sp, srcStrides, sk, dstShape, size)
	return nil
}

func convertTypeErr(where string, from, to DataType) error {
	if from.IsSubByte() || to.IsSubByte() {
		return WithClass(ClassType, fmt.Sprintf("%s: cannot convert %v to %v: packed sub-byte dtypes (float6, float4) are not converted; convert with ml_dtypes after np.from_dlpack(a)", where, from, to), ErrDType)
	}
	return WithClass(ClassType, fmt.Sprintf("%s: cannot convert %v to %v; use one of godlpack's dtypes (bool, int8..uint64, float16..float64, bfloat16, complex64, complex128, float8_*)", where, from, to), ErrDType)
}

// AsType returns a new C-contiguous CPU array with a's elements converted to
// dt (a copy even when dt is a's dtype). Errors: as Copy, and ErrDType for
// dtypes ConvertInto does not convert.
func (a *Array) AsType(dt DataType) (*Array, error) {
	const where = "AsType()"
	h, err := a.acquire(where)
	if err != nil {
		return nil, err
	}
	defer h.Owner.Release()
	if !CanConvert(h.DType, dt) {
		if h.DType == dt && !dt.IsSubByte() {
			return a.Copy()
		}
		return nil, convertTypeErr(where, h.DType, dt)
	}
	nd := len(a.shape)
	var st [MaxNdim]int64
	var out Header
	if err := allocContiguous(where, CPU, dt, a.shape, &out, st[:nd], false, true); err != nil {
		return nil, err
	}
	if err := ConvertInto(&out, a.shape, st[:nd], &h, a.shape, a.strides); err != nil {
		out.Owner.Release()
		return nil, err
	}
	return newOwnedArray(out, a.shape, st[:nd]), nil
}
