package kitabi

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

// Functions whose escape facts the tests give by hand (parameter names,
// then the ones proved not kept), as the module main that build-ext
// generates gives the compiler's (gofunc.SetSource, gofunc.SetNotKept).
func init() {
	for _, r := range []struct {
		name    string
		fn      any
		params  []string
		notKept []string
	}{
		{"lentSize", lentSize, []string{"a"}, []string{"a"}},
		{"lentOtherName", lentOtherName, []string{"a"}, []string{"b"}},
		{"lentOneOfTwo", lentOneOfTwo, []string{"a", "b"}, []string{"a"}},
		{"lentBoth", lentBoth, []string{"a", "b"}, []string{"a", "b"}},
		{"lentUnnamed", lentUnnamed, []string{"_", "b"}, []string{"_", "b"}},
		{"lentNoFacts", lentNoFacts, nil, nil},
		{"lentNumber", lentNumber, []string{"x"}, []string{"x"}},
		{"lentRecord", lentRecord, []string{"a"}, []string{"a"}}, // a false fact: the test sees the lending
	} {
		switch fn := r.fn.(type) {
		case func(*core.Array) (float64, error):
			gofunc.Func1(r.name, fn)
		case func(*core.Array, *core.Array) (float64, error):
			gofunc.Func2(r.name, fn)
		case func(float64) (float64, error):
			gofunc.Func1(r.name, fn)
		}
		if r.params != nil {
			goName := runtime.FuncForPC(reflect.ValueOf(r.fn).Pointer()).Name()
			gofunc.SetSource(goName, "", r.params...)
			gofunc.SetNotKept(goName, r.notKept...)
		}
	}
}

var lentSeen *core.Array // what lentRecord was handed last, kept against its fact

func lentSize(a *core.Array) (float64, error)                   { return float64(a.Size()), nil }
func lentNoFacts(a *core.Array) (float64, error)                { return float64(a.Size()), nil }
func lentOtherName(a *core.Array) (float64, error)              { return float64(a.Size()), nil }
func lentOneOfTwo(a, b *core.Array) (float64, error)            { return float64(a.Size() + b.Size()), nil }
func lentBoth(a, b *core.Array) (float64, error)                { return float64(a.Size() + b.Size()), nil }
func lentUnnamed(_ *core.Array, b *core.Array) (float64, error) { return float64(b.Size()), nil }
func lentNumber(x float64) (float64, error)                     { return x, nil }
func lentRecord(a *core.Array) (float64, error)                 { lentSeen = a; return float64(a.Size()), nil }

// An entry lends its arrays only when every array parameter is named and
// proved not kept; numbers need no proof, and a function without arrays
// lends nothing.
func TestLendsNeedsEveryArrayProved(t *testing.T) {
	gofunc.Open() //nolint:errcheck // as in arrayCaller
	for name, want := range map[string]bool{
		"lentSize": true, "lentBoth": true,
		"lentOtherName": false, "lentOneOfTwo": false, "lentUnnamed": false, "lentNoFacts": false,
		"lentNumber": false, "size": false, "sizeQuick": false,
	} {
		assert.Equal(t, want, gofunc.Opened()[index(t, name)].Lends, name)
	}
}

// arrayCaller returns a call of a registered function with one float64
// array of n elements (what make bench row 10 calls), which returns the
// result's slot; what it made is freed when the test ends.
func arrayCaller(t *testing.T, n int64) func(name string) float64 {
	gofunc.Open() //nolint:errcheck // opened already; a later test's refused registration is its error
	a, err := core.Zeros(core.Float64, n)
	require.NoError(t, err)
	args, res := NewSlots(1), NewSlots(1)
	t.Cleanup(func() { args.Free(); res.Free(); a.Release() })
	return func(name string) float64 {
		args.SetArray(0, a.Header(), []int64{n}, []int64{1})
		if _, _, err := gofunc.CallC(index(t, name), args.Ptr(), 1, res.Ptr(), 0); err != nil {
			panic(fmt.Sprint(name, ": ", err))
		}
		return res.Float(0)
	}
}

// A function proved not to keep its array gets it lent from the call's
// frame: no Array allocated per call. One without the proof borrows a new
// Array per call.
func TestLendsAllocatesNoArray(t *testing.T) {
	call := arrayCaller(t, 16)
	bytes := func(name string) uint64 {
		require.Equal(t, float64(16), call(name))
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range 1000 {
			call(name)
		}
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	assert.Less(t, bytes("lentSize"), uint64(1024), "1000 calls of a function that lends")
	assert.Greater(t, bytes("size"), uint64(64_000), "1000 calls of one that borrows (an Array each)")
}

// The lent Array is the frame's: a call that ends returns it (ErrReleased),
// and the next call through the same frame is lent the same object.
func TestLendsReturnsTheArray(t *testing.T) {
	call := arrayCaller(t, 4)
	var first *core.Array
	for n := range 3 {
		assert.Equal(t, float64(4), call("lentRecord"))
		if n == 0 {
			first = lentSeen
		}
		assert.Same(t, first, lentSeen, "call %d: the entry's spare frame's Array", n)
		_, err := lentSeen.Float64s()
		assert.ErrorIs(t, err, core.ErrReleased, "call %d: returned when the call ended", n)
	}
}
