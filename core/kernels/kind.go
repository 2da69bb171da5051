package kernels

// Kind is an element type as the kernels see it: a byte-sized number type
// with a fixed layout. core maps a DLPack data type to its Kind (or to
// none: sub-byte, vector and opaque types never reach a kernel), so that
// this package knows nothing of DLPack's codes.
type Kind uint8

// The kinds. Go has a type for Int8..Float64 and the complex kinds;
// Float16, BFloat16 and the float8 kinds are decoded and encoded here
// (narrow.go). The float8 kinds keep DLPack's order of their codes
// (kDLFloat8_e3m4 first).
const (
	Bool Kind = iota
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Float32
	Float64
	Complex64
	Complex128
	Float16
	BFloat16
	Float8E3M4
	Float8E4M3
	Float8E4M3B11FNUZ
	Float8E4M3FN
	Float8E4M3FNUZ
	Float8E5M2
	Float8E5M2FNUZ
	Float8E8M0FNU
	numKinds // the number of kinds
)

// Size is the bytes of one element of kind k.
func (k Kind) Size() int64 {
	switch k {
	case Int16, Uint16, Float16, BFloat16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64, Complex64:
		return 8
	case Complex128:
		return 16
	}
	return 1
}

// IsFloat8 reports whether k is one of the eight float8 kinds.
func (k Kind) IsFloat8() bool { return k >= Float8E3M4 && k <= Float8E8M0FNU }

// float8Index is k's row in the float8 tables (0 for Float8E3M4).
func (k Kind) float8Index() uint8 { return uint8(k - Float8E3M4) }
