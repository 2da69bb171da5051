package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include "godlpack.h"
*/
import "C"

import (
	"math/big"

	"github.com/godlpack/godlpack/core"
)

// ArangePlan is gd_arange's plan (core/arange.c) in Go terms.
type ArangePlan struct {
	N     int64
	Kind  int // GD_ARANGE_*
	DType core.DataType
}

// The arithmetic kinds of a plan.
const (
	ArangeI64   = int(C.GD_ARANGE_I64)
	ArangeU64   = int(C.GD_ARANGE_U64)
	ArangeF64   = int(C.GD_ARANGE_F64)
	ArangeTrunc = int(C.GD_ARANGE_TRUNC)
)

// Arange plans arange over integers (each split into 128 bits as the skin
// splits a Python int; beyond them: wide) when ints is non-nil, else over
// the reals f; dtype nil: numpy's default. It returns the plan, or the
// error class (GD_ERR_*) and message.
func Arange(ints []*big.Int, f []float64, dtype *core.DataType) (ArangePlan, int, string) {
	var r C.gd_arange_req
	if ints != nil {
		r.ints = 1
		mod := new(big.Int).Lsh(big.NewInt(1), 128)
		for k, v := range ints {
			if v.BitLen() > 127 {
				r.wide = 1
			}
			u := new(big.Int).Mod(v, mod) // two's complement in 128 bits
			lo := new(big.Int).And(u, new(big.Int).SetUint64(^uint64(0)))
			hi := new(big.Int).Rsh(u, 64)
			r.lo[k] = C.uint64_t(lo.Uint64())
			r.hi[k] = C.int64_t(int64(hi.Uint64()))
		}
	} else {
		for k, v := range f {
			r.f[k] = C.double(v)
		}
	}
	if dtype != nil {
		r.has_dtype, r.dtype = 1, cdt(*dtype)
	}
	var p C.gd_arange_plan
	var msg [256]C.char
	cls := int(C.gd_arange(&r, &p, &msg[0], C.size_t(len(msg))))
	if cls != 0 {
		return ArangePlan{}, cls, C.GoString(&msg[0])
	}
	dt := core.DataType{Code: core.DataTypeCode(p.dtype.code), Bits: uint8(p.dtype.bits), Lanes: uint16(p.dtype.lanes)}
	return ArangePlan{N: int64(p.n), Kind: int(p.kind), DType: dt}, 0, ""
}
