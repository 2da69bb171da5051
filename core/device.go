package core

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/godlpack/godlpack/backends"
)

// deviceNames holds, per DLDeviceType, the enum name and the short name used
// by Device.String and ParseDevice. Numbers 0, 5 and 6 are not device types.
// Keep in sync with the KDL* constants in abi.go.
var deviceNames = [...]struct{ enum, short string }{
	KDLCPU:         {"kDLCPU", "cpu"},
	KDLCUDA:        {"kDLCUDA", "cuda"},
	KDLCUDAHost:    {"kDLCUDAHost", "cuda_host"},
	KDLOpenCL:      {"kDLOpenCL", "opencl"},
	KDLVulkan:      {"kDLVulkan", "vulkan"},
	KDLMetal:       {"kDLMetal", "metal"},
	KDLVPI:         {"kDLVPI", "vpi"},
	KDLROCM:        {"kDLROCM", "rocm"},
	KDLROCMHost:    {"kDLROCMHost", "rocm_host"},
	KDLExtDev:      {"kDLExtDev", "ext_dev"},
	KDLCUDAManaged: {"kDLCUDAManaged", "cuda_managed"},
	KDLOneAPI:      {"kDLOneAPI", "oneapi"},
	KDLWebGPU:      {"kDLWebGPU", "webgpu"},
	KDLHexagon:     {"kDLHexagon", "hexagon"},
	KDLMAIA:        {"kDLMAIA", "maia"},
	KDLTrn:         {"kDLTrn", "trn"},
}

// DeviceTypes lists every device type DLPack 1.3 defines, in numeric order.
// Do not modify.
var DeviceTypes = []DeviceType{
	KDLCPU, KDLCUDA, KDLCUDAHost, KDLOpenCL, KDLVulkan, KDLMetal, KDLVPI,
	KDLROCM, KDLROCMHost, KDLExtDev, KDLCUDAManaged, KDLOneAPI, KDLWebGPU,
	KDLHexagon, KDLMAIA, KDLTrn,
}

// KnownDeviceType reports whether t is a device type DLPack 1.3 defines
// (1..4 and 7..18).
func KnownDeviceType(t DeviceType) bool {
	return t >= 0 && int(t) < len(deviceNames) && deviceNames[t].enum != ""
}

// CPUAccessible reports whether memory of device type t can be read and
// written by the CPU through its data pointers. This is the one place that
// decides it: the device's backend says so when one is registered (kDLCPU);
// otherwise DLPack's host kinds kDLCUDAHost, kDLROCMHost and kDLCUDAManaged
// are CPU-accessible and every other device is not. godlpack's kernels, the
// buffer protocol and copies to kDLCPU serve only such memory.
func CPUAccessible(t DeviceType) bool {
	if b := backendOf(t); b != nil {
		return b.HostAccessible()
	}
	switch t {
	case KDLCUDAHost, KDLROCMHost, KDLCUDAManaged:
		return true
	}
	return false
}

// HostAccessible reports whether the CPU may read and write the memory at
// data on device d: the one rule behind HeaderHost (SetDerivedFlags), the
// buffer protocol, tolist and the Go kernels. A device type the CPU can
// always address (CPUAccessible) says yes for every pointer. A backend whose
// memory kind is a property of each pointer (backends.PointerBackend:
// oneAPI USM, where shared and host memory, and device memory of a CPU
// device, are host memory) is asked about data. Everything else says no. A
// nil data pointer (an empty tensor) addresses nothing and is accessible
// wherever the device's type is.
//
// err is non-nil when the backend does not know the pointer or the device
// (ErrDevice, BufferError: an import refuses such a tensor); a backend
// whose runtime cannot be loaded answers false without error, so that
// memory of a device godlpack cannot reach is still held, as an opaque
// array.
func HostAccessible(d Device, data unsafe.Pointer) (bool, error) {
	if CPUAccessible(d.Type) {
		return true, nil
	}
	if data == nil {
		return false, nil
	}
	pb, ok := backendOf(d.Type).(backends.PointerBackend)
	if !ok {
		return false, nil
	}
	host, err := pb.PointerInfo(d.ID, data)
	switch {
	case err == nil:
		return host, nil
	case errors.Is(err, backends.ErrUnavailable):
		return false, nil
	}
	return false, errorf(ErrDevice, "%s: %v", d, err)
}

// NeedsConsumerStream reports whether a tensor on d must be asked for with
// a stream of godlpack's before its memory is used: its backend is a
// backends.StreamBackend (oneAPI: dpctl's __dlpack__(stream=None) leaves the
// producer's kernels running) whose runtime is loaded and has the device.
// Without the runtime nothing can be synchronised: the tensor is held as it
// is.
func NeedsConsumerStream(d Device) bool {
	sb, ok := backendOf(d.Type).(backends.StreamBackend)
	if !ok {
		return false
	}
	_, err := sb.ConsumerStream(d.ID)
	return err == nil
}

// ConsumerStream returns godlpack's queue on device d as its runtime's
// handle (a DPCTLSyclQueueRef for oneAPI): the stream from_dlpack passes to
// producers on d, and the queue that __sycl_usm_array_interface__ names.
func ConsumerStream(d Device) (unsafe.Pointer, error) {
	sb, ok := backendOf(d.Type).(backends.StreamBackend)
	if !ok {
		return nil, errorf(ErrDevice, "%s has no queue godlpack can name; pass stream=None", d)
	}
	q, err := sb.ConsumerStream(d.ID)
	if err != nil {
		return nil, errorf(ErrDevice, "%s: %v", d, err)
	}
	return q, nil
}

// Reachable reports whether godlpack can allocate on device d and copy
// between it and the host: a registered backend (kDLCPU, kDLOneAPI, ...).
// Whether the device exists is known only when its runtime is asked (the
// allocation or copy then fails with ErrDevice).
func Reachable(d Device) bool { return backendOf(d.Type) != nil }

// CopyDevice is the device of every new array made from an array on d:
// copy(), reshape's copy, astype(), a comparison's or a reduction's result.
// It is d itself when godlpack can allocate there, so that no operation
// moves an array to another device, else the CPU (copies of the pinned host
// kinds, kDLCUDAHost, ..., are plain host memory). The CPU kernels then
// write that memory; they check that the CPU can (ErrDevice otherwise).
func CopyDevice(d Device) Device {
	if d.Type != KDLCPU && Reachable(d) {
		return d
	}
	return CPU
}

// FoldsByteOffset is the byte_offset policy of device d (the one place that
// decides it). true: data pointers are plain host addresses, so an import
// adds byte_offset to data and an export points data at the first element
// with byte_offset 0 (S4). false: DLPack lets data be an opaque handle on
// such devices (OpenCL, Vulkan, Metal, ...; godlpack treats every device
// whose memory the CPU cannot address the same way), so data is kept as the
// producer gave it and the offset travels in byte_offset, both ways. A
// registered backend decides for its device.
func FoldsByteOffset(d Device) bool {
	if b := backendOf(d.Type); b != nil {
		return b.FoldsByteOffset()
	}
	return CPUAccessible(d.Type)
}

// needsZeroID reports whether the device id must be 0 (S8).
func needsZeroID(t DeviceType) bool {
	return t == KDLCPU || t == KDLCUDAHost || t == KDLCUDAManaged
}

// String returns the DLDeviceType enum name, e.g. "kDLCPU", or
// "DeviceType(N)" for numbers DLPack does not define.
func (t DeviceType) String() string {
	if KnownDeviceType(t) {
		return deviceNames[t].enum
	}
	return "DeviceType(" + strconv.Itoa(int(t)) + ")"
}

// ShortName returns the lower-case name used in device strings ("cpu",
// "cuda", "cuda_host", "opencl", "vulkan", "metal", "vpi", "rocm",
// "rocm_host", "ext_dev", "cuda_managed", "oneapi", "webgpu", "hexagon",
// "maia", "trn"), or "" for numbers DLPack does not define.
func (t DeviceType) ShortName() string {
	if KnownDeviceType(t) {
		return deviceNames[t].short
	}
	return ""
}

// String returns "name:id", e.g. "cpu:0" or "cuda:1". Unknown device types
// are written "DeviceType(N):id", which ParseDevice does not accept.
func (d Device) String() string {
	name := d.Type.ShortName()
	if name == "" {
		name = d.Type.String()
	}
	return name + ":" + strconv.Itoa(int(d.ID))
}

// Tuple returns the device as Python writes __dlpack_device__(), e.g.
// "(1, 0)". Used in error messages.
func (d Device) Tuple() string {
	return "(" + strconv.Itoa(int(d.Type)) + ", " + strconv.Itoa(int(d.ID)) + ")"
}

// ParseDevice parses "name" or "name:id": name is a short name ("cpu",
// "cuda", "oneapi", ...; see DeviceType.ShortName) or an enum name
// ("kDLCUDA"), id a non-negative decimal int32 (default 0). No spaces. The
// ids of cpu, cuda_host and cuda_managed must be 0 (DLPack S8). Errors wrap
// ErrDevice as a ValueError.
func ParseDevice(s string) (Device, error) {
	name, idText, hasID := strings.Cut(s, ":")
	t, ok := deviceTypeByName(name)
	if !ok {
		return Device{}, WithClass(ClassValue,
			"unknown device "+strconv.Quote(s)+"; use \"cpu\", \"cuda:N\" or another DLPack device name such as \"oneapi:0\"",
			ErrDevice)
	}
	var id int64
	if hasID {
		var err error
		id, err = strconv.ParseInt(idText, 10, 32)
		if err != nil || !allDigits(idText) {
			return Device{}, WithClass(ClassValue,
				"invalid device id in "+strconv.Quote(s)+"; use a non-negative integer, e.g. \""+t.ShortName()+":0\"",
				ErrDevice)
		}
	}
	if id != 0 && needsZeroID(t) {
		return Device{}, WithClass(ClassValue,
			"device "+strconv.Quote(s)+": the id of "+t.ShortName()+" memory must be 0; use \""+t.ShortName()+"\"",
			ErrDevice)
	}
	return Device{Type: t, ID: int32(id)}, nil
}

// DeviceArg is the device a user's argument names, the one rule for
// device arguments (GD_OP_DEVICE: godlpack.Device, device=): the text s in
// ParseDevice's forms, or, when pair, the pair (t, id), which s then only
// names in messages. The id is a non-negative int32, 0 for the devices
// whose memory has one id (S8). Errors wrap ErrDevice as a ValueError and
// start with where.
func DeviceArg(where, s string, pair bool, t, id int64) (Device, error) {
	if !pair {
		d, err := ParseDevice(s)
		if err != nil {
			return Device{}, WithClass(ClassValue, where+": "+err.Error(), ErrDevice)
		}
		return d, nil
	}
	dt := DeviceType(t)
	if t != int64(dt) || !KnownDeviceType(dt) {
		return Device{}, WithClass(ClassValue, fmt.Sprintf("%s: unknown DLPack device type %d in %s", where, t, s), ErrDevice)
	}
	if id < 0 || id > math.MaxInt32 {
		return Device{}, WithClass(ClassValue,
			fmt.Sprintf("%s: invalid device id in %s; use a non-negative int below 2**31", where, s), ErrDevice)
	}
	if id != 0 && needsZeroID(dt) {
		return Device{}, WithClass(ClassValue, fmt.Sprintf("%s: device %s: the id of %s memory must be 0; use \"%s\"",
			where, s, dt.ShortName(), dt.ShortName()), ErrDevice)
	}
	return Device{Type: dt, ID: int32(id)}, nil
}

func deviceTypeByName(name string) (DeviceType, bool) {
	if name == "" {
		return 0, false
	}
	for _, t := range DeviceTypes {
		if deviceNames[t].short == name || deviceNames[t].enum == name {
			return t, true
		}
	}
	return 0, false
}

// ValidateDevice checks an imported device (S8): the type must be one
// DLPack 1.3 defines, the id non-negative, and 0 for kDLCPU, kDLCUDAHost and
// kDLCUDAManaged. Errors wrap ErrDevice (BufferError); callers add the entry
// point. It does not allocate when d is valid.
func ValidateDevice(d Device) error {
	if !KnownDeviceType(d.Type) {
		return errorf(ErrDevice, "unsupported device type %d", int(d.Type))
	}
	if d.ID < 0 || (d.ID != 0 && needsZeroID(d.Type)) {
		return errorf(ErrDevice, "invalid device id %d for %s", int(d.ID), d.Type)
	}
	return nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
