package core

import (
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/backends"
	"github.com/godlpack/godlpack/core/kernels"
)

// Copies and fills that touch memory the CPU cannot address (HeaderHost
// clear on a device with a backend). The device's queue moves bytes; the
// strided work runs on the host. A side that is not one dense block is
// staged: its whole byte extent comes to a host buffer, the host kernel
// copies or fills there, and a destination goes back whole (so the bytes
// between its elements are written back as they were read).

// hostAccessible reports whether the CPU may address h's memory: a device
// type the CPU always reads, or a per-pointer device (oneAPI) whose derived
// flag says so (HostAccessible, asked when the header was made). The flag
// alone is not trusted on other devices: a header copied and given another
// device by hand keeps a stale one.
func (h *Header) hostAccessible() bool {
	if CPUAccessible(h.Device.Type) {
		return true
	}
	if h.Flags&HeaderHost == 0 {
		return false
	}
	_, ok := backendOf(h.Device.Type).(backends.PointerBackend)
	return ok
}

// notHostErr is the error of an operation that needs the CPU to address
// device memory that it cannot.
func notHostErr(where string, h *Header) error {
	return errorf(ErrDevice, "%s: the array's %s memory is not accessible from the CPU; copy it first with a.to_device(\"cpu\")",
		where, h.Device)
}

// staged is one side of a device copy, seen from the host.
type staged struct {
	b      backends.Backend
	id     int32
	lo     unsafe.Pointer // device address of the extent
	n      int64          // extent bytes
	tmp    unsafe.Pointer // host buffer of n bytes (nil: not staged)
	elem0  unsafe.Pointer // host address of element 0
	direct unsafe.Pointer // device address of element 0
}

// stage prepares side h (element 0 at e0, size > 0 elements of k bytes).
// A host-accessible side is used in place. read copies the device extent to
// the host buffer.
func stage(where string, h *Header, shape, strides []int64, k int64, read bool) (staged, error) {
	e0 := unsafe.Add(h.Data, h.Offset*k)
	if h.hostAccessible() {
		return staged{elem0: e0, direct: e0}, nil
	}
	b := backendOf(h.Device.Type)
	if b == nil {
		return staged{}, fmt.Errorf("%s: %v to the host needs a device backend: %w", where, h.Device, ErrDevice)
	}
	lo, hi := span(shape, strides, k)
	s := staged{b: b, id: h.Device.ID, lo: unsafe.Add(e0, lo), n: hi - lo, direct: e0}
	host := hostBackend()
	tmp, err := host.Allocate(0, s.n, false)
	if err != nil {
		return staged{}, fmt.Errorf("%s: cannot allocate a %d-byte host buffer: %w", where, s.n, ErrNoMemory)
	}
	s.tmp = tmp
	s.elem0 = unsafe.Add(tmp, -lo)
	if read {
		if err := b.CopyToHost(s.id, tmp, s.lo, s.n); err != nil {
			host.Free(tmp)
			return staged{}, deviceErr(where, h.Device, err)
		}
	}
	return s, nil
}

// flush writes a staged destination back to its device.
func (s *staged) flush(where string, d Device) error {
	if s.tmp == nil {
		return nil
	}
	if err := s.b.CopyFromHost(s.id, s.lo, s.tmp, s.n); err != nil {
		return deviceErr(where, d, err)
	}
	return nil
}

func (s *staged) free() {
	if s.tmp != nil {
		hostBackend().Free(s.tmp)
		s.tmp = nil
	}
}

func deviceErr(where string, d Device, err error) error {
	return errorf(ErrDevice, "%s: %s: %v", where, d, err)
}

// span returns the byte range [lo, hi) that a non-empty array touches,
// relative to its element 0 (lo <= 0).
func span(shape, strides []int64, k int64) (lo, hi int64) {
	for i, d := range shape {
		s := (d - 1) * strides[i] * k
		if s < 0 {
			lo += s
		} else {
			hi += s
		}
	}
	return lo, hi + k
}

// dense reports whether size elements of k bytes under strides fill their
// extent exactly (one block, any order).
func dense(shape, strides []int64, k, size int64) bool {
	lo, hi := span(shape, strides, k)
	return hi-lo == size*k
}

// copyDevice is CopyInto when one side is memory the CPU cannot address.
// Shapes, dtypes and sizes are checked; size > 0.
func copyDevice(where string, dst *Header, dstStrides []int64, src *Header, srcStrides []int64, shape []int64, k, size int64) error {
	dp := unsafe.Add(dst.Data, dst.Offset*k)
	sp := unsafe.Add(src.Data, src.Offset*k)
	// Same layout, one dense block on both sides: one queue copy.
	if sameStrides(shape, dstStrides, srcStrides) && dense(shape, srcStrides, k, size) {
		lo, _ := span(shape, srcStrides, k)
		s, d := unsafe.Add(sp, lo), unsafe.Add(dp, lo)
		n := size * k
		var err error
		switch {
		case !dst.hostAccessible() && !src.hostAccessible() && dst.Device == src.Device:
			err = backendOf(dst.Device.Type).Copy(dst.Device.ID, d, s, n)
		case !dst.hostAccessible() && src.hostAccessible():
			err = backendOf(dst.Device.Type).CopyFromHost(dst.Device.ID, d, s, n)
		case dst.hostAccessible() && !src.hostAccessible():
			err = backendOf(src.Device.Type).CopyToHost(src.Device.ID, d, s, n)
		default:
			goto staged
		}
		if err != nil {
			dev := dst.Device
			if dst.hostAccessible() {
				dev = src.Device
			}
			return deviceErr(where, dev, err)
		}
		return nil
	}
staged:
	ss, err := stage(where, src, shape, srcStrides, k, true)
	if err != nil {
		return err
	}
	defer ss.free()
	ds, err := stage(where, dst, shape, dstStrides, k, true)
	if err != nil {
		return err
	}
	defer ds.free()
	kernels.Copy(ds.elem0, dstStrides, ss.elem0, srcStrides, shape, k, size)
	return ds.flush(where, dst.Device)
}

// fillDevice is Fill on memory the CPU cannot address: the extent is staged,
// filled on the host and written back.
func fillDevice(where string, h *Header, shape, strides []int64, elem []byte, k, size int64) error {
	s, err := stage(where, h, shape, strides, k, true)
	if err != nil {
		return err
	}
	defer s.free()
	kernels.Fill(s.elem0, strides, unsafe.Pointer(&elem[0]), shape, k, size)
	return s.flush(where, h.Device)
}
