package gofunc

import (
	"context"
	"fmt"

	"github.com/godlpack/godlpack/core"
)

// Kind is the Python-facing kind of a parameter or result.
type Kind uint8

// Kinds. The numbers cross into the C skin (core/godlpack.h, GD_FN_*; checked in cabi.go).
const (
	KindArray   Kind = 1 // *core.Array <-> godlpack.Array (any DLPack / buffer object in)
	KindInt     Kind = 2 // int, int64 <-> int
	KindFloat   Kind = 3 // float64 <-> float
	KindBool    Kind = 4 // bool <-> bool
	KindComplex Kind = 5 // complex128 <-> complex
	KindString  Kind = 6 // string <-> str
	KindInts    Kind = 7 // []int64 <-> int or sequence of ints (result: tuple of ints)
	KindContext Kind = 8 // context.Context: not a Python argument
)

// PyType returns the Python annotation of the kind (stubs, docstrings).
func (k Kind) PyType() string {
	switch k {
	case KindArray:
		return "Array"
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindBool:
		return "bool"
	case KindComplex:
		return "complex"
	case KindString:
		return "str"
	case KindInts:
		return "tuple[int, ...]"
	}
	return "None"
}

// Value is one argument or result on its way between the skin and a Go
// function. Only the field of its Kind is meaningful.
type Value struct {
	Kind  Kind
	I     int64 // KindInt, KindBool (0 or 1)
	F     float64
	C     complex128
	S     string
	Ints  []int64
	Array *core.Array
	Ctx   context.Context
}

// kindOf is the Kind of the Go type T, decided once at registration.
func kindOf[T any]() (Kind, error) {
	var z T
	switch any(&z).(type) {
	case **core.Array:
		return KindArray, nil
	case *int, *int64:
		return KindInt, nil
	case *float64:
		return KindFloat, nil
	case *bool:
		return KindBool, nil
	case *complex128:
		return KindComplex, nil
	case *string:
		return KindString, nil
	case *[]int64:
		return KindInts, nil
	case *context.Context:
		return KindContext, nil
	}
	return 0, fmt.Errorf("gofunc: type %T is not a supported parameter or result type "+
		"(*core.Array, int, int64, float64, bool, complex128, string, []int64, context.Context)", z)
}

// get reads a T out of v (its kind checked at registration): no reflection,
// no allocation.
func get[T any](v *Value) (out T) {
	switch p := any(&out).(type) {
	case **core.Array:
		*p = v.Array
	case *int:
		*p = int(v.I)
	case *int64:
		*p = v.I
	case *float64:
		*p = v.F
	case *bool:
		*p = v.I != 0
	case *complex128:
		*p = v.C
	case *string:
		*p = v.S
	case *[]int64:
		*p = v.Ints
	case *context.Context:
		*p = v.Ctx
	}
	return out
}

// put stores x into v.
func put[T any](v *Value, x T) {
	switch p := any(&x).(type) {
	case **core.Array:
		v.Kind, v.Array = KindArray, *p
	case *int:
		v.Kind, v.I = KindInt, int64(*p)
	case *int64:
		v.Kind, v.I = KindInt, *p
	case *float64:
		v.Kind, v.F = KindFloat, *p
	case *bool:
		v.Kind, v.I = KindBool, 0
		if *p {
			v.I = 1
		}
	case *complex128:
		v.Kind, v.C = KindComplex, *p
	case *string:
		v.Kind, v.S = KindString, *p
	case *[]int64:
		v.Kind, v.Ints = KindInts, *p
	}
}

// Tuple2 is a result of two values: a Python tuple.
type Tuple2[A, B any] struct {
	A A
	B B
}

// Tuple3 is a result of three values: a Python tuple.
type Tuple3[A, B, C any] struct {
	A A
	B B
	C C
}

// T2 returns Tuple2{a, b}.
func T2[A, B any](a A, b B) Tuple2[A, B] { return Tuple2[A, B]{a, b} }

// T3 returns Tuple3{a, b, c}.
func T3[A, B, C any](a A, b B, c C) Tuple3[A, B, C] { return Tuple3[A, B, C]{a, b, c} }

type tuple interface {
	kinds() ([]Kind, error)
	store(dst []Value)
}

func (t Tuple2[A, B]) kinds() ([]Kind, error) { return kindsOf(kindOf[A], kindOf[B]) }
func (t Tuple2[A, B]) store(dst []Value)      { put(&dst[0], t.A); put(&dst[1], t.B) }

func (t Tuple3[A, B, C]) kinds() ([]Kind, error) { return kindsOf(kindOf[A], kindOf[B], kindOf[C]) }
func (t Tuple3[A, B, C]) store(dst []Value) {
	put(&dst[0], t.A)
	put(&dst[1], t.B)
	put(&dst[2], t.C)
}

func kindsOf(fs ...func() (Kind, error)) ([]Kind, error) {
	out := make([]Kind, len(fs))
	for i, f := range fs {
		k, err := f()
		if err != nil {
			return nil, err
		}
		if k == KindContext {
			return nil, fmt.Errorf("gofunc: context.Context cannot be a result")
		}
		out[i] = k
	}
	return out, nil
}

// resultKinds returns the Python results of R: one kind, or a tuple's.
func resultKinds[R any]() (kinds []Kind, isTuple bool, err error) {
	var z R
	if t, ok := any(z).(tuple); ok {
		ks, err := t.kinds()
		return ks, true, err
	}
	ks, err := kindsOf(kindOf[R])
	return ks, false, err
}

// storeResult writes r into dst (one value, or a tuple's).
func storeResult[R any](dst []Value, r R, isTuple bool) {
	if isTuple {
		any(r).(tuple).store(dst)
		return
	}
	put(&dst[0], r)
}
