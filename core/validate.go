package core

import (
	"fmt"
	"math"
	"unsafe"
)

// DescribeVersioned validates m and describes it in h, shape and strides
// (which need len >= ndim; MaxNdim always suffices) without taking ownership:
// it never calls the deleter. It is the zero-allocation step the CPython skin
// runs before it renames a capsule.
//
// Import rules (docs/rules.md S1-S8). DescribeVersioned and DescribeLegacy
// check, in this order, and stop at the first failure:
//
//  1. versioned only: Version.Major == 1, before any other field is read (S1),
//     else ErrVersion. Any minor version is accepted.
//  2. 0 <= ndim <= MaxNdim, else ErrNdim.
//  3. the data type (ValidateDataType: lanes 1, a known code with fitting
//     bits, float6 bits 6, float4 bits 4), else ErrLanes/ErrDType/ErrSubByte.
//  4. the device (ValidateDevice: a DLPack 1.3 device type; id 0 for CPU,
//     CUDAHost and CUDAManaged), else ErrDevice. Non-CPU devices are
//     described as they are: the consumer decides what it can use.
//  5. shape may be NULL only when ndim == 0, else ErrNullShape.
//  6. every dimension >= 0, else ErrShape; the element count fits int64,
//     else ErrOverflow (a shape with a zero dimension has size 0 whatever the
//     other dimensions are).
//  7. strides: NULL strides mean C-contiguous and are accepted from every
//     producer. DLPack 1.2 says a producer MUST NOT send NULL strides when
//     ndim != 0, but legacy and pre-1.2 producers do, the meaning is
//     unambiguous, and accepting is safe: we compute the C-contiguous strides
//     (a zero dimension counts as 1, as numpy does; ErrOverflow if they do
//     not fit int64). Strides are copied verbatim otherwise; the stride of a
//     dimension of size 0 or 1 is never read for addressing and never
//     rewritten (pytorch#99803).
//  8. byte_offset <= MaxInt64, else ErrOverflow.
//  9. packed sub-byte data (bits < 8 without FlagIsSubbyteTypePadded; legacy
//     tensors cannot set the flag) must be C-contiguous, else ErrSubByte.
//     Padded sub-byte data takes one byte per element and any strides.
//  10. data may be NULL only when the tensor has no element (S5), else
//     ErrNullData.
//  11. the byte range reachable from data: with itemsize s and
//     o = byte_offset, element i lives at o + s*Σ i_k*strides_k; the lowest
//     and highest reachable byte offsets (negative strides reach below
//     data + o) and the end of the last element are computed in int64 with
//     overflow checks (every intermediate sum and product must fit), and
//     data + that range must stay inside the address space: ErrOverflow.
//
// On success, on a device whose byte_offset policy folds it
// (FoldsByteOffset: the CPU and host kinds) h.Data = data + byte_offset and
// Offset is 0; on other devices h.Data = data and Offset = byte_offset /
// itemsize (ErrByteOffset when it does not divide). h.Owner = nil, h.Flags has HeaderReadOnly when the versioned flags say
// READ_ONLY and HeaderSubBytePadded for padded sub-byte data. Legacy tensors
// cannot say whether they are writable: godlpack imports them WRITABLE for Go
// users (the producer handed its memory over, and numpy/torch legacy capsules
// of writable arrays are the common case); pyext may apply its own policy by
// setting HeaderReadOnly afterwards.
//
// Describe never calls the deleter, never panics on hostile values, reads
// only the fields its version promises (never beyond shape[ndim-1] or
// strides[ndim-1]), and allocates nothing on the Go heap when it succeeds.
// Errors wrap one of the sentinels above (all BufferError) and say what is
// wrong; the caller adds the entry point ("from_dlpack(): ").
func DescribeVersioned(m *DLManagedTensorVersioned, h *Header, shape, strides []int64) error {
	if m == nil {
		return fmt.Errorf("%w: NULL DLManagedTensorVersioned", ErrInternal)
	}
	if m.Version.Major != DLPackVersion.Major {
		return versionErr(m.Version)
	}
	return describe(&m.DLTensor, m.Flags, h, shape, strides)
}

// DescribeLegacy is DescribeVersioned for a legacy DLManagedTensor: no
// version, no flags (writable, packed sub-byte data).
func DescribeLegacy(m *DLManagedTensor, h *Header, shape, strides []int64) error {
	if m == nil {
		return fmt.Errorf("%w: NULL DLManagedTensor", ErrInternal)
	}
	return describe(&m.DLTensor, 0, h, shape, strides)
}

func versionErr(v Version) error {
	return fmt.Errorf("%w %d.%d: godlpack understands DLPack %d.x; ask the producer for max_version=(%d, %d)",
		ErrVersion, v.Major, v.Minor, DLPackVersion.Major, DLPackVersion.Major, DLPackVersion.Minor)
}

// describe is the path shared by versioned and legacy tensors. flags are the
// versioned flags (0 for legacy).
func describe(t *DLTensor, flags uint64, h *Header, shape, strides []int64) error {
	ndim := t.Ndim
	if ndim < 0 || ndim > MaxNdim {
		return fmt.Errorf("%w: ndim is %d, godlpack supports 0..%d dimensions", ErrNdim, ndim, MaxNdim)
	}
	n := int(ndim)
	if n > len(shape) || n > len(strides) {
		return fmt.Errorf("%w: describe needs shape and strides buffers of %d entries", ErrInternal, n)
	}
	dt := t.DType
	if err := ValidateDataType(dt, flags); err != nil {
		return err
	}
	dev := t.Device
	if err := ValidateDevice(dev); err != nil {
		return err
	}
	if n > 0 && t.Shape == nil {
		return fmt.Errorf("%w: ndim is %d", ErrNullShape, n)
	}

	// Shape and element count.
	empty := false
	if n > 0 {
		src := unsafe.Slice(t.Shape, n)
		for k, d := range src {
			if d < 0 {
				return fmt.Errorf("%w: dimension %d is %d", ErrShape, k, d)
			}
			if d == 0 {
				empty = true
			}
			shape[k] = d
		}
	}
	size := int64(0)
	if !empty {
		size = 1
		for k := 0; k < n; k++ {
			var ok bool
			if size, ok = mul64(size, shape[k]); !ok {
				return fmt.Errorf("%w: the element count of the shape", ErrOverflow)
			}
		}
	}

	// Strides.
	contiguous := true // only meaningful for packed sub-byte data
	if n > 0 && t.Strides != nil {
		src := unsafe.Slice(t.Strides, n)
		copy(strides[:n], src)
		contiguous = isCContiguous(shape[:n], strides[:n])
	} else if !contiguousStrides(shape[:n], strides[:n]) {
		return fmt.Errorf("%w: the C-contiguous strides of the shape", ErrOverflow)
	}

	if t.ByteOffset > math.MaxInt64 {
		return fmt.Errorf("%w: byte_offset %d", ErrOverflow, t.ByteOffset)
	}
	off := int64(t.ByteOffset)

	padded := false
	var itemsize int64
	if dt.IsSubByte() {
		if flags&FlagIsSubbyteTypePadded != 0 {
			padded = true
			itemsize = 1
		} else if !contiguous {
			return fmt.Errorf("%w: packed sub-byte data (code=%d, bits=%d) must be C-contiguous; ask the producer for a contiguous copy",
				ErrSubByte, dt.Code, dt.Bits)
		}
	} else {
		itemsize = dt.ItemSize()
	}

	data := t.Data
	if data == nil && size != 0 {
		return fmt.Errorf("%w: %d elements", ErrNullData, size)
	}

	// Reachable byte range [lo, hi) relative to data.
	lo, hi := off, off
	if size != 0 {
		var ok bool
		if itemsize == 0 { // packed sub-byte, C-contiguous
			nb := dt.PackedBytes(size)
			if nb < 0 {
				return fmt.Errorf("%w: the byte size of the tensor", ErrOverflow)
			}
			hi, ok = add64(off, nb)
		} else {
			lo, hi, ok = byteRange(shape[:n], strides[:n], itemsize, off)
		}
		if !ok {
			return fmt.Errorf("%w: the byte range the strides reach", ErrOverflow)
		}
	}
	if data != nil {
		base := uint64(uintptr(data))
		if lo < 0 && uint64(-lo) > base || hi > 0 && base+uint64(hi) < base {
			return fmt.Errorf("%w: the byte range the strides reach leaves the address space", ErrOverflow)
		}
	}

	// The byte_offset policy of the device (FoldsByteOffset): fold it into
	// data, or keep data as given and carry the offset in elements (an empty
	// tensor addresses nothing: its offset is dropped).
	var elemOff int64
	switch {
	case off == 0 || data == nil:
	case FoldsByteOffset(dev):
		data = unsafe.Add(data, off)
	case size == 0:
	case itemsize == 0 || off%itemsize != 0:
		return fmt.Errorf("%w: byte_offset %d of a %s tensor is not a multiple of its %d-bit elements, and its data pointer may be an opaque handle that cannot be offset; ask the producer for a contiguous copy",
			ErrByteOffset, off, dev.Type, dt.ItemBits())
	default:
		elemOff = off / itemsize
	}

	h.Data = data
	h.Owner = nil
	h.Offset = elemOff
	h.DType = dt
	h.Ndim = ndim
	h.Device = dev
	h.Flags = 0
	if flags&FlagReadOnly != 0 { // C5; a legacy tensor cannot say, and stays writable
		h.Flags |= HeaderReadOnly
	}
	if padded {
		h.Flags |= HeaderSubBytePadded
	}
	host, err := HostAccessible(dev, data)
	if err != nil {
		return fmt.Errorf("%w; copy the tensor to the host with the library that made it", err)
	}
	h.setDerivedFlags(shape[:n], strides[:n], host)
	return nil
}

// byteRange returns the lowest reachable byte offset and the end of the
// highest reachable element, relative to data, for a non-empty tensor whose
// element 0 sits at byte off. ok is false on int64 overflow.
func byteRange(shape, strides []int64, itemsize, off int64) (lo, hi int64, ok bool) {
	var elo, ehi int64 // element offsets
	for k, d := range shape {
		if d <= 1 {
			continue
		}
		p, ok := mul64(d-1, strides[k])
		if !ok {
			return 0, 0, false
		}
		if p >= 0 {
			ehi, ok = add64(ehi, p)
		} else {
			elo, ok = add64(elo, p)
		}
		if !ok {
			return 0, 0, false
		}
	}
	if ehi, ok = add64(ehi, 1); !ok {
		return 0, 0, false
	}
	if elo, ok = mul64(elo, itemsize); !ok {
		return 0, 0, false
	}
	if ehi, ok = mul64(ehi, itemsize); !ok {
		return 0, 0, false
	}
	if lo, ok = add64(off, elo); !ok {
		return 0, 0, false
	}
	if hi, ok = add64(off, ehi); !ok {
		return 0, 0, false
	}
	return lo, hi, true
}

// mul64 returns a*b and whether it did not overflow int64.
func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) || c/b != a {
		return 0, false
	}
	return c, true
}

// add64 returns a+b and whether it did not overflow int64.
func add64(a, b int64) (int64, bool) {
	c := a + b
	if (a^c)&(b^c) < 0 {
		return 0, false
	}
	return c, true
}
