package core

import "strconv"

// CopyMode is the copy keyword of __dlpack__ and from_dlpack.
type CopyMode int32

// Copy modes.
const (
	CopyIfNeeded CopyMode = 0 // copy=None: copy only when the device needs it
	CopyAlways   CopyMode = 1 // copy=True: always copy
	CopyNever    CopyMode = 2 // copy=False: never copy; BufferError if needed
)

// String returns the Python spelling of the mode: "None", "True", "False".
func (c CopyMode) String() string {
	switch c {
	case CopyIfNeeded:
		return "None"
	case CopyAlways:
		return "True"
	case CopyNever:
		return "False"
	}
	return "CopyMode(" + strconv.Itoa(int(c)) + ")"
}

// StreamNoSync is the stream value -1: the consumer asks for no
// synchronization.
const StreamNoSync int64 = -1

// ExportRequest holds the keywords of __dlpack__(*, stream, max_version,
// dl_device, copy), already converted from Python. HasX false means the
// keyword was absent or None.
type ExportRequest struct {
	MaxVersion    Version
	HasMaxVersion bool
	DLDevice      Device
	HasDLDevice   bool
	Copy          CopyMode
	Stream        int64
	HasStream     bool
	// StreamObject: the stream is a Python object, not an int (dpctl's
	// convention for oneAPI: a dpctl.SyclQueue); Stream is then 0.
	StreamObject bool
	// StreamQueue: that object is a dpctl.SyclQueue (the skin recognised
	// its type from gd_type_facts, core/exchange.c).
	StreamQueue bool
}

// ExportPlan says how to answer __dlpack__.
type ExportPlan struct {
	// Versioned: produce a "dltensor_versioned" capsule at Version, else a
	// legacy "dltensor" capsule.
	Versioned bool
	// Version is DLPackVersion when Versioned, else zero.
	Version Version
	// Copy: export a fresh copy on Target instead of a view of the array.
	Copy bool
	// Target is the device of the exported tensor.
	Target Device
	// ExtraFlags are the flags to add to a versioned export
	// (FlagIsCopied when Copy); always 0 for legacy exports.
	ExtraFlags uint64
}

// CanCopy reports whether godlpack can produce a copy on device dst of memory
// that lives on src. src must be memory godlpack can read: a CPU-accessible
// type (kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged) or a device with a
// backend (kDLOneAPI). dst must be kDLCPU:0 or a device with a backend other
// than the host's: copies run host↔device and device↔device through the
// backends (a device that does not exist fails when the copy allocates).
// Exporting a CPU array to a host kind (dl_device=(kDLCUDAHost, 0)) is
// refused: plain CPU memory is not pinned memory and must not be labelled as
// such.
func CanCopy(src, dst Device) bool {
	if !KnownDeviceType(src.Type) || !(CPUAccessible(src.Type) || Reachable(src)) {
		return false
	}
	return dst == CPU || (dst.Type != KDLCPU && Reachable(dst))
}

// streamOK reports whether stream is acceptable for a tensor on device t
// (docs/rules.md P5). godlpack never enqueues device work, so an accepted
// stream never needs synchronization: there is no pending work to wait on.
//
//	CUDA, CUDA managed: -1, 1 (legacy default), 2 (per-thread default), > 2
//	                    (a handle); 0 is ambiguous and refused.
//	ROCm:               -1, 0 (default), > 2 (a handle); 1 and 2 refused.
//	oneAPI:             -1, or an object (dpctl's convention: a dpctl.SyclQueue);
//	                    godlpack's own queue work is complete before any
//	                    export, so there is nothing to order after.
//	anything else (CPU and host kinds included): -1 only.
//
// Only oneAPI takes an object; ints are for the others.
func streamOK(t DeviceType, stream int64, object, queue bool) bool {
	if object {
		return t == KDLOneAPI && queue
	}
	if stream == StreamNoSync {
		return true
	}
	switch t {
	case KDLCUDA, KDLCUDAManaged:
		return stream >= 1
	case KDLROCM:
		return stream == 0 || stream > 2
	}
	return false
}

// PlanExport decides how __dlpack__ answers a request for an array on device
// src (docs/rules.md P1–P5). Checks run in this order; the first failure is
// returned:
//
//  1. copy must be a CopyMode, else ErrCopyArg (ValueError).
//  2. P1: max_version absent or major < 1 → legacy; major ≥ 1 → versioned at
//     DLPackVersion (1.3), whatever the minor or a larger major.
//  3. P2: a read-only array is never exported as legacy, not even as a copy
//     → ErrReadOnlyLegacy (BufferError).
//  4. P3: dl_device absent or equal to src → no copy needed; otherwise a
//     device CanCopy reaches → copy needed; otherwise ErrDevice (BufferError).
//  5. P4: copy=True → copy (IS_COPIED); copy=False with a copy needed →
//     ErrCopyNeeded (BufferError); copy=None → copy only when needed.
//  6. P5: a present stream must suit the target device (see streamOK; on
//     CPU only -1), else ErrStream (BufferError).
//
// Messages start with "__dlpack__(): " and end with the way out. PlanExport
// does not allocate when it succeeds.
func PlanExport(src Device, readOnly bool, req ExportRequest) (ExportPlan, error) {
	var p ExportPlan
	if err := PlanExportTo(src, readOnly, &req, &p); err != nil {
		return ExportPlan{}, err
	}
	return p, nil
}

// PlanExportTo is PlanExport reading the request from *req and writing the
// plan to *out (left zero on error): the form the CPython skin calls on every
// __dlpack__, which saves two struct copies (and the store-forwarding stalls
// of copying a struct just written field by field).
func PlanExportTo(src Device, readOnly bool, req *ExportRequest, out *ExportPlan) error {
	*out = ExportPlan{}
	if err := planExport(src, readOnly, req, out); err != nil {
		*out = ExportPlan{}
		return err
	}
	return nil
}

func planExport(src Device, readOnly bool, req *ExportRequest, p *ExportPlan) error {
	if req.Copy != CopyIfNeeded && req.Copy != CopyAlways && req.Copy != CopyNever {
		return errorf(ErrCopyArg, "__dlpack__(): invalid copy mode %d; pass copy=None, True or False", int(req.Copy))
	}
	p.Versioned = req.HasMaxVersion && req.MaxVersion.Major >= 1
	if readOnly && !p.Versioned {
		if req.HasMaxVersion {
			return errorf(ErrReadOnlyLegacy,
				"__dlpack__(): a read-only array cannot be exported as a legacy capsule (max_version=(%d, %d)); pass max_version=(1, 0) or newer",
				req.MaxVersion.Major, req.MaxVersion.Minor)
		}
		return errorf(ErrReadOnlyLegacy,
			"__dlpack__(): a read-only array cannot be exported as a legacy capsule (max_version=None); pass max_version=(1, 0) or newer")
	}
	if p.Versioned {
		p.Version = DLPackVersion
	}
	p.Target = src
	needCopy := false
	if req.HasDLDevice && req.DLDevice != src {
		if !CanCopy(src, req.DLDevice) {
			return errorf(ErrDevice,
				"__dlpack__(): dl_device=%s cannot be reached from an array on %s; pass dl_device=None or %s",
				req.DLDevice.Tuple(), src, src.Tuple())
		}
		needCopy = true
		p.Target = req.DLDevice
	}
	switch req.Copy {
	case CopyAlways:
		p.Copy = true
	case CopyNever:
		if needCopy {
			return errorf(ErrCopyNeeded,
				"__dlpack__(): copy=False but dl_device=%s needs a copy; pass copy=None or True",
				req.DLDevice.Tuple())
		}
	default:
		p.Copy = needCopy
	}
	if p.Copy && !needCopy && !CanCopy(src, CopyDevice(src)) {
		return errorf(ErrDevice,
			"__dlpack__(): copy=True but godlpack has no memory backend for %s and cannot copy the array there; pass copy=None, or copy it with the library that made it",
			src)
	}
	if req.HasStream && !streamOK(p.Target.Type, req.Stream, req.StreamObject, req.StreamQueue) {
		return streamErr(p.Target.Type, req.Stream, req.StreamObject)
	}
	if p.Copy && p.Versioned {
		p.ExtraFlags = FlagIsCopied
	}
	return nil
}

func streamErr(t DeviceType, stream int64, object bool) error {
	switch {
	case t == KDLOneAPI && object:
		return errorf(ErrUnsupported,
			"__dlpack__(): stream must be None, -1 or a dpctl.SyclQueue for a %s tensor, not another object; pass stream=None or a.sycl_queue", t)
	case t == KDLOneAPI:
		return errorf(ErrStream,
			"__dlpack__(): stream=%d is not a stream of a %s tensor; pass stream=None or a dpctl.SyclQueue", stream, t)
	case object:
		return errorf(ErrUnsupported,
			"__dlpack__(): stream must be None or an int for a %s tensor, not an object; pass stream=None", t)
	}
	switch t {
	case KDLCUDA, KDLCUDAManaged:
		if stream == 0 {
			return errorf(ErrStream,
				"__dlpack__(): stream=0 is ambiguous for a %s tensor; pass stream=1 (legacy default), 2 (per-thread default), a stream handle or -1", t)
		}
		return errorf(ErrStream,
			"__dlpack__(): stream=%d is not a valid stream for a %s tensor; pass stream=None, -1, 1, 2 or a stream handle", stream, t)
	case KDLROCM:
		return errorf(ErrStream,
			"__dlpack__(): stream=%d is not a valid stream for a %s tensor; pass stream=None, -1, 0 or a stream handle", stream, t)
	}
	return errorf(ErrStream,
		"__dlpack__(): stream=%d is not supported for a %s tensor; pass stream=None or -1", stream, t)
}

// ImportRequest holds the keywords of from_dlpack(x, /, *, device, copy)
// and how the tensor reached us.
type ImportRequest struct {
	Device    Device
	HasDevice bool // device keyword given (not None)
	Copy      CopyMode
	// Negotiated: the producer accepted the dl_device and copy keywords
	// (a versioned-era __dlpack__ that did not raise TypeError for them).
	// False for raw capsules (C6: IS_COPIED is then not trusted) and for
	// old producers retried without them.
	Negotiated bool
	// MayAskHostCopy: the tensor came from x.__dlpack__() of a producer that
	// can still be asked again (not a raw capsule, not godlpack's own
	// array, not already a host-copy request).
	MayAskHostCopy bool
	// NoSync: the tensor came through a C exchange API, which never
	// synchronises streams (docs/rules.md C9).
	NoSync bool
	// MayAskStream: the tensor came from x.__dlpack__() of a producer that
	// can be asked again with a stream (not a raw capsule, not godlpack's
	// own array, not already asked with one).
	MayAskStream bool
	// StreamGiven: the producer was asked with stream= godlpack's queue on
	// the tensor's device (ConsumerStream).
	StreamGiven bool
}

// Retry says that from_dlpack must not take the tensor it was handed but
// ask its producer again; the tensor is left unconsumed (C4).
type Retry int32

// Retries.
const (
	RetryNone Retry = 0
	// RetryHostCopy: ask the producer for a host copy,
	// __dlpack__(dl_device=(kDLCPU, 0)) (AsksHostCopy).
	RetryHostCopy Retry = 1
	// RetryDLPack: release the exchange-API tensor and call __dlpack__,
	// which may synchronise the producer's stream.
	RetryDLPack Retry = 2
	// RetryStream: ask the producer again with stream= godlpack's queue on
	// the tensor's device (NeedsConsumerStream, C8).
	RetryStream Retry = 3
)

// ImportPlan says what from_dlpack must do after taking the tensor.
type ImportPlan struct {
	// Retry, when not RetryNone: do not take the tensor; ask again.
	Retry Retry
	// Copy: copy the imported tensor to Device before returning it.
	Copy bool
	// Device is the device of the array from_dlpack returns.
	Device Device
	// Sync: wait for godlpack's queue on the tensor's device once the
	// tensor is taken: the producer ordered its work before that queue.
	Sync bool
}

// CheckImportDevice is the first check of PlanImport, which needs no
// tensor: from_dlpack(x, device=d) for a device godlpack cannot produce (C7)
// is refused before the producer is asked for anything. Without a backend
// for d godlpack can neither copy there nor work with its memory, so it is
// refused even when the tensor already lives there (ErrDevice).
func CheckImportDevice(req ImportRequest) error {
	if req.HasDevice && !CPUAccessible(req.Device.Type) && !Reachable(req.Device) {
		return errorf(ErrDevice,
			"from_dlpack(): godlpack has no memory backend for device=%s; pass device=None or \"cpu\"",
			req.Device)
	}
	return nil
}

// AsksHostCopy reports whether from_dlpack(x) with device=None asks a
// producer whose tensor lives on device type t for a host copy
// (dl_device=(kDLCPU, 0)) instead of holding it: memory the CPU cannot read
// and godlpack has no backend for, except CUDA and ROCm, whose tensors are
// held where they are (torch and cupy take them back zero-copy).
func AsksHostCopy(t DeviceType) bool {
	if CPUAccessible(t) || backendOf(t) != nil || !KnownDeviceType(t) {
		return false
	}
	return t != KDLCUDA && t != KDLROCM
}

// NoSyncImportOK reports whether a tensor on device type t may be taken
// through a C exchange API, which never synchronises: memory no device
// stream writes to (kDLCPU and the pinned host kinds). Others take the
// __dlpack__ path.
func NoSyncImportOK(t DeviceType) bool {
	return t == KDLCPU || t == KDLCUDAHost || t == KDLROCMHost
}

// PlanImport decides, once the tensor is described, what from_dlpack must
// still do itself (docs/rules.md C1, C5–C7, C9). got is the imported
// tensor's device, flags its DLManagedTensorVersioned flags (0 for legacy).
// Checks, in order:
//
//  1. copy must be a CopyMode, else ErrCopyArg (ValueError).
//  2. NoSync and a device NoSyncImportOK refuses → RetryDLPack;
//     MayAskStream, no stream given and NeedsConsumerStream → RetryStream
//     (with the stream given: Sync);
//     MayAskHostCopy, no device keyword and AsksHostCopy → RetryHostCopy.
//  3. device absent or equal to got → no copy needed; otherwise a device
//     CanCopy reaches from got → copy needed; otherwise ErrDevice
//     (BufferError).
//  4. copy=False with a copy needed → ErrCopyNeeded (BufferError; the
//     standard hesitates between ValueError and BufferError).
//  5. copy=True: copy, unless the producer was negotiated with and already
//     copied (FlagIsCopied set). Without negotiation IS_COPIED is not
//     trusted: the producer never saw copy=True. A copy on a device
//     godlpack cannot copy (no backend) → ErrDevice.
//
// A producer that copied although asked copy=False is not an error: the
// result is still a valid array. Messages start with "from_dlpack(): " and
// end with the way out. PlanImport does not allocate when it succeeds.
func PlanImport(got Device, flags uint64, req ImportRequest) (ImportPlan, error) {
	if req.Copy != CopyIfNeeded && req.Copy != CopyAlways && req.Copy != CopyNever {
		return ImportPlan{}, errorf(ErrCopyArg, "from_dlpack(): invalid copy mode %d; pass copy=None, True or False", int(req.Copy))
	}
	if err := CheckImportDevice(req); err != nil {
		return ImportPlan{}, err
	}
	p := ImportPlan{Device: got}
	if req.NoSync && !NoSyncImportOK(got.Type) {
		p.Retry = RetryDLPack
		return p, nil
	}
	if NeedsConsumerStream(got) {
		if req.MayAskStream && !req.StreamGiven {
			p.Retry = RetryStream
			return p, nil
		}
		p.Sync = req.StreamGiven
	}
	if req.MayAskHostCopy && !req.HasDevice && AsksHostCopy(got.Type) {
		p.Retry = RetryHostCopy
		return p, nil
	}
	needCopy := false
	if req.HasDevice && req.Device != got {
		if !CanCopy(got, req.Device) {
			return ImportPlan{}, errorf(ErrDevice,
				"from_dlpack(): device=%s cannot be reached from a tensor on %s; pass device=None or %q",
				req.Device, got, got.String())
		}
		needCopy = true
		p.Device = req.Device
	}
	switch req.Copy {
	case CopyNever:
		if needCopy {
			return ImportPlan{}, errorf(ErrCopyNeeded,
				"from_dlpack(): copy=False but device=%s needs a copy of a tensor on %s; pass copy=None or True",
				req.Device, got)
		}
	case CopyAlways:
		p.Copy = needCopy || !(req.Negotiated && flags&FlagIsCopied != 0)
	default:
		p.Copy = needCopy
	}
	if p.Copy && !needCopy && !CanCopy(got, CopyDevice(got)) {
		return ImportPlan{}, errorf(ErrDevice,
			"from_dlpack(): copy=True but godlpack has no memory backend for %s and cannot copy the tensor there; pass copy=None, or copy it with the library that made it",
			got)
	}
	return p, nil
}
