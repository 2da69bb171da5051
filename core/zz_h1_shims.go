package core

// TEMPORARY stand-ins used by helper h1 until h2 (core/array.go) and h3
// (core/errors.go, core/dtype.go, core/device.go) land on main. The lead
// deletes this whole file when merging h1 after h2 and h3: every name here is
// defined, with the same meaning, by those helpers.

import (
	"fmt"
	"strconv"
)

// Sentinels (h3: core/errors.go).
var (
	ErrVersion        = newErr(ClassBuffer, "unsupported DLPack major version")
	ErrNdim           = newErr(ClassBuffer, "unsupported number of dimensions")
	ErrShape          = newErr(ClassBuffer, "invalid shape")
	ErrOverflow       = newErr(ClassBuffer, "size overflows int64")
	ErrDType          = newErr(ClassBuffer, "unsupported data type")
	ErrLanes          = newErr(ClassBuffer, "unsupported dtype lanes (only 1 is supported)")
	ErrSubByte        = newErr(ClassBuffer, "unsupported sub-byte data type layout")
	ErrSubByteView    = newErr(ClassValue, "packed sub-byte arrays cannot be viewed or copied")
	ErrDevice         = newErr(ClassBuffer, "unsupported device")
	ErrNullData       = newErr(ClassBuffer, "NULL data pointer for a non-empty tensor")
	ErrNullShape      = newErr(ClassBuffer, "NULL shape pointer with ndim > 0")
	ErrStrides        = newErr(ClassBuffer, "invalid strides")
	ErrReadOnlyLegacy = newErr(ClassBuffer, "read-only array cannot be exported as a legacy (unversioned) capsule")
	ErrReleased       = newErr(ClassValue, "array has been released")
	ErrInternal       = newErr(ClassRuntime, "internal error")
)

// Data types (h3: core/dtype.go).

func (d DataType) ItemBits() int { return int(d.Bits) * int(d.Lanes) }

func (d DataType) IsSubByte() bool { return d.ItemBits() < 8 }

func (d DataType) ItemSize() int64 {
	b := d.ItemBits()
	if b < 8 || b%8 != 0 {
		return 0
	}
	return int64(b / 8)
}

func (d DataType) StorageItemSize(flags uint64) int64 {
	if d.IsSubByte() && d.ItemBits() > 0 && flags&FlagIsSubbyteTypePadded != 0 {
		return 1
	}
	return d.ItemSize()
}

func (d DataType) PackedBytes(n int64) int64 {
	b := int64(d.ItemBits())
	if n < 0 {
		return -1
	}
	if b == 0 || n == 0 {
		return 0
	}
	q, tail := n/8, (n%8*b+7)/8
	if q > (1<<63-1-tail)/b {
		return -1
	}
	return q*b + tail
}

func ValidateDataType(d DataType, flags uint64) error {
	_ = flags
	if d.Lanes != 1 {
		return fmt.Errorf("%w: lanes must be 1", ErrLanes)
	}
	switch d.Code {
	case KDLInt, KDLUInt:
		if d.Bits == 8 || d.Bits == 16 || d.Bits == 32 || d.Bits == 64 {
			return nil
		}
	case KDLFloat:
		if d.Bits == 16 || d.Bits == 32 || d.Bits == 64 {
			return nil
		}
	case KDLBfloat:
		if d.Bits == 16 {
			return nil
		}
	case KDLComplex:
		if d.Bits == 64 || d.Bits == 128 {
			return nil
		}
	case KDLBool:
		if d.Bits == 8 {
			return nil
		}
	case KDLFloat6E2M3FN, KDLFloat6E3M2FN:
		if d.Bits == 6 {
			return nil
		}
		return fmt.Errorf("%w: float6 bits must be 6", ErrSubByte)
	case KDLFloat4E2M1FN:
		if d.Bits == 4 {
			return nil
		}
		return fmt.Errorf("%w: float4 bits must be 4", ErrSubByte)
	default:
		if d.Code >= KDLFloat8E3M4 && d.Code <= KDLFloat8E8M0FNU && d.Bits == 8 {
			return nil
		}
	}
	return fmt.Errorf("%w (code=%d, bits=%d)", ErrDType, d.Code, d.Bits)
}

// Devices (h3: core/device.go).

func KnownDeviceType(t DeviceType) bool {
	return (t >= 1 && t <= 4) || (t >= 7 && t <= 18)
}

func ValidateDevice(d Device) error {
	if !KnownDeviceType(d.Type) {
		return fmt.Errorf("%w: unsupported device type %d", ErrDevice, int(d.Type))
	}
	z := d.Type == KDLCPU || d.Type == KDLCUDAHost || d.Type == KDLCUDAManaged
	if d.ID < 0 || (d.ID != 0 && z) {
		return fmt.Errorf("%w: invalid device id %s", ErrDevice, strconv.Itoa(int(d.ID)))
	}
	return nil
}

// Array (h2: core/array.go), the minimum import/export and its tests use.
type Array struct {
	hdr            Header
	shape, strides []int64
}

func NewArray(h Header, shape, strides []int64) *Array {
	a := &Array{hdr: h, shape: append([]int64(nil), shape[:h.Ndim]...), strides: append([]int64(nil), strides[:h.Ndim]...)}
	if h.Owner != nil {
		h.Owner.Retain()
	}
	return a
}

func (a *Array) Header() Header   { return a.hdr }
func (a *Array) Shape() []int64   { return append([]int64(nil), a.shape...) }
func (a *Array) Strides() []int64 { return append([]int64(nil), a.strides...) }
func (a *Array) Ndim() int        { return int(a.hdr.Ndim) }
func (a *Array) ReadOnly() bool   { return a.hdr.ReadOnly() }

func (a *Array) Release() {
	if a.hdr.Owner != nil {
		a.hdr.Owner.Release()
		a.hdr.Owner = nil
	}
}
