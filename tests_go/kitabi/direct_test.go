package kitabi

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

// Functions whose every parameter and result a direct call carries (gofunc's
// callDirect): each kind of number in and out, arrays lent and borrowed, and
// no result.
func init() {
	gofunc.Func6("mix", func(a *core.Array, i int, j int64, x float64, b bool, z complex128) (complex128, error) {
		s, err := a.Float64s()
		if err != nil {
			return 0, err
		}
		sign := 1.0
		if b {
			sign = -1
		}
		return complex(s[0]+float64(i)+float64(1000*j)+x, sign*float64(a.Size())) * z, nil
	})
	gofunc.Func2("above", func(x float64, lim int) (bool, error) { return x > float64(lim), nil }, gofunc.Quick())
	gofunc.Func2("count", func(a *core.Array, b bool) (int, error) {
		if b {
			return int(a.Size()), nil
		}
		return -int(a.Ndim()), nil
	})
	gofunc.Func1("width", func(a *core.Array) (int64, error) { return a.ItemSize() * a.Size(), nil }, gofunc.Quick())
	gofunc.Proc2("fill", func(a *core.Array, x float64) error {
		s, err := a.Float64s()
		if err != nil {
			return err
		}
		for i := range s {
			s[i] = x
		}
		return nil
	})
	gofunc.Func2("pick", func(a, b *core.Array) (*core.Array, error) {
		if a.Size() >= b.Size() {
			return a, nil
		}
		return b, nil
	}, gofunc.Quick())
}

// TestDirectCallsMatchTheFrame calls each function through the C ABI, where
// every argument is given with its kind (the direct path), and through
// Entry.Call (Values in a Frame), and expects the same answers.
func TestDirectCallsMatchTheFrame(t *testing.T) {
	_, err := gofunc.Open()
	require.NoError(t, err)
	a, err := core.Empty(core.Float64, 2, 3)
	require.NoError(t, err)
	defer a.Release()
	s, _ := a.Float64s()
	for i := range s {
		s[i] = float64(i) + 0.5
	}
	b, err := core.Zeros(core.Float64, 7)
	require.NoError(t, err)
	defer b.Release()

	type arg struct {
		v   gofunc.Value
		set func(sl *Slots, k int)
	}
	arr := func(x *core.Array) arg {
		return arg{gofunc.Value{Kind: gofunc.KindArray, Array: x},
			func(sl *Slots, k int) { sl.SetArray(k, x.Header(), x.Shape(), x.Strides()) }}
	}
	num := func(x float64) arg {
		return arg{gofunc.Value{Kind: gofunc.KindFloat, F: x}, func(sl *Slots, k int) { sl.SetFloat(k, x) }}
	}
	integer := func(x int64) arg {
		return arg{gofunc.Value{Kind: gofunc.KindInt, I: x}, func(sl *Slots, k int) { sl.SetInt(k, x) }}
	}
	boolean := func(x bool) arg {
		v := gofunc.Value{Kind: gofunc.KindBool}
		if x {
			v.I = 1
		}
		return arg{v, func(sl *Slots, k int) { sl.SetBool(k, x) }}
	}
	cplx := func(x complex128) arg {
		return arg{gofunc.Value{Kind: gofunc.KindComplex, C: x}, func(sl *Slots, k int) { sl.SetComplex(k, x) }}
	}
	cases := []struct {
		name string
		args []arg
		want any
	}{
		{"mix", []arg{arr(a), integer(2), integer(3), num(0.25), boolean(true), cplx(1i)}, complex(6, 3002.75)},
		{"mix", []arg{arr(a), integer(-2), integer(0), num(1), boolean(false), cplx(2)}, complex(-1, 12)},
		{"above", []arg{num(2.5), integer(2)}, true},
		{"above", []arg{num(2.5), integer(3)}, false},
		{"count", []arg{arr(a), boolean(true)}, int64(6)},
		{"count", []arg{arr(a), boolean(false)}, int64(-2)},
		{"width", []arg{arr(b)}, int64(56)},
		{"fill", []arg{arr(b), num(4)}, nil},
		{"pick", []arg{arr(a), arr(b)}, []int64{7}},
		{"pick", []arg{arr(b), arr(a)}, []int64{7}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s%v", c.name, c.want), func(t *testing.T) {
			e := gofunc.Opened()[index(t, c.name)]
			vals := make([]gofunc.Value, len(c.args))
			slots, res := NewSlots(len(c.args)), NewSlots(1)
			defer slots.Free()
			defer res.Free()
			for k, x := range c.args {
				vals[k] = x.v
				x.set(slots, k)
			}
			frame := make([]gofunc.Value, len(e.Results))
			require.NoError(t, e.Call(context.Background(), vals, frame))
			_, _, err := gofunc.CallC(index(t, c.name), slots.Ptr(), len(c.args), res.Ptr(), 0)
			require.NoError(t, err)
			switch want := c.want.(type) {
			case nil:
				assert.Empty(t, frame)
				assert.Zero(t, res.Kind(0), "no result: None")
				got, _ := b.Float64s()
				assert.Equal(t, []float64{4, 4, 4, 4, 4, 4, 4}, got, "written through the borrowed array")
			case complex128:
				assert.Equal(t, want, frame[0].C)
				assert.Equal(t, int(gofunc.KindComplex), res.Kind(0))
				assert.Equal(t, want, res.Complex(0))
			case bool:
				assert.Equal(t, want, frame[0].I != 0)
				assert.Equal(t, int(gofunc.KindBool), res.Kind(0))
				assert.Equal(t, want, res.Int(0) != 0)
			case int64:
				assert.Equal(t, want, frame[0].I)
				assert.Equal(t, int(gofunc.KindInt), res.Kind(0))
				assert.Equal(t, want, res.Int(0))
			case []int64:
				assert.Equal(t, want, frame[0].Array.Shape())
				require.Equal(t, int(gofunc.KindArray), res.Kind(0))
				h, shape := res.Array(0)
				assert.Equal(t, want, shape)
				assert.Equal(t, b.DataPtr(), h.Data, "the argument itself, with a reference of its own")
				require.NotNil(t, h.Owner)
				h.Owner.Release()
			}
		})
	}
}
