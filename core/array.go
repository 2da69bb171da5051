package core

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/godlpack/godlpack/backends"
)

// Array is an n-dimensional array for Go programs: a Header plus its shape
// and strides (in elements, possibly negative or zero). Its memory is C
// memory held by a refcounted Owner; every Array (and every view made from
// it) holds one reference.
//
// # Lifetime
//
// Call Release when done (typically `defer a.Release()`); the last reference
// to the owner frees the memory (or calls the foreign deleter) in C. Views
// (Index, Slice, Transpose, Reshape) hold their own reference, so they stay
// valid after the array they came from is released.
//
// As a safety net, an Array that becomes unreachable without Release drops
// its reference from a runtime cleanup (runtime.AddCleanup). The net is
// turned off for an Array once it hands out a slice aliasing its memory
// (Float64s, Bytes, ...): such memory is freed only by an explicit Release,
// because the garbage collector cannot see that the slice still uses it.
// Slices from typed accessors are valid until Release.
//
// Methods may be called from several goroutines; Release may race with view
// creation (Index, Slice, Transpose, Reshape, Copy) and iteration safely.
// Writes (Set, Fill, slices) are not synchronised: that is the caller's job,
// as with any Go slice.
type Array struct {
	hdr     Header
	shape   []int64
	strides []int64

	released bool
	pinned   bool
	borrowed bool // Borrow: holds no owner reference of its own (kit.go)
	cleanup  runtime.Cleanup
}

// newOwnedArray wraps h, taking over the reference the caller holds on
// h.Owner (no Retain). shape and strides are copied.
func newOwnedArray(h Header, shape, strides []int64) *Array {
	n := len(shape)
	a := &Array{hdr: h}
	buf := make([]int64, 2*n)
	a.shape = buf[:n:n]
	a.strides = buf[n:]
	copy(a.shape, shape)
	if strides == nil {
		cStrides(a.shape, a.strides)
	} else {
		copy(a.strides, strides)
	}
	a.hdr.Ndim = int32(n)
	a.hdr.SetDerivedFlags(a.shape, a.strides)
	if o := h.Owner; o != nil {
		a.cleanup = runtime.AddCleanup(a, releaseOwner, o)
	} else {
		a.released = true
	}
	return a
}

func releaseOwner(o *Owner) { o.Release() }

// arrayLocks guard the state of every Array (released, pinned, the owner
// reference): each Array is guarded by the lock its address picks. A mutex
// inside the Array would serve as well, but sync.Mutex hands its address
// to the runtime, where the compiler's escape analysis loses it, so every
// method that locked would count as keeping its Array, and no function
// that reads one could be proved to keep none (gofunc.SetNotKept lends
// arrays to such functions). A lock is held for a few loads and stores,
// never while another is taken.
var arrayLocks [64]struct {
	sync.Mutex
	_ [64 - unsafe.Sizeof(sync.Mutex{})]byte // one cache line each
}

// lock takes the lock that guards a and returns it for the caller to
// unlock: the same lock even if a moved in between (an Array on a
// goroutine's stack moves when the stack grows).
func (a *Array) lock() *sync.Mutex {
	h := uint64(uintptr(unsafe.Pointer(a))) * 0x9e3779b97f4a7c15
	m := &arrayLocks[h>>58].Mutex
	m.Lock()
	return m
}

// NewArray returns an Array over h with the given shape and strides (in
// elements; nil strides mean C-contiguous). It retains h.Owner: the caller
// keeps its own reference. h.Ndim is set to len(shape). NewArray panics if
// strides is non-nil and its length differs from len(shape), or if
// len(shape) > MaxNdim (programming errors; imported tensors are validated
// before they get here). A header whose Owner is nil gives a released Array.
func NewArray(h Header, shape, strides []int64) *Array {
	if strides != nil && len(strides) != len(shape) {
		panic(fmt.Sprintf("core.NewArray: %d strides for %d dimensions", len(strides), len(shape)))
	}
	if len(shape) > MaxNdim {
		panic(fmt.Sprintf("core.NewArray: ndim %d exceeds MaxNdim %d", len(shape), MaxNdim))
	}
	if h.Owner != nil {
		h.Owner.Retain()
	}
	return newOwnedArray(h, shape, strides)
}

// Empty returns a new C-contiguous CPU array of dtype dt and the given shape
// with uninitialised contents. Its memory is 256-byte aligned C memory from
// backends/cpu, owned by an OwnFree owner that frees it in C. A zero-size
// array still gets a valid, non-nil data pointer. Packed sub-byte types
// (float4, float6) are allowed: ceil(size*bits/8) bytes are allocated, but
// views and copies of them return ErrSubByteView.
//
// Errors: ErrNdim (more than MaxNdim dimensions), ErrShape (a negative
// dimension), ErrOverflow (the byte size does not fit in int64), ErrLanes /
// ErrDType / ErrSubByte (dt fails ValidateDataType), ErrNoMemory.
func Empty(dt DataType, shape ...int64) (*Array, error) {
	return newAlloc("Empty()", dt, shape, false)
}

// Zeros is Empty with every byte set to zero.
func Zeros(dt DataType, shape ...int64) (*Array, error) {
	return newAlloc("Zeros()", dt, shape, true)
}

func newAlloc(where string, dt DataType, shape []int64, zero bool) (*Array, error) {
	if len(shape) > MaxNdim {
		return nil, fmt.Errorf("%s: %d dimensions, at most %d are supported: %w", where, len(shape), MaxNdim, ErrNdim)
	}
	var st [MaxNdim]int64
	var h Header
	if err := allocContiguous(where, CPU, dt, shape, &h, st[:len(shape)], zero, true); err != nil {
		return nil, err
	}
	return newOwnedArray(h, shape, st[:len(shape)]), nil
}

// AllocContiguous allocates a C-contiguous CPU array of dtype dt and shape
// (uninitialised) and describes it in out (new owner with one reference,
// Offset 0, Flags 0) and outStrides (len(outStrides) >= len(shape)). It is
// the zero-Go-allocation step the Python skin uses to create arrays; the
// caller owns the reference in out.Owner. Errors as for Empty.
func AllocContiguous(dt DataType, shape []int64, out *Header, outStrides []int64) error {
	return allocContiguous("AllocContiguous()", CPU, dt, shape, out, outStrides, false, true)
}

// AllocContiguousAt is AllocContiguous whose errors start with where, the
// entry point the user called (e.g. "empty()").
func AllocContiguousAt(where string, dt DataType, shape []int64, out *Header, outStrides []int64) error {
	return allocContiguous(where, CPU, dt, shape, out, outStrides, false, true)
}

// AllocContiguousOn is AllocContiguousAt on device dev, through the device's
// backend (zeroed when zero is set). A device without a backend is refused
// with ErrDevice; the backend's own failures (its runtime cannot be loaded,
// no such device) are ErrDevice too, ErrNoMemory when it is out of memory.
// The array's dtype may be any godlpack can copy (not only what it
// exchanges), as for copies.
func AllocContiguousOn(where string, dev Device, dt DataType, shape []int64, out *Header, outStrides []int64, zero bool) error {
	return allocContiguous(where, dev, dt, shape, out, outStrides, zero, false)
}

// allocContiguous allocates and describes a C-contiguous array. strict
// checks dt with ValidateDataType (what godlpack exchanges); Copy passes
// false, since copying an existing array's dtype needs only a byte size.
func allocContiguous(where string, dev Device, dt DataType, shape []int64, out *Header, outStrides []int64, zero, strict bool) error {
	if len(shape) > MaxNdim {
		return fmt.Errorf("%s: %d dimensions, at most %d are supported: %w", where, len(shape), MaxNdim, ErrNdim)
	}
	if len(outStrides) < len(shape) {
		return fmt.Errorf("%s: strides buffer holds %d entries, %d needed: %w", where, len(outStrides), len(shape), ErrInternal)
	}
	if strict {
		if err := ValidateDataType(dt, 0); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	} else if err := checkAllocDType(where, dt); err != nil {
		return err
	}
	size, err := shapeSize(where, shape)
	if err != nil {
		return err
	}
	var nbytes int64
	if dt.IsSubByte() {
		nbytes = dt.PackedBytes(size)
	} else {
		var ok bool
		nbytes, ok = mulCheck(size, dt.ItemSize())
		if !ok {
			nbytes = -1
		}
	}
	if nbytes < 0 {
		return WithClass(ClassValue, fmt.Sprintf("%s: the array is too big: %d elements of %d bits overflow int64 bytes; "+
			"ask for fewer elements", where, size, dt.ItemBits()), ErrOverflow)
	}
	b := hostBackend()
	if dev != CPU {
		if b = backendOf(dev.Type); b == nil {
			return errorf(ErrDevice, "%s: godlpack has no memory backend for %s; pass device=\"cpu\"", where, dev)
		}
	}
	p, err := b.Allocate(dev.ID, nbytes, zero)
	if err != nil {
		return allocErr(where, dev, nbytes, err)
	}
	o, err := NewOwner(OwnFree, p, b.FreeFunc())
	if err != nil {
		b.Free(p)
		return err
	}
	o.MarkAllocated()
	*out = Header{Data: p, Owner: o, Offset: 0, DType: dt, Ndim: int32(len(shape)), Device: dev}
	cStrides(shape, outStrides[:len(shape)])
	out.SetDerivedFlags(shape, outStrides[:len(shape)])
	return nil
}

// allocErr words a backend's allocation failure: out of memory, or a device
// its runtime cannot serve (the backend's message says what to install or
// set).
func allocErr(where string, dev Device, nbytes int64, err error) error {
	if dev == CPU || errors.Is(err, backends.ErrNoMemory) || errors.Is(err, backends.ErrInvalidSize) {
		if dev == CPU {
			return fmt.Errorf("%s: cannot allocate %d bytes: %w", where, nbytes, ErrNoMemory)
		}
		return fmt.Errorf("%s: cannot allocate %d bytes on %s: %w", where, nbytes, dev, ErrNoMemory)
	}
	return errorf(ErrDevice, "%s: cannot allocate on %s: %v", where, dev, err)
}

// checkAllocDType is the relaxed check of Copy: lanes 1, a code DLPack 1.3
// defines (not opaque handles), and a bit width that is a positive multiple
// of 8 or a sub-byte width.
func checkAllocDType(where string, dt DataType) error {
	if dt.Lanes != 1 {
		return fmt.Errorf("%s: dtype with %d lanes: %w", where, dt.Lanes, ErrLanes)
	}
	if dt.Code > KDLFloat4E2M1FN || dt.Code == KDLOpaqueHandle || dt.Bits == 0 || (dt.Bits >= 8 && dt.Bits%8 != 0) {
		return fmt.Errorf("%s: cannot allocate dtype (code=%d, bits=%d): %w", where, dt.Code, dt.Bits, ErrDType)
	}
	return nil
}

// Header returns a copy of the array's header. It does not add a reference:
// Header().Owner is valid only while the array (or another reference) lives.
// After Release, Owner is nil.
func (a *Array) Header() Header {
	defer a.lock().Unlock()
	return a.hdr
}

// Shape returns a copy of the shape.
func (a *Array) Shape() []int64 { return append(make([]int64, 0, len(a.shape)), a.shape...) }

// Strides returns a copy of the strides, in elements.
func (a *Array) Strides() []int64 { return append(make([]int64, 0, len(a.strides)), a.strides...) }

// Ndim returns the number of dimensions.
func (a *Array) Ndim() int { return len(a.shape) }

// Size returns the number of elements (1 for a 0-d array).
func (a *Array) Size() int64 {
	n := int64(1)
	for _, d := range a.shape {
		n *= d
	}
	return n
}

// DType returns the data type.
func (a *Array) DType() DataType { return a.hdr.DType }

// Device returns the device holding the memory.
func (a *Array) Device() Device { return a.hdr.Device }

// ReadOnly reports whether writes are refused (imported read-only tensors).
func (a *Array) ReadOnly() bool { return a.hdr.ReadOnly() }

// ItemSize returns the bytes of one element; 0 for packed sub-byte types.
// Padded sub-byte elements occupy one byte each; packed ones report 0.
func (a *Array) ItemSize() int64 { return a.hdr.DType.StorageItemSize(a.subbyteFlags()) }

// subbyteFlags translates HeaderSubBytePadded into the DLPack flag that
// DataType.StorageItemSize understands.
func (a *Array) subbyteFlags() uint64 {
	if a.hdr.Flags&HeaderSubBytePadded != 0 {
		return FlagIsSubbyteTypePadded
	}
	return 0
}

// NBytes returns the bytes the elements occupy: Size()*ItemSize(), or
// ceil(Size()*bits/8) for packed sub-byte types.
func (a *Array) NBytes() int64 {
	if a.hdr.DType.IsSubByte() && a.hdr.Flags&HeaderSubBytePadded == 0 {
		return a.hdr.DType.PackedBytes(a.Size())
	}
	return a.Size() * a.ItemSize()
}

// Released reports whether Release has been called.
func (a *Array) Released() bool {
	defer a.lock().Unlock()
	return a.released
}

// Release drops the array's reference to its owner; the last reference
// frees the memory in C. Release is idempotent and safe to call from several
// goroutines. Views made from the array keep their own references.
func (a *Array) Release() {
	mu := a.lock()
	if a.released {
		mu.Unlock()
		return
	}
	a.released = true
	o := a.hdr.Owner
	a.hdr.Owner = nil
	if !a.pinned {
		a.cleanup.Stop()
	}
	mu.Unlock()
	if o != nil && !a.borrowed {
		o.Release()
	}
}

// pin turns the GC safety net off: memory that a Go slice aliases must only
// be freed by an explicit Release.
func (a *Array) pin() error {
	defer a.lock().Unlock()
	if a.released {
		return ErrReleased
	}
	if !a.pinned {
		a.pinned = true
		a.cleanup.Stop()
	}
	return nil
}

// live returns the header or ErrReleased.
func (a *Array) live(where string) (Header, error) {
	defer a.lock().Unlock()
	if a.released {
		return Header{}, fmt.Errorf("%s: %w", where, ErrReleased)
	}
	return a.hdr, nil
}

// acquire returns the header with a new owner reference (taken under the
// lock, so a concurrent Release cannot free the memory in between), or
// ErrReleased. The caller releases h.Owner or hands it to newOwnedArray.
func (a *Array) acquire(where string) (Header, error) {
	defer a.lock().Unlock()
	if a.released {
		return Header{}, fmt.Errorf("%s: %w", where, ErrReleased)
	}
	if a.hdr.Owner != nil {
		a.hdr.Owner.Retain()
	}
	return a.hdr, nil
}

// DataPtr returns the address of the first element (Data + Offset*itemsize)
// for handing to C code; nil after Release. It stays valid while the array
// is not released (keep the Array reachable, e.g. with runtime.KeepAlive).
// On a device whose data pointers may be opaque handles (FoldsByteOffset
// false) it returns the handle itself, and the first element lies
// ByteOffset() bytes from it, as DLPack describes such memory.
func (a *Array) DataPtr() unsafe.Pointer {
	h, err := a.live("DataPtr()")
	if err != nil || h.Data == nil {
		return nil
	}
	if !FoldsByteOffset(h.Device) {
		return h.Data
	}
	return unsafe.Add(h.Data, h.Offset*h.DType.ItemSize())
}

// ByteOffset returns the DLPack byte_offset of the first element from
// DataPtr(): 0 on the CPU and host kinds, Offset*itemsize on devices whose
// data pointers may be opaque handles (FoldsByteOffset false).
func (a *Array) ByteOffset() int64 {
	h, err := a.live("ByteOffset()")
	if err != nil || FoldsByteOffset(h.Device) {
		return 0
	}
	return h.Offset * h.DType.ItemSize()
}

// IsCContiguous reports whether the elements are laid out in row-major
// order without gaps. Like numpy, dimensions of length 1 may have any
// stride, and an array with a zero-length dimension is contiguous.
func (a *Array) IsCContiguous() bool { return isCContiguous(a.shape, a.strides) }

// IsFContiguous is IsCContiguous for column-major order.
func (a *Array) IsFContiguous() bool { return isFContiguous(a.shape, a.strides) }

// String describes the array: dtype, shape, strides, device.
func (a *Array) String() string {
	return fmt.Sprintf("Array(dtype=%v, shape=%v, strides=%v, device=%v)", a.hdr.DType, a.shape, a.strides, a.hdr.Device)
}

// ---- shared helpers ----

// shapeSize returns the element count, or ErrShape / ErrOverflow.
func shapeSize(where string, shape []int64) (int64, error) {
	n := int64(1)
	zero := false
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("%s: negative dimension %d in shape: %w", where, d, ErrShape)
		}
		if d == 0 {
			zero = true
		}
	}
	if zero {
		return 0, nil
	}
	for _, d := range shape {
		var ok bool
		if n, ok = mulCheck(n, d); !ok {
			return 0, WithClass(ClassValue, fmt.Sprintf("%s: the array is too big: shape %s has more than 2^63-1 "+
				"elements; ask for fewer elements", where, dimsString(shape)), ErrOverflow)
		}
	}
	return n, nil
}

// mulCheck returns a*b and whether it fit in int64.
func mulCheck(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	neg := (a < 0) != (b < 0)
	ua, ub := absU(a), absU(b)
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true //nolint:gosec // checked above
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// addCheck returns a+b and whether it fit in int64.
func addCheck(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // -MinInt64 wraps to 1<<63, which is right as uint64
	}
	return uint64(a)
}

// dimsString formats dims as (2, 3) like a Python tuple. It copies what it
// needs so that dims never escapes (callers pass C-memory or stack slices on
// zero-allocation paths; only error paths call this).
func dimsString(dims []int64) string {
	b := make([]byte, 0, 2+len(dims)*4)
	b = append(b, '(')
	for i, d := range dims {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, d, 10)
	}
	if len(dims) == 1 {
		b = append(b, ',')
	}
	return string(append(b, ')'))
}
