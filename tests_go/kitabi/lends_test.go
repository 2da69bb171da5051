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
	gofunc.Open() //nolint:errcheck // opened already; a later test's refused registration is its error
	for name, want := range map[string]bool{
		"lentSize": true, "lentBoth": true,
		"lentOtherName": false, "lentOneOfTwo": false, "lentUnnamed": false, "lentNoFacts": false,
		"lentNumber": false, "size": false, "sizeQuick": false,
	} {
		assert.Equal(t, want, gofunc.Opened()[index(t, name)].Lends, name)
	}
}

// A function proved not to keep its array gets it lent from the call's
// frame: no Array allocated per call, and the object reads ErrReleased
// once the call ends. One without the proof borrows a new Array per call.
func TestLendsAllocatesNoArray(t *testing.T) {
	gofunc.Open() //nolint:errcheck // as above
	a, err := core.Zeros(core.Float64, 16)
	require.NoError(t, err)
	defer a.Release()
	args, res := NewSlots(1), NewSlots(1)
	defer args.Free()
	defer res.Free()
	bytes := func(name string) uint64 {
		i := index(t, name)
		call := func() {
			args.SetArray(0, a.Header(), []int64{16}, []int64{1})
			if _, _, err := gofunc.CallC(i, args.Ptr(), 1, res.Ptr(), 0); err != nil || res.Float(0) != 16 {
				panic(fmt.Sprint(name, err, res.Float(0)))
			}
		}
		call()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range 1000 {
			call()
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
	gofunc.Open() //nolint:errcheck // as above
	a, err := core.Zeros(core.Float64, 4)
	require.NoError(t, err)
	defer a.Release()
	args, res := NewSlots(1), NewSlots(1)
	defer args.Free()
	defer res.Free()
	var first *core.Array
	for call := range 3 {
		args.SetArray(0, a.Header(), []int64{4}, []int64{1})
		_, _, err = gofunc.CallC(index(t, "lentRecord"), args.Ptr(), 1, res.Ptr(), 0)
		require.NoError(t, err)
		assert.Equal(t, float64(4), res.Float(0))
		if call == 0 {
			first = lentSeen
		}
		assert.Same(t, first, lentSeen, "call %d: the entry's spare frame's Array", call)
		_, err = lentSeen.Float64s()
		assert.ErrorIs(t, err, core.ErrReleased, "call %d: returned when the call ended", call)
	}
}
