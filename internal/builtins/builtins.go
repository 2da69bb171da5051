package builtins

import (
	"sync"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/gofunc"
)

func init() {
	gofunc.Func2("may_share_memory", MayShareMemory, gofunc.Params(gofunc.Array("a"), gofunc.Array("b")),
		gofunc.Doc("True when the memory of a and b (any arrays: numpy, torch, godlpack, buffers) may overlap:\n"+
			"their byte ranges on the same device intersect. False proves they share nothing; True is the\n"+
			"bounds check of numpy.may_share_memory (zero-copy results share memory with their inputs)."))
	gofunc.Func1("_bench_call", probe, gofunc.Params(gofunc.Array("a")),
		gofunc.Doc("The element count of a as a float (a probe of the kit's call cost)."))
	gofunc.Func1("_bench_call_quick", probe, gofunc.Params(gofunc.Array("a")), gofunc.Quick(),
		gofunc.Doc("_bench_call registered Quick (the GIL held): a probe of the call cost without the GIL's release."))
	gofunc.Proc1("_check_keep", keep, gofunc.Params(gofunc.Array("a")),
		gofunc.Doc("Keeps a in Go beyond the call (Retain) until _check_drop_kept() (python -m godlpack check: an import held in Go)."))
	gofunc.Func1("_check_drop_kept", dropKept, gofunc.Params(gofunc.Arg("on_goroutine").Default(false)),
		gofunc.Doc("Releases what _check_keep kept (on a goroutine of its own, waited for, when on_goroutine); "+
			"returns how many."))
	gofunc.Func1("_bench_box3", box3, gofunc.Params(gofunc.Array("img").DType(core.Float64)),
		gofunc.Doc("The 3x3 box mean of the interior of a float64 image of any layout, through core.ReadRows\n"+
			"(make bench row 13: a stencil over strided views)."))
}

// MayShareMemory reports whether the byte ranges of a and b on one device
// intersect.
func MayShareMemory(a, b *core.Array) (bool, error) {
	if a.Device() != b.Device() || a.Size() == 0 || b.Size() == 0 {
		return false, nil
	}
	lo1, hi1 := extent(a)
	lo2, hi2 := extent(b)
	return lo1 < hi2 && lo2 < hi1, nil
}

// extent is the half-open byte range [lo, hi) the elements of a occupy.
func extent(a *core.Array) (lo, hi uintptr) {
	base := uintptr(a.DataPtr()) + uintptr(a.ByteOffset())
	is := a.ItemSize()
	if is == 0 {
		is = 1
	}
	var neg, pos int64
	sh, st := a.Shape(), a.Strides()
	for k := range sh {
		if st[k] < 0 {
			neg += (sh[k] - 1) * st[k] * is
		} else {
			pos += (sh[k] - 1) * st[k] * is
		}
	}
	return base + uintptr(neg), base + uintptr(pos+is)
}

func probe(a *core.Array) (float64, error) { return float64(a.Size()), nil }

var (
	keptMu sync.Mutex
	kept   []*core.Array
)

func keep(a *core.Array) error {
	k, err := a.Retain()
	if err != nil {
		return err
	}
	keptMu.Lock()
	kept = append(kept, k)
	keptMu.Unlock()
	return nil
}

func dropKept(onGoroutine bool) (int, error) {
	keptMu.Lock()
	ks := kept
	kept = nil
	keptMu.Unlock()
	release := func() {
		for _, k := range ks {
			k.Release()
		}
	}
	if !onGoroutine {
		release()
		return len(ks), nil
	}
	done := make(chan struct{})
	go func() { // on a thread Python does not know, as a kit's background work would be
		defer close(done)
		release()
	}()
	<-done
	return len(ks), nil
}
