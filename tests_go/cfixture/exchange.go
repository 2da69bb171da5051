package cfixture

/*
#cgo CFLAGS: -I${SRCDIR}/../../core
#include <string.h>
#include "godlpack.h"

static int cf_from_py(void *py, DLManagedTensorVersioned **out) { return -1; }

// A chain of n exchange APIs (ver: major, minor pairs; from_py: whether
// each has managed_tensor_from_py_object_no_sync), the last pointing back
// at the first when cycle: the index gd_exchange_api_spoken picks, or -1.
static int cf_spoken(const uint32_t *ver, const int *from_py, int n, int cycle) {
  DLPackExchangeAPI a[8];
  memset(a, 0, sizeof a);
  for (int i = 0; i < n && i < 8; i++) {
    a[i].header.version.major = ver[2 * i];
    a[i].header.version.minor = ver[2 * i + 1];
    a[i].header.prev_api = i + 1 < n ? &a[i + 1].header : (cycle ? &a[0].header : NULL);
    a[i].managed_tensor_from_py_object_no_sync = from_py[i] ? (DLPackManagedTensorFromPyObjectNoSync)cf_from_py : NULL;
  }
  const DLPackExchangeAPI *r = gd_exchange_api_spoken(n > 0 ? &a[0] : NULL);
  for (int i = 0; i < n && i < 8; i++)
    if (r == &a[i]) return i;
  return -1;
}
*/
import "C"

import (
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

// The exchange model of core/exchange.c, driven from Go: a test sets the
// facts, asks for each step and reports what the producer did, as the skin
// (pyext/import.c, gd_from_dlpack_into) does.

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

// APIVersion is one exchange API of a chain: its version, and whether it
// has managed_tensor_from_py_object_no_sync.
type APIVersion struct {
	Major, Minor uint32
	FromPy       bool
}

// SpokenAPI builds chain (the first the type's own, each one's prev_api the
// next; the last's the first when cycle) and returns the index of the one
// gd_exchange_api_spoken (core/exchange.c) speaks, -1 for none. At most 8.
func SpokenAPI(chain []APIVersion, cycle bool) int {
	var ver [16]C.uint32_t
	var fromPy [8]C.int
	n := min(len(chain), 8)
	for i, a := range chain[:n] {
		ver[2*i], ver[2*i+1] = C.uint32_t(a.Major), C.uint32_t(a.Minor)
		if a.FromPy {
			fromPy[i] = 1
		}
	}
	cyc := C.int(0)
	if cycle {
		cyc = 1
	}
	return int(C.cf_spoken(&ver[0], &fromPy[0], C.int(n), cyc))
}

// ScalarDType is core/scalarkind.c's dtype of a number with facts
// (GD_SF_*) carrying own; ok false: not a number.
func ScalarDType(facts uint32, own core.DataType) (core.DataType, bool) {
	var out C.DLDataType
	if C.gd_scalar_dtype(C.uint32_t(facts), cdt(own), &out) != 0 {
		return core.DataType{}, false
	}
	return core.DataType{Code: core.DataTypeCode(out.code), Bits: uint8(out.bits), Lanes: uint16(out.lanes)}, true
}

// ScalarKind is core/scalarkind.c's kind of such a number (-1: none).
func ScalarKind(facts uint32, own core.DataType) int {
	return int(C.gd_scalar_kind(C.uint32_t(facts), cdt(own)))
}

// KindDType is the dtype of a kind (the widest of a nested sequence).
func KindDType(kind int) core.DataType {
	d := C.gd_kind_dtype(C.int(kind))
	return core.DataType{Code: core.DataTypeCode(d.code), Bits: uint8(d.bits), Lanes: uint16(d.lanes)}
}

// The facts (GD_SF_*).
const (
	SFBool       = uint32(C.GD_SF_BOOL)
	SFInt        = uint32(C.GD_SF_INT)
	SFFloat      = uint32(C.GD_SF_FLOAT)
	SFComplex    = uint32(C.GD_SF_COMPLEX)
	SFDType      = uint32(C.GD_SF_DTYPE)
	SFHasComplex = uint32(C.GD_SF_HAS_COMPLEX)
	SFHasIndex   = uint32(C.GD_SF_HAS_INDEX)
	SFHasFloat   = uint32(C.GD_SF_HAS_FLOAT)
)
