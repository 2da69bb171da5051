package core

import "fmt"

// PromoteTypes is the dtype that holds the values of both a and b, as
// numpy's np.promote_types gives it for its own dtypes: bool yields to any
// other; integers of one signedness to the wider; a signed and an unsigned
// one to a signed integer wide enough for both (int8 with uint8: int16),
// float64 past int64; an integer with a float or complex to the float width
// that holds it (int8: 16 bits, int16: 32, wider: 64); any complex to the
// complex of that width, at least complex64. bfloat16 and the float8 kinds
// yield to a standard float or complex wider than 16 bits and take bool;
// with anything else (an integer, float16, one another) ok is false: numpy
// with ml_dtypes answers some of those pairs, godlpack asks the caller to
// choose (asarray's dtype=). Sub-byte dtypes promote with themselves only.
func PromoteTypes(a, b DataType) (DataType, bool) {
	if a == b {
		return a, true
	}
	ka, kb := promoKind(a), promoKind(b)
	if ka == kindOther || kb == kindOther {
		x, y := a, b
		if ka != kindOther {
			x, y = b, a
		}
		switch ky := promoKind(y); {
		case x.IsSubByte() || y.IsSubByte():
			return DataType{}, false
		case ky == kindBool:
			return x, true
		case (ky == kindFloat || ky == kindComplex) && y.Bits > 16:
			return y, true
		}
		return DataType{}, false
	}
	switch {
	case ka == kindBool:
		return b, true
	case kb == kindBool:
		return a, true
	case (ka == kindInt || ka == kindUint) && (kb == kindInt || kb == kindUint):
		if ka == kb {
			if a.Bits >= b.Bits {
				return a, true
			}
			return b, true
		}
		s, u := a, b
		if ka == kindUint {
			s, u = b, a
		}
		if s.Bits > u.Bits {
			return s, true
		}
		if u.Bits < 64 {
			return DataType{Code: KDLInt, Bits: 2 * u.Bits, Lanes: 1}, true
		}
		return Float64, true
	}
	fb := max(floatBits(a, ka), floatBits(b, kb))
	if ka == kindComplex || kb == kindComplex {
		return DataType{Code: KDLComplex, Bits: uint8(2 * max(fb, 32)), Lanes: 1}, true
	}
	return DataType{Code: KDLFloat, Bits: uint8(fb), Lanes: 1}, true
}

// ResultType folds PromoteTypes over dts (numpy's np.result_type of arrays):
// the dtype of a stack of arrays of those dtypes. Errors: ErrDType, as
// TypeError, for a pair PromoteTypes does not answer (the message names
// them and asks for dtype=) or no dtypes at all.
func ResultType(where string, dts []DataType) (DataType, error) {
	if len(dts) == 0 {
		return DataType{}, WithClass(ClassType, where+": no dtypes to promote; pass dtype=", ErrDType)
	}
	r := dts[0]
	for _, d := range dts[1:] {
		p, ok := PromoteTypes(r, d)
		if !ok {
			return DataType{}, promoteErr(where, r, d)
		}
		r = p
	}
	return r, nil
}

func promoteErr(where string, a, b DataType) error {
	return WithClass(ClassType, fmt.Sprintf("%s: cannot promote %v with %v to one dtype without a choice; pass dtype=",
		where, a, b), ErrDType)
}

type promotionKind int

const (
	kindBool promotionKind = iota
	kindInt
	kindUint
	kindFloat // float16, float32, float64: numpy's own floats
	kindComplex
	kindOther // bfloat16, the float8 kinds, sub-byte floats: ml_dtypes' in numpy
)

func promoKind(d DataType) promotionKind {
	switch {
	case d == Bool:
		return kindBool
	case d.Code == KDLInt && d.Lanes == 1:
		return kindInt
	case d.Code == KDLUInt && d.Lanes == 1:
		return kindUint
	case d == Float16 || d == Float32 || d == Float64:
		return kindFloat
	case d == Complex64 || d == Complex128:
		return kindComplex
	}
	return kindOther
}

// floatBits is the float width that holds d's values (numpy: int8 and
// uint8 need 16 bits, int16 and uint16 32, wider integers 64).
func floatBits(d DataType, k promotionKind) int {
	switch k {
	case kindFloat:
		return int(d.Bits)
	case kindComplex:
		return int(d.Bits) / 2
	}
	switch d.Bits {
	case 8:
		return 16
	case 16:
		return 32
	}
	return 64
}
