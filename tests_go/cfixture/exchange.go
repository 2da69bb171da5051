package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include "godlpack.h"
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// The exchange model of core/exchange.c, driven from Go: a test sets the
// facts, asks for each step and reports what the producer did, as the skin
// (pyext/capsule.c, gd_from_dlpack_into) does.

// Step kinds and outcomes (GD_STEP_*, GD_OUT_*).
const (
	StepDone   = int(C.GD_STEP_DONE)
	StepTake   = int(C.GD_STEP_TAKE)
	StepTorch  = int(C.GD_STEP_TORCH)
	StepAPI    = int(C.GD_STEP_API)
	StepDevice = int(C.GD_STEP_DEVICE)
	StepAsk    = int(C.GD_STEP_ASK)
	StepRaise  = int(C.GD_STEP_RAISE)

	OutDone      = int(C.GD_OUT_DONE)
	OutDeclined  = int(C.GD_OUT_DECLINED)
	OutTypeError = int(C.GD_OUT_TYPE_ERROR)
	OutRetry     = int(C.GD_OUT_RETRY)
)

// ImportFacts is what the skin knows before the first step.
type ImportFacts struct {
	Copy          int32 // core.CopyMode
	Device        *core.Device
	RawCapsule    bool
	Own           bool
	Torch         bool
	HasAPI        bool
	Shadowed      bool
	KW            int32
	StreamDev     int32
	HostCopyTypes uint64
}

// Step is one step, in Go terms.
type Step struct {
	Kind          int
	Keywords      []string // the keywords of a GD_STEP_ASK call, in order
	DLDevice      core.Device
	StreamOn      core.Device
	TensorDevice  core.Device
	HostCopy      bool
	Retried       bool
	NoteKW        int32
	NoteStreamDev int32
	Req           core.ImportRequest
}

// Import is one from_dlpack run through the model.
type Import struct{ s C.gd_import_state }

// NewImport sets up the model's state.
func NewImport(f ImportFacts) *Import {
	im := &Import{}
	s := &im.s
	s.copy = C.int32_t(f.Copy)
	if f.Device != nil {
		s.has_device = 1
		s.device = dlDevice(*f.Device)
	}
	s.raw_capsule = cbool(f.RawCapsule)
	s.own = cbool(f.Own)
	s.torch = cbool(f.Torch)
	s.has_api = cbool(f.HasAPI)
	s.shadowed = cbool(f.Shadowed)
	s.kw = C.int32_t(f.KW)
	s.stream_dev = C.int32_t(f.StreamDev)
	s.host_copy_types = C.uint64_t(f.HostCopyTypes)
	return im
}

// Next returns the next step.
func (im *Import) Next() Step {
	var c C.gd_import_step
	C.gd_import_next(&im.s, &c)
	st := Step{Kind: int(c.kind), HostCopy: c.host_copy != 0, Retried: c.retried != 0,
		NoteKW: int32(c.note_kw), NoteStreamDev: int32(c.note_stream_dev),
		DLDevice: goDevice(c.dl_device), StreamOn: goDevice(c.stream_on), TensorDevice: goDevice(c.tensor_device),
		Req: core.ImportRequestOf(unsafe.Pointer(&c.req))}
	for _, k := range []struct {
		on   C.int32_t
		name string
	}{{c.kw_max_version, "max_version"}, {c.kw_dl_device, "dl_device"}, {c.kw_copy, "copy"}, {c.kw_stream, "stream"}} {
		if k.on != 0 {
			st.Keywords = append(st.Keywords, k.name)
		}
	}
	return st
}

// Report tells the model what the last step did.
func (im *Import) Report(outcome, retry int, rdev core.Device) {
	im.s.outcome = C.int32_t(outcome)
	im.s.retry = C.int32_t(retry)
	im.s.rdev = dlDevice(rdev)
}

// ReportDevice tells the model what x.__dlpack_device__() returned.
func (im *Import) ReportDevice(d core.Device) { im.s.pdev = dlDevice(d) }

func dlDevice(d core.Device) C.DLDevice {
	return C.DLDevice{device_type: C.DLDeviceType(d.Type), device_id: C.int32_t(d.ID)}
}

func goDevice(d C.DLDevice) core.Device {
	return core.Device{Type: core.DeviceType(d.device_type), ID: int32(d.device_id)}
}
