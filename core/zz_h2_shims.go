package core

// TEMPORARY (helper h2): copies of names that helper h3 defines in
// core/errors.go and core/dtype.go, so that h2's files build before main has
// them. The lead deletes this whole file when merging h2 after h3.

// Sentinels used by h2's files (same names, classes and messages as h3's).
var (
	ErrNdim        = newErr(ClassBuffer, "unsupported number of dimensions")
	ErrShape       = newErr(ClassBuffer, "invalid shape")
	ErrOverflow    = newErr(ClassBuffer, "size overflows int64")
	ErrDType       = newErr(ClassBuffer, "unsupported data type")
	ErrLanes       = newErr(ClassBuffer, "unsupported dtype lanes (only 1 is supported)")
	ErrSubByteView = newErr(ClassValue, "packed sub-byte arrays cannot be viewed or copied")
	ErrDevice      = newErr(ClassBuffer, "unsupported device")
	ErrStrides     = newErr(ClassBuffer, "invalid strides")
	ErrReadOnly    = newErr(ClassValue, "array is read-only")
	ErrIndex       = newErr(ClassIndex, "index out of range")
	ErrAxis        = newErr(ClassIndex, "axis out of range")
	ErrReshape     = newErr(ClassValue, "cannot reshape")
	ErrReleased    = newErr(ClassValue, "array has been released")
	ErrUnsupported = newErr(ClassType, "operation not supported")
	ErrInternal    = newErr(ClassRuntime, "internal error")
)

// Predefined data types (h3: core/dtype.go).
var (
	Bool = DataType{Code: KDLBool, Bits: 8, Lanes: 1}

	Int8  = DataType{Code: KDLInt, Bits: 8, Lanes: 1}
	Int16 = DataType{Code: KDLInt, Bits: 16, Lanes: 1}
	Int32 = DataType{Code: KDLInt, Bits: 32, Lanes: 1}
	Int64 = DataType{Code: KDLInt, Bits: 64, Lanes: 1}

	Uint8  = DataType{Code: KDLUInt, Bits: 8, Lanes: 1}
	Uint16 = DataType{Code: KDLUInt, Bits: 16, Lanes: 1}
	Uint32 = DataType{Code: KDLUInt, Bits: 32, Lanes: 1}
	Uint64 = DataType{Code: KDLUInt, Bits: 64, Lanes: 1}

	Float16  = DataType{Code: KDLFloat, Bits: 16, Lanes: 1}
	Float32  = DataType{Code: KDLFloat, Bits: 32, Lanes: 1}
	Float64  = DataType{Code: KDLFloat, Bits: 64, Lanes: 1}
	BFloat16 = DataType{Code: KDLBfloat, Bits: 16, Lanes: 1}

	Complex64  = DataType{Code: KDLComplex, Bits: 64, Lanes: 1}
	Complex128 = DataType{Code: KDLComplex, Bits: 128, Lanes: 1}

	Float8E4M3FN = DataType{Code: KDLFloat8E4M3FN, Bits: 8, Lanes: 1}
	Float8E5M2   = DataType{Code: KDLFloat8E5M2, Bits: 8, Lanes: 1}
	Float6E2M3FN = DataType{Code: KDLFloat6E2M3FN, Bits: 6, Lanes: 1}
	Float4E2M1FN = DataType{Code: KDLFloat4E2M1FN, Bits: 4, Lanes: 1}
)

// ItemBits returns Bits*Lanes (h3: core/dtype.go).
func (d DataType) ItemBits() int { return int(d.Bits) * int(d.Lanes) }

// IsSubByte reports whether one element takes less than a byte.
func (d DataType) IsSubByte() bool { return d.ItemBits() < 8 }

// ItemSize returns the bytes of one element; 0 for sub-byte types.
func (d DataType) ItemSize() int64 {
	b := d.ItemBits()
	if b < 8 || b%8 != 0 {
		return 0
	}
	return int64(b / 8)
}

// PackedBytes returns ceil(n*ItemBits/8), or -1 on overflow or n < 0.
func (d DataType) PackedBytes(n int64) int64 {
	b := int64(d.ItemBits())
	if n < 0 {
		return -1
	}
	if b == 0 || n == 0 {
		return 0
	}
	if n > (1<<63-1-7)/b {
		return -1
	}
	return (n*b + 7) / 8
}

// ErrNullData (h3: core/errors.go).
var ErrNullData = newErr(ClassBuffer, "NULL data pointer for a non-empty tensor")
