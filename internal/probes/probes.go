package probes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

func init() {
	gofunc.Func1("_gofunc_spin", spin, gofunc.Params(gofunc.Arg("seconds")), gofunc.Quick(),
		gofunc.Doc("Busy-waits seconds holding the GIL (a test probe of Quick); returns True."))
	gofunc.Func2("_gofunc_describe", describe, gofunc.Params(gofunc.Array("a"), gofunc.Arg("prefix").Default("")),
		gofunc.Doc("prefix + the dtype, shape, strides and read-only flag of a as Go sees them."))
	gofunc.Func6("_gofunc_scalars", scalars, gofunc.Params(gofunc.Arg("i"), gofunc.Arg("f"), gofunc.Arg("b"),
		gofunc.Arg("c"), gofunc.Arg("s"), gofunc.Arg("n").Default([]int64{2, 3})),
		gofunc.Doc("The scalar arguments as Go received them, formatted (a test probe)."))
	gofunc.Func1("_gofunc_tuple", tuple, gofunc.Params(gofunc.Arg("i")), gofunc.Doc("(-i, [i, i], complex(i, 1)) (a test probe of tuple results)."))
	gofunc.Proc1("_gofunc_fail", failWith, gofunc.Params(gofunc.Arg("how")),
		gofunc.Doc("Returns the error (or panic) named by how (a test probe)."))
	gofunc.Proc2("_gofunc_fill", fill, gofunc.Params(gofunc.Array("a").DType(core.Float64).Contiguous().Writable(), gofunc.Arg("v")),
		gofunc.Doc("Writes v into every element of a, in place (a test probe)."))
	gofunc.Func1("_gofunc_arange", arange, gofunc.Params(gofunc.Arg("n")),
		gofunc.Doc("A new float64 array 0, 1, ..., n-1 made in Go (a test probe of array results)."))
	gofunc.Func1("_gofunc_pair", pair, gofunc.Params(gofunc.Array("a")),
		gofunc.Doc("(a, a transposed): the input handed back, and a view of it (a test probe)."))
	gofunc.Func0("_gofunc_stale", stale, gofunc.Doc("Returns an array it released (a test probe of the refusal)."))
	gofunc.Func2("_gofunc_sleep", sleep, gofunc.Params(gofunc.Arg("seconds")),
		gofunc.Doc("Waits seconds or until Ctrl-C cancels its context; True when cancelled (a test probe)."))
	gofunc.Func1("_gofunc_write_any", writeAny, gofunc.Params(gofunc.Array("a")),
		gofunc.Doc("Tries to write a through core's typed slices and Set; returns the error text (a test probe)."))
}

func spin(seconds float64) (bool, error) {
	end := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	for time.Now().Before(end) {
	}
	return true, nil
}

func describe(a *core.Array, prefix string) (string, error) {
	return fmt.Sprintf("%s%v %v %v readonly=%v", prefix, a.DType(), a.Shape(), a.Strides(), a.ReadOnly()), nil
}

func scalars(i int64, f float64, b bool, c complex128, s string, n []int64) (string, error) {
	return fmt.Sprintf("i=%d f=%v b=%v c=%v s=%s n=%v", i, f, b, c, s, n), nil
}

func tuple(i int64) (gofunc.Tuple3[int64, []int64, complex128], error) {
	return gofunc.T3(-i, []int64{i, i}, complex(float64(i), 1)), nil
}

func failWith(how string) error {
	switch how {
	case "value":
		return core.WithClass(core.ClassValue, "the value is wrong; pass another", core.ErrUnsupported)
	case "index":
		return fmt.Errorf("no such element: %w", core.ErrIndex)
	case "plain":
		return errors.New("a plain Go error")
	case "prefixed":
		return errors.New("_gofunc_fail(): already prefixed")
	case "panic":
		var m map[string]int
		m["x"] = 1 // a nil map write: a runtime panic
	}
	return nil
}

func fill(a *core.Array, v float64) error {
	s, err := a.Float64s()
	if err != nil {
		return err
	}
	for i := range s {
		s[i] = v
	}
	return nil
}

func arange(n int64) (*core.Array, error) {
	a, err := core.Empty(core.Float64, n)
	if err != nil {
		return nil, err
	}
	s, err := a.Float64s()
	if err != nil {
		a.Release()
		return nil, err
	}
	for i := range s {
		s[i] = float64(i)
	}
	return a, nil
}

func pair(a *core.Array) (gofunc.Tuple2[*core.Array, *core.Array], error) {
	return gofunc.T2(a, a.T()), nil
}

func stale() (*core.Array, error) {
	a, err := core.Zeros(core.Float32, 2)
	if err != nil {
		return nil, err
	}
	a.Release()
	return a, nil
}

func sleep(ctx context.Context, seconds float64) (bool, error) {
	t := time.NewTimer(time.Duration(seconds * float64(time.Second)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return true, nil
	case <-t.C:
		return false, nil
	}
}

func writeAny(a *core.Array) (string, error) {
	var errs []string
	if _, err := a.Bytes(); err != nil {
		errs = append(errs, err.Error())
	}
	if _, err := a.Float64s(); err != nil {
		errs = append(errs, err.Error())
	}
	if err := core.Set(a, 1.0, make([]int64, a.Ndim())...); err != nil {
		errs = append(errs, err.Error())
	}
	return fmt.Sprint(errs), nil
}
