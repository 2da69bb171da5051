package core

import (
	"fmt"
	"strconv"

	"github.com/godlpack/godlpack/core/kernels"
)

// Predefined data types: every scalar type DLPack 1.3 defines, lanes 1.
// Names follow numpy and ml_dtypes (see DataType.String).
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

	// 8-bit floats (DLPack 1.1+).
	Float8E3M4        = DataType{Code: KDLFloat8E3M4, Bits: 8, Lanes: 1}
	Float8E4M3        = DataType{Code: KDLFloat8E4M3, Bits: 8, Lanes: 1}
	Float8E4M3B11FNUZ = DataType{Code: KDLFloat8E4M3B11FNUZ, Bits: 8, Lanes: 1}
	Float8E4M3FN      = DataType{Code: KDLFloat8E4M3FN, Bits: 8, Lanes: 1}
	Float8E4M3FNUZ    = DataType{Code: KDLFloat8E4M3FNUZ, Bits: 8, Lanes: 1}
	Float8E5M2        = DataType{Code: KDLFloat8E5M2, Bits: 8, Lanes: 1}
	Float8E5M2FNUZ    = DataType{Code: KDLFloat8E5M2FNUZ, Bits: 8, Lanes: 1}
	Float8E8M0FNU     = DataType{Code: KDLFloat8E8M0FNU, Bits: 8, Lanes: 1}

	// Sub-byte floats (DLPack 1.1+): packed unless the producer sets
	// FlagIsSubbyteTypePadded.
	Float6E2M3FN = DataType{Code: KDLFloat6E2M3FN, Bits: 6, Lanes: 1}
	Float6E3M2FN = DataType{Code: KDLFloat6E3M2FN, Bits: 6, Lanes: 1}
	Float4E2M1FN = DataType{Code: KDLFloat4E2M1FN, Bits: 4, Lanes: 1}
)

// DataTypes lists every predefined data type, in code then bits order. Do not
// modify.
var DataTypes = []DataType{
	Int8, Int16, Int32, Int64,
	Uint8, Uint16, Uint32, Uint64,
	Float16, Float32, Float64,
	BFloat16,
	Complex64, Complex128,
	Bool,
	Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ, Float8E4M3FN, Float8E4M3FNUZ,
	Float8E5M2, Float8E5M2FNUZ, Float8E8M0FNU,
	Float6E2M3FN, Float6E3M2FN,
	Float4E2M1FN,
}

// lastCode is the largest data type code DLPack 1.3 defines.
const lastCode = KDLFloat4E2M1FN

// fixedNames are the names of the codes that have a single valid bit width
// (codes 6..17), indexed by code. Keep in sync with DataTypes.
var fixedNames = [lastCode + 1]string{
	KDLBool:              "bool",
	KDLFloat8E3M4:        "float8_e3m4",
	KDLFloat8E4M3:        "float8_e4m3",
	KDLFloat8E4M3B11FNUZ: "float8_e4m3b11fnuz",
	KDLFloat8E4M3FN:      "float8_e4m3fn",
	KDLFloat8E4M3FNUZ:    "float8_e4m3fnuz",
	KDLFloat8E5M2:        "float8_e5m2",
	KDLFloat8E5M2FNUZ:    "float8_e5m2fnuz",
	KDLFloat8E8M0FNU:     "float8_e8m0fnu",
	KDLFloat6E2M3FN:      "float6_e2m3fn",
	KDLFloat6E3M2FN:      "float6_e3m2fn",
	KDLFloat4E2M1FN:      "float4_e2m1fn",
}

// fixedBits is the only valid bit width of codes 6..17 (0: several or none).
var fixedBits = [lastCode + 1]uint8{
	KDLBool:              8,
	KDLFloat8E3M4:        8,
	KDLFloat8E4M3:        8,
	KDLFloat8E4M3B11FNUZ: 8,
	KDLFloat8E4M3FN:      8,
	KDLFloat8E4M3FNUZ:    8,
	KDLFloat8E5M2:        8,
	KDLFloat8E5M2FNUZ:    8,
	KDLFloat8E8M0FNU:     8,
	KDLFloat6E2M3FN:      6,
	KDLFloat6E3M2FN:      6,
	KDLFloat4E2M1FN:      4,
}

// String returns the numpy / ml_dtypes name of a predefined type: "bool",
// "int8".."int64", "uint8".."uint64", "float16", "float32", "float64",
// "bfloat16", "complex64", "complex128", "float8_e4m3fn", "float6_e2m3fn",
// "float4_e2m1fn", and so on. It does not allocate for those. Any other value
// is written as "DataType(code=C, bits=B, lanes=L)".
func (d DataType) String() string {
	if d.Lanes == 1 {
		if n := d.name(); n != "" {
			return n
		}
	}
	return fmt.Sprintf("DataType(code=%d, bits=%d, lanes=%d)", d.Code, d.Bits, d.Lanes)
}

// name returns the name of a valid lanes-1 type, or "".
func (d DataType) name() string {
	switch d.Code {
	case KDLInt:
		switch d.Bits {
		case 8:
			return "int8"
		case 16:
			return "int16"
		case 32:
			return "int32"
		case 64:
			return "int64"
		}
	case KDLUInt:
		switch d.Bits {
		case 8:
			return "uint8"
		case 16:
			return "uint16"
		case 32:
			return "uint32"
		case 64:
			return "uint64"
		}
	case KDLFloat:
		switch d.Bits {
		case 16:
			return "float16"
		case 32:
			return "float32"
		case 64:
			return "float64"
		}
	case KDLBfloat:
		if d.Bits == 16 {
			return "bfloat16"
		}
	case KDLComplex:
		switch d.Bits {
		case 64:
			return "complex64"
		case 128:
			return "complex128"
		}
	default:
		if d.Code <= lastCode && fixedBits[d.Code] != 0 && d.Bits == fixedBits[d.Code] {
			return fixedNames[d.Code]
		}
	}
	return ""
}

// ParseDataType returns the data type named name. It accepts every name
// String returns for a predefined type, plus these aliases:
//
//	"bool_"                         numpy's scalar type name for bool
//	"?", "b1"                       bool (numpy type codes)
//	"i1", "i2", "i4", "i8"          int8..int64
//	"u1", "u2", "u4", "u8"          uint8..uint64
//	"f2", "f4", "f8"                float16, float32, float64
//	"c8", "c16"                     complex64, complex128
//
// Names are case-sensitive; byte-order prefixes ("<f4") are not accepted.
// Unknown names wrap ErrDType as a ValueError.
func ParseDataType(name string) (DataType, error) {
	switch name {
	case "bool", "bool_", "?", "b1":
		return Bool, nil
	case "int8", "i1":
		return Int8, nil
	case "int16", "i2":
		return Int16, nil
	case "int32", "i4":
		return Int32, nil
	case "int64", "i8":
		return Int64, nil
	case "uint8", "u1":
		return Uint8, nil
	case "uint16", "u2":
		return Uint16, nil
	case "uint32", "u4":
		return Uint32, nil
	case "uint64", "u8":
		return Uint64, nil
	case "float16", "f2":
		return Float16, nil
	case "float32", "f4":
		return Float32, nil
	case "float64", "f8":
		return Float64, nil
	case "bfloat16":
		return BFloat16, nil
	case "complex64", "c8":
		return Complex64, nil
	case "complex128", "c16":
		return Complex128, nil
	}
	for c := KDLBool; c <= lastCode; c++ {
		if fixedNames[c] == name {
			return DataType{Code: c, Bits: fixedBits[c], Lanes: 1}, nil
		}
	}
	return DataType{}, WithClass(ClassValue,
		"unknown dtype "+strconv.Quote(name)+"; use a name such as \"float32\", \"int64\", \"bool\" or \"float8_e4m3fn\"",
		ErrDType)
}

// ItemBits returns Bits*Lanes, the number of bits of one element.
func (d DataType) ItemBits() int { return int(d.Bits) * int(d.Lanes) }

// IsSubByte reports whether one element takes less than a byte (float6,
// float4, or any bit width below 8).
func (d DataType) IsSubByte() bool { return d.ItemBits() < 8 }

// ItemSize returns the size of one element in bytes: ItemBits/8 for types of
// 8 bits or more. It returns 0 for sub-byte types, whose packed elements do
// not start at byte boundaries (see PackedBytes), and for widths that are not
// a multiple of 8. For sub-byte data that a producer marked with
// FlagIsSubbyteTypePadded use StorageItemSize: each element then fills a
// whole byte.
func (d DataType) ItemSize() int64 {
	b := d.ItemBits()
	if b < 8 || b%8 != 0 {
		return 0
	}
	return int64(b / 8)
}

// StorageItemSize returns the bytes one element occupies in memory given
// DLManagedTensorVersioned flags: ItemSize, except that a sub-byte type with
// FlagIsSubbyteTypePadded set occupies 1 byte (the value sits in the low
// bits). Packed sub-byte types return 0.
func (d DataType) StorageItemSize(flags uint64) int64 {
	if d.IsSubByte() && d.ItemBits() > 0 && flags&FlagIsSubbyteTypePadded != 0 {
		return 1
	}
	return d.ItemSize()
}

// PackedBytes returns the bytes n packed elements occupy: ceil(n*ItemBits/8).
// It returns -1 if that overflows int64 or n is negative.
func (d DataType) PackedBytes(n int64) int64 {
	b := int64(d.ItemBits())
	if n < 0 {
		return -1
	}
	if b == 0 || n == 0 {
		return 0
	}
	// n = 8q + r: n*b/8 = q*b + r*b/8, computed without overflowing n*b.
	q, tail := n/8, (n%8*b+7)/8
	if q > (1<<63-1-tail)/b {
		return -1
	}
	return q*b + tail
}

// ValidateDataType checks an imported data type against the rules godlpack
// imports by (docs/rules.md S6, S7):
//
//   - lanes must be 1, else ErrLanes;
//   - the code must be one DLPack 1.3 defines (0..17) and not
//     kDLOpaqueHandle, else ErrDType;
//   - bits must fit the code: int/uint 8, 16, 32, 64; float 16, 32, 64;
//     bfloat 16; complex 64, 128; bool 8; float8 codes 8; else ErrDType;
//   - float6 codes must say bits=6 and float4 bits=4, else ErrSubByte (a
//     producer that pads sub-byte data still says 6 or 4 and sets
//     FlagIsSubbyteTypePadded).
//
// flags are the DLManagedTensorVersioned flags (0 for legacy tensors).
// FlagIsSubbyteTypePadded is accepted with any type and only changes the
// storage size of sub-byte types (StorageItemSize); layout rules for packed
// data (C-contiguous, offset 0) are checked by the importer, not here.
// ValidateDataType does not allocate when d is valid. Errors wrap the
// sentinel and describe d; callers add the entry point.
func ValidateDataType(d DataType, flags uint64) error {
	if d.Lanes != 1 {
		return dtypeErr(d, ErrLanes, "lanes must be 1")
	}
	switch d.Code {
	case KDLInt, KDLUInt:
		if d.Bits == 8 || d.Bits == 16 || d.Bits == 32 || d.Bits == 64 {
			return nil
		}
		return dtypeErr(d, ErrDType, "integer bits must be 8, 16, 32 or 64")
	case KDLFloat:
		if d.Bits == 16 || d.Bits == 32 || d.Bits == 64 {
			return nil
		}
		return dtypeErr(d, ErrDType, "float bits must be 16, 32 or 64")
	case KDLBfloat:
		if d.Bits == 16 {
			return nil
		}
		return dtypeErr(d, ErrDType, "bfloat bits must be 16")
	case KDLComplex:
		if d.Bits == 64 || d.Bits == 128 {
			return nil
		}
		return dtypeErr(d, ErrDType, "complex bits must be 64 or 128")
	case KDLOpaqueHandle:
		return dtypeErr(d, ErrDType, "opaque handles cannot be imported")
	}
	if d.Code > lastCode {
		return dtypeErr(d, ErrDType, "unknown type code")
	}
	if d.Bits == fixedBits[d.Code] {
		return nil
	}
	switch d.Code {
	case KDLFloat6E2M3FN, KDLFloat6E3M2FN:
		return dtypeErr(d, ErrSubByte, "float6 bits must be 6")
	case KDLFloat4E2M1FN:
		return dtypeErr(d, ErrSubByte, "float4 bits must be 4")
	case KDLBool:
		return dtypeErr(d, ErrDType, "bool bits must be 8")
	}
	return dtypeErr(d, ErrDType, "float8 bits must be 8")
}

func dtypeErr(d DataType, sentinel *Error, why string) error {
	return fmt.Errorf("%w (code=%d, bits=%d, lanes=%d): %s", sentinel, d.Code, d.Bits, d.Lanes, why)
}

// elemKind is dt as the kernels see it; ok is false for the data types no
// kernel takes (sub-byte, vector, opaque, or a width the code lacks).
func elemKind(dt DataType) (kernels.Kind, bool) {
	if dt.Lanes != 1 {
		return 0, false
	}
	switch dt.Code {
	case KDLBool:
		return kernels.Bool, dt.Bits == 8
	case KDLInt, KDLUInt:
		base := kernels.Int8
		if dt.Code == KDLUInt {
			base = kernels.Uint8
		}
		switch dt.Bits {
		case 8:
			return base, true
		case 16:
			return base + 1, true
		case 32:
			return base + 2, true
		case 64:
			return base + 3, true
		}
	case KDLFloat:
		switch dt.Bits {
		case 16:
			return kernels.Float16, true
		case 32:
			return kernels.Float32, true
		case 64:
			return kernels.Float64, true
		}
	case KDLBfloat:
		return kernels.BFloat16, dt.Bits == 16
	case KDLComplex:
		switch dt.Bits {
		case 64:
			return kernels.Complex64, true
		case 128:
			return kernels.Complex128, true
		}
	}
	if dt.Code >= KDLFloat8E3M4 && dt.Code <= KDLFloat8E8M0FNU && dt.Bits == 8 {
		return kernels.Float8E3M4 + kernels.Kind(dt.Code-KDLFloat8E3M4), true
	}
	return 0, false
}
