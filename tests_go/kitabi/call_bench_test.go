package kitabi

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

// BenchmarkCallC is the Go side of a call of a registered function with one
// array argument and a float result (make bench row 10 without the
// crossing and the Python call around it): borrowing a new Array, lending
// the frame's (the compiler's proof, SetNotKept), and a Quick call.
func BenchmarkCallC(b *testing.B) {
	if _, err := gofunc.Open(); err != nil {
		b.Fatal(err)
	}
	a, err := core.Empty(core.Float64, 16)
	require.NoError(b, err)
	defer a.Release()
	for _, name := range []string{"size", "lentSize", "sizeQuick"} {
		b.Run(name, func(b *testing.B) {
			args, res := NewSlots(1), NewSlots(1)
			defer args.Free()
			defer res.Free()
			var t testing.T
			i := index(&t, name)
			b.ReportAllocs()
			for b.Loop() {
				args.SetArray(0, a.Header(), []int64{16}, []int64{1})
				if _, _, err := gofunc.CallC(i, args.Ptr(), 1, res.Ptr(), 0); err != nil || res.Float(0) != 16 {
					b.Fatal(err, res.Float(0))
				}
			}
		})
	}
}
