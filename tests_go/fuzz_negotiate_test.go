package tests_go

import (
	"strings"
	"testing"

	"github.com/godlpack/godlpack/core"
)

// FuzzPlanExport: PlanExport never panics and keeps its promises whatever the
// request: copy=False never yields a copy, a read-only array never goes out as
// legacy, errors carry a Python class other than RuntimeError and name the
// entry point, and a successful plan is self-consistent.
func FuzzPlanExport(f *testing.F) {
	f.Add(int32(1), int32(0), false, false, uint32(0), uint32(0), false, int32(0), int32(0), int8(0), false, int64(0))
	f.Add(int32(1), int32(0), true, true, uint32(1), uint32(3), true, int32(1), int32(0), int8(1), true, int64(-1))
	f.Add(int32(3), int32(0), false, true, uint32(1), uint32(0), true, int32(1), int32(0), int8(2), false, int64(0))
	f.Add(int32(2), int32(1), false, true, uint32(2), uint32(0), false, int32(0), int32(0), int8(0), true, int64(0))
	f.Add(int32(10), int32(0), true, true, uint32(10), uint32(10), true, int32(10), int32(0), int8(-1), true, int64(1<<40))
	f.Fuzz(func(t *testing.T, srcType, srcID int32, readOnly, hasMax bool, major, minor uint32,
		hasDev bool, devType, devID int32, copyMode int8, hasStream bool, stream int64) {
		src := core.Device{Type: core.DeviceType(srcType), ID: srcID}
		req := core.ExportRequest{
			MaxVersion: core.Version{Major: major, Minor: minor}, HasMaxVersion: hasMax,
			DLDevice: core.Device{Type: core.DeviceType(devType), ID: devID}, HasDLDevice: hasDev,
			Copy: core.CopyMode(copyMode), Stream: stream, HasStream: hasStream,
		}
		p, err := core.PlanExport(src, readOnly, req)
		if err != nil {
			if c := core.ClassOf(err); c == core.ClassRuntime {
				t.Fatalf("PlanExport(%v, %v, %+v): error %q has class RuntimeError", src, readOnly, req, err)
			}
			if !strings.HasPrefix(err.Error(), "__dlpack__(): ") {
				t.Fatalf("message %q lacks the entry point", err)
			}
			if p != (core.ExportPlan{}) {
				t.Fatalf("error %v with non-zero plan %+v", err, p)
			}
			return
		}
		if req.Copy == core.CopyNever && p.Copy {
			t.Fatalf("PlanExport(%+v): copy=False yielded a copy", req)
		}
		if req.Copy == core.CopyAlways && !p.Copy {
			t.Fatalf("PlanExport(%+v): copy=True yielded no copy", req)
		}
		if readOnly && !p.Versioned {
			t.Fatalf("PlanExport(%+v): read-only array exported as legacy", req)
		}
		if p.Versioned != (hasMax && major >= 1) {
			t.Fatalf("PlanExport(%+v): versioned=%v", req, p.Versioned)
		}
		if p.Versioned && p.Version != core.DLPackVersion || !p.Versioned && p.Version != (core.Version{}) {
			t.Fatalf("PlanExport(%+v): version %+v", req, p.Version)
		}
		if wantFlags := p.Copy && p.Versioned; (p.ExtraFlags == core.FlagIsCopied) != wantFlags || p.ExtraFlags&^core.FlagIsCopied != 0 {
			t.Fatalf("PlanExport(%+v): flags %#x", req, p.ExtraFlags)
		}
		if p.Target != src && !p.Copy {
			t.Fatalf("PlanExport(%+v): device change %v -> %v without a copy", req, src, p.Target)
		}
		if hasDev && p.Target != req.DLDevice {
			t.Fatalf("PlanExport(%+v): target %v, asked %v", req, p.Target, req.DLDevice)
		}
		if !hasDev && p.Target != src {
			t.Fatalf("PlanExport(%+v): target %v, source %v", req, p.Target, src)
		}
	})
}

// FuzzPlanImport: PlanImport never panics; copy=False never yields a copy;
// errors are classed and name the entry point; the result device is the one
// asked for.
func FuzzPlanImport(f *testing.F) {
	f.Add(int32(1), int32(0), uint64(0), false, int32(0), int32(0), int8(0), false)
	f.Add(int32(3), int32(0), uint64(2), true, int32(1), int32(0), int8(1), true)
	f.Add(int32(2), int32(0), uint64(3), true, int32(1), int32(0), int8(2), true)
	f.Add(int32(13), int32(0), uint64(7), true, int32(2), int32(1), int8(0), false)
	f.Fuzz(func(t *testing.T, gotType, gotID int32, flags uint64, hasDev bool, devType, devID int32, copyMode int8, negotiated bool) {
		got := core.Device{Type: core.DeviceType(gotType), ID: gotID}
		req := core.ImportRequest{
			Device: core.Device{Type: core.DeviceType(devType), ID: devID}, HasDevice: hasDev,
			Copy: core.CopyMode(copyMode), Negotiated: negotiated,
		}
		p, err := core.PlanImport(got, flags, req)
		if err != nil {
			if c := core.ClassOf(err); c == core.ClassRuntime {
				t.Fatalf("PlanImport(%v, %#x, %+v): error %q has class RuntimeError", got, flags, req, err)
			}
			if !strings.HasPrefix(err.Error(), "from_dlpack(): ") {
				t.Fatalf("message %q lacks the entry point", err)
			}
			return
		}
		if req.Copy == core.CopyNever && p.Copy {
			t.Fatalf("PlanImport(%+v): copy=False yielded a copy", req)
		}
		if req.Copy == core.CopyAlways && !p.Copy && !(negotiated && flags&core.FlagIsCopied != 0) {
			t.Fatalf("PlanImport(%+v): copy=True yielded no copy without a producer copy", req)
		}
		if hasDev && p.Device != req.Device || !hasDev && p.Device != got {
			t.Fatalf("PlanImport(%v, %+v): device %v", got, req, p.Device)
		}
		if p.Device != got && !p.Copy {
			t.Fatalf("PlanImport(%v, %+v): device change without a copy", got, req)
		}
	})
}
