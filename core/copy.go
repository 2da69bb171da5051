package core

/*
#include "godlpack.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/core/kernels"
)

// CopyInto copies the elements of the array described by src, srcShape and
// srcStrides into the one described by dst, dstShape and dstStrides. Shapes
// and dtypes must be equal (no broadcasting, no casting). Memory the CPU
// cannot address (HeaderHost clear) is reached through its device's backend
// (devcopy.go); a device without one is ErrDevice. Overlapping source and destination are handled (through
// a temporary C buffer when the layouts differ). It does not allocate on the
// Go heap unless it runs in parallel (large copies) or fails.
//
// Errors: ErrReadOnly (dst read-only), ErrDType, ErrShape, ErrDevice,
// ErrSubByteView, ErrNullData, ErrNoMemory (temporary buffer).
func CopyInto(dst *Header, dstShape, dstStrides []int64, src *Header, srcShape, srcStrides []int64) error {
	const where = "copy"
	if dst.ReadOnly() {
		return fmt.Errorf("%s: destination is read-only: %w", where, ErrReadOnly)
	}
	if dst.DType != src.DType {
		return fmt.Errorf("%s: dtypes differ (%v into %v); godlpack does not cast: %w", where, src.DType, dst.DType, ErrDType)
	}
	if dst.DType.IsSubByte() {
		return subByteErr(where, src) // the source says whether it is padded
	}
	k := dst.DType.ItemSize()
	if k <= 0 {
		return fmt.Errorf("%s: dtype %v has no byte size: %w", where, dst.DType, ErrDType)
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
	onHost := dst.hostAccessible() && src.hostAccessible()
	if !onHost && ((!dst.hostAccessible() && backendOf(dst.Device.Type) == nil) ||
		(!src.hostAccessible() && backendOf(src.Device.Type) == nil)) {
		return fmt.Errorf("%s: %v to %v needs a device backend: %w", where, src.Device, dst.Device, ErrDevice)
	}
	size, err := shapeSize(where, dstShape)
	if err != nil {
		return err
	}
	if size == 0 {
		return nil
	}
	if dst.Data == nil || src.Data == nil {
		return fmt.Errorf("%s: %w", where, ErrNullData)
	}
	if !onHost {
		return copyDevice(where, dst, dstStrides, src, srcStrides, dstShape, k, size)
	}
	dp := unsafe.Add(dst.Data, dst.Offset*k)
	sp := unsafe.Add(src.Data, src.Offset*k)

	dlo, dhi := extent(dp, dstShape, dstStrides, k)
	slo, shi := extent(sp, srcShape, srcStrides, k)
	if dlo < shi && slo < dhi {
		if dp == sp && sameStrides(dstShape, dstStrides, srcStrides) {
			return nil
		}
		// Overlap with different layouts: go through a contiguous copy.
		host := hostBackend()
		tmp, err := host.Allocate(0, size*k, false)
		if err != nil {
			return fmt.Errorf("%s: cannot allocate a %d-byte temporary: %w", where, size*k, ErrNoMemory)
		}
		defer host.Free(tmp)
		var cs [MaxNdim]int64
		cStrides(dstShape, cs[:nd])
		kernels.Copy(tmp, cs[:nd], sp, srcStrides, dstShape, k, size)
		kernels.Copy(dp, dstStrides, tmp, cs[:nd], dstShape, k, size)
		return nil
	}
	kernels.Copy(dp, dstStrides, sp, srcStrides, dstShape, k, size)
	return nil
}

// SetSerial forces every kernel (copy, fill, conversion, comparison,
// reduction) to run on the calling goroutine when on is true: for a Go
// program that must not start goroutines, and for the tests, which cover
// the serial path with it. (A forked child of Python never enters Go: the
// skin serves it in C.)
func SetSerial(on bool) { kernels.SetSerial(on) }

// Serial reports whether kernels must stay on the calling goroutine
// (SetSerial(true)).
func Serial() bool { return kernels.Serial() }

// extent returns the byte range [lo, hi) touched by a non-empty array whose
// element 0 is at p.
func extent(p unsafe.Pointer, shape, strides []int64, k int64) (uintptr, uintptr) {
	var lo, hi int64
	for i, d := range shape {
		s := (d - 1) * strides[i] * k
		if s < 0 {
			lo += s
		} else {
			hi += s
		}
	}
	base := uintptr(p)
	return base + uintptr(lo), base + uintptr(hi+k)
}

func sameStrides(shape, a, b []int64) bool {
	for i := range shape {
		if shape[i] != 1 && a[i] != b[i] {
			return false
		}
	}
	return true
}

// Copy returns a C-contiguous deep copy of a on the CPU (writable even when
// a is read-only). Errors: ErrReleased, ErrSubByteView, ErrDevice,
// ErrNoMemory.
func (a *Array) Copy() (*Array, error) {
	const where = "Copy()"
	h, err := a.acquire(where) // the source stays alive during the copy
	if err != nil {
		return nil, err
	}
	defer h.Owner.Release()
	if h.DType.IsSubByte() {
		return nil, subByteErr(where, &h)
	}
	nd := len(a.shape)
	var st [MaxNdim]int64
	var out Header
	if err := allocContiguous(where, CopyDevice(h.Device), h.DType, a.shape, &out, st[:nd], false, false); err != nil {
		return nil, err
	}
	if err := CopyInto(&out, a.shape, st[:nd], &h, a.shape, a.strides); err != nil {
		out.Owner.Release()
		return nil, err
	}
	return newOwnedArray(out, a.shape, st[:nd]), nil
}
