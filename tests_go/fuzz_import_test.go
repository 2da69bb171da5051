package tests_go

import (
	"math"
	"math/big"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// Fuzz targets for the import validation. Every field of the managed tensor
// comes from the fuzzer and is written into guarded C memory (cfixture): the
// shape and strides arrays hold exactly ndim entries, so a read past what the
// struct promises faults. Describe must never panic, must never call the
// deleter, and must accept exactly the tensors an independent big-integer
// model accepts: then the byte range the description reaches,
// [data + lo, data + hi), is the one the struct promises, computed without
// overflow, and lies inside the address space.

// fuzzSpecial are the dimension/stride values a tag byte >= 200 selects.
var fuzzSpecial = []int64{
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
	1 << 62, -(1 << 62), 1 << 61, -(1 << 61), 1 << 32, -(1 << 32), 1 << 31, 1<<31 - 1,
	1 << 40, -(1 << 40), 1 << 20, 4096, -4096, 255, 256, 65535, 65536,
	math.MaxInt64 / 2, math.MaxInt64/2 + 1, math.MaxInt64 / 3, 3037000499, 3037000500,
}

// fuzzDims decodes 2*ndim values from b: tag < 200 gives tag-100, a larger
// tag picks from fuzzSpecial; missing bytes give 1.
func fuzzDims(b []byte, n int) (shape, strides []int64) {
	vals := make([]int64, 2*n)
	for i := range vals {
		vals[i] = 1
		if i < len(b) {
			tag := int(b[i])
			if tag < 200 {
				vals[i] = int64(tag - 100)
			} else {
				vals[i] = fuzzSpecial[(tag-200)%len(fuzzSpecial)]
			}
		}
	}
	return vals[:n], vals[n:]
}

type fuzzTensor struct {
	versioned             bool
	major, minor          uint32
	flags                 uint64
	ndim                  int32
	dtype                 core.DataType
	device                core.Device
	byteOffset            uint64
	dataMode              uint8
	nullShape, nullStride bool
	dims                  []byte
}

func (f *fuzzTensor) spec() cfixture.Spec {
	s := cfixture.Spec{
		Version: core.Version{Major: f.major, Minor: f.minor}, Flags: f.flags,
		Ndim: f.ndim, DType: f.dtype, Device: f.device, ByteOffset: f.byteOffset,
	}
	switch f.dataMode % 4 {
	case 1:
		s.DataBytes = 4096
	case 2:
		s.DataAddr = ^uintptr(0) - 4095 // the last page of the address space
	case 3:
		s.DataAddr = 4096 // the lowest legal pointer
	}
	if f.ndim >= 0 && f.ndim <= core.MaxNdim {
		shape, strides := fuzzDims(f.dims, int(f.ndim))
		if !f.nullShape {
			s.Shape = shape
		}
		if !f.nullStride {
			s.Strides = strides
		}
	} else {
		// Never read: a few guarded entries anyway.
		if !f.nullShape {
			s.Shape = []int64{1, 2, 3}
		}
		if !f.nullStride {
			s.Strides = []int64{1, 1, 1}
		}
	}
	return s
}

var (
	bigMaxInt64 = big.NewInt(math.MaxInt64)
	bigMinInt64 = big.NewInt(math.MinInt64)
	bigTwo64    = new(big.Int).Lsh(big.NewInt(1), 64)
)

func fits(x *big.Int) bool { return x.Cmp(bigMinInt64) >= 0 && x.Cmp(bigMaxInt64) <= 0 }

// model is the reference: it returns whether the tensor must be accepted and,
// if so, the strides the description must carry.
func model(s *cfixture.Spec, versioned bool, data uintptr) (ok bool, strides []int64) {
	if versioned && s.Version.Major != 1 {
		return false, nil
	}
	if s.Ndim < 0 || s.Ndim > core.MaxNdim {
		return false, nil
	}
	flags := uint64(0)
	if versioned {
		flags = s.Flags
	}
	if core.ValidateDataType(s.DType, flags) != nil || core.ValidateDevice(s.Device) != nil {
		return false, nil
	}
	n := int(s.Ndim)
	if n > 0 && s.Shape == nil {
		return false, nil
	}
	shape := s.Shape[:n]
	size := big.NewInt(1)
	for _, d := range shape {
		if d < 0 {
			return false, nil
		}
		size.Mul(size, big.NewInt(d))
	}
	if !fits(size) {
		return false, nil
	}
	if n > 0 && s.Strides != nil {
		strides = s.Strides[:n]
	} else {
		strides = make([]int64, n)
		acc := big.NewInt(1)
		for k := n - 1; k >= 0; k-- {
			if !fits(acc) {
				return false, nil
			}
			strides[k] = acc.Int64()
			acc.Mul(acc, big.NewInt(max(shape[k], 1)))
		}
	}
	if s.ByteOffset > math.MaxInt64 {
		return false, nil
	}
	off := big.NewInt(int64(s.ByteOffset))
	sub := s.DType.Bits < 8
	padded := sub && flags&core.FlagIsSubbyteTypePadded != 0
	packed := sub && !padded
	if packed && size.Sign() != 0 { // an empty tensor is contiguous whatever its strides (numpy's rule)
		want := big.NewInt(1)
		for k := n - 1; k >= 0; k-- {
			d := shape[k]
			if d == 0 {
				break
			}
			if d == 1 {
				continue
			}
			if big.NewInt(strides[k]).Cmp(want) != 0 {
				return false, nil
			}
			want.Mul(want, big.NewInt(d))
		}
	}
	if s.DataBytes == 0 && s.DataAddr == 0 && size.Sign() != 0 {
		return false, nil
	}
	lo, hi := new(big.Int).Set(off), new(big.Int).Set(off)
	if size.Sign() != 0 {
		if packed {
			nb := new(big.Int).Mul(size, big.NewInt(int64(s.DType.Bits)))
			nb.Add(nb, big.NewInt(7)).Div(nb, big.NewInt(8))
			hi.Add(off, nb)
		} else {
			itemsize := int64(s.DType.Bits) / 8
			if padded {
				itemsize = 1
			}
			elo, ehi := new(big.Int), new(big.Int)
			for k, d := range shape {
				if d <= 1 {
					continue
				}
				p := new(big.Int).Mul(big.NewInt(d-1), big.NewInt(strides[k]))
				if !fits(p) {
					return false, nil
				}
				if p.Sign() >= 0 {
					ehi.Add(ehi, p)
				} else {
					elo.Add(elo, p)
				}
			}
			ehi.Add(ehi, big.NewInt(1))
			isz := big.NewInt(itemsize)
			blo, bhi := new(big.Int).Mul(elo, isz), new(big.Int).Mul(ehi, isz)
			lo.Add(off, blo)
			hi.Add(off, bhi)
			// Every intermediate quantity must fit int64.
			for _, x := range []*big.Int{elo, ehi, blo, bhi} {
				if !fits(x) {
					return false, nil
				}
			}
		}
	}
	if !fits(lo) || !fits(hi) {
		return false, nil
	}
	if data != 0 {
		b := new(big.Int).SetUint64(uint64(data))
		if new(big.Int).Add(b, lo).Sign() < 0 || new(big.Int).Add(b, hi).Cmp(bigTwo64) >= 0 {
			return false, nil
		}
		// Device memory keeps its data pointer (maybe a handle): the offset
		// must be a whole number of (byte-sized) elements.
		if s.ByteOffset != 0 && size.Sign() != 0 && !modelFolds(s.Device.Type) {
			if packed || int64(s.ByteOffset)%modelItemSize(s.DType, padded) != 0 {
				return false, nil
			}
		}
	}
	return true, strides
}

// modelFolds is the byte_offset policy the model expects: folded into data
// on the CPU and DLPack's host kinds, carried in byte_offset elsewhere.
func modelFolds(t core.DeviceType) bool {
	switch t {
	case core.KDLCPU, core.KDLCUDAHost, core.KDLROCMHost, core.KDLCUDAManaged:
		return true
	}
	return false
}

func modelItemSize(dt core.DataType, padded bool) int64 {
	if padded {
		return 1
	}
	return int64(dt.Bits) / 8
}

func runFuzzDescribe(t *testing.T, f fuzzTensor) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	s := f.spec()
	var h core.Header
	var shape, strides [core.MaxNdim]int64
	var err error
	var dl *core.DLTensor
	var calls func() int64
	if f.versioned {
		m := cfixture.Versioned(s)
		defer cfixture.Free(m)
		err = core.DescribeVersioned(m, &h, shape[:], strides[:])
		dl, calls = &m.DLTensor, func() int64 { return cfixture.Calls(m) }
	} else {
		m := cfixture.Legacy(s)
		defer cfixture.Free(m)
		err = core.DescribeLegacy(m, &h, shape[:], strides[:])
		dl, calls = &m.DLTensor, func() int64 { return cfixture.Calls(m) }
	}
	if calls() != 0 {
		t.Fatal("Describe called the deleter")
	}
	data := uintptr(dl.Data)
	ok, wantStrides := model(&s, f.versioned, data)
	if err != nil {
		if ok {
			t.Fatalf("%+v: refused a valid tensor: %v", s, err)
		}
		if c := core.ClassOf(err); c != core.ClassBuffer {
			t.Fatalf("%+v: error %q has class %v, want BufferError", s, err, c)
		}
		return
	}
	if !ok {
		t.Fatalf("%+v: accepted a tensor the model refuses (h=%+v)", s, h)
	}
	n := int(s.Ndim)
	wantData, wantOffset := data, int64(0)
	if data != 0 && modelFolds(s.Device.Type) {
		wantData = data + uintptr(s.ByteOffset)
	} else if data != 0 && s.ByteOffset != 0 && !slices.Contains(s.Shape[:n], 0) {
		padded := f.versioned && s.DType.Bits < 8 && s.Flags&core.FlagIsSubbyteTypePadded != 0
		wantOffset = int64(s.ByteOffset) / modelItemSize(s.DType, padded)
	}
	if uintptr(h.Data) != wantData || h.Offset != wantOffset || h.Owner != nil || h.Ndim != s.Ndim ||
		h.DType != s.DType || h.Device != s.Device {
		t.Fatalf("%+v: header %+v", s, h)
	}
	ro := f.versioned && s.Flags&core.FlagReadOnly != 0
	if h.ReadOnly() != ro {
		t.Fatalf("%+v: read-only %v", s, h.ReadOnly())
	}
	if got, want := h.Flags&derivedFlags, modelDerivedFlags(s.Device, s.Shape[:n], wantStrides[:n]); got != want {
		t.Fatalf("%+v: derived flags %#x, want %#x", s, got, want)
	}
	for k := 0; k < n; k++ {
		if shape[k] != s.Shape[k] || strides[k] != wantStrides[k] {
			t.Fatalf("%+v: dim %d: shape %d strides %d, want %d %d", s, k, shape[k], strides[k], s.Shape[k], wantStrides[k])
		}
	}
}

func addFuzzSeeds(f *testing.F) {
	type seed struct {
		major, minor uint32
		flags        uint64
		ndim         int32
		code, bits   uint8
		lanes        uint16
		devType      int32
		devID        int32
		off          uint64
		dataMode     uint8
		nullShape    bool
		nullStrides  bool
		dims         []byte
	}
	seeds := []seed{
		{1, 3, 0, 2, 2, 32, 1, 1, 0, 0, 1, false, false, []byte{102, 103, 103, 101}},         // float32 (2,3) strides (3,1)
		{1, 3, 0, 2, 2, 32, 1, 1, 0, 0, 1, false, true, []byte{102, 103}},                    // NULL strides
		{1, 0, 1, 1, 2, 64, 1, 1, 0, 24, 1, false, false, []byte{104, 99}},                   // negative stride, offset, read-only
		{1, 3, 0, 0, 0, 8, 1, 1, 0, 0, 1, true, true, nil},                                   // 0-d
		{1, 3, 0, 1, 2, 32, 1, 1, 0, 0, 0, false, false, []byte{100, 101}},                   // size 0 NULL data
		{1, 3, 0, 1, 2, 32, 1, 1, 0, 0, 0, false, false, []byte{102, 101}},                   // NULL data refused
		{2, 0, 0, 1, 2, 32, 1, 1, 0, 0, 1, false, false, []byte{102, 101}},                   // version 2
		{1, 3, 0, 65, 2, 32, 1, 1, 0, 0, 1, false, false, nil},                               // ndim 65
		{1, 3, 0, -1, 2, 32, 1, 1, 0, 0, 1, false, false, nil},                               // ndim -1
		{1, 3, 0, 2, 2, 32, 1, 1, 0, 0, 1, false, false, []byte{208, 208, 101, 101}},         // element count overflow
		{1, 3, 0, 2, 2, 64, 1, 1, 0, 0, 1, false, false, []byte{102, 102, 206, 206}},         // extent overflow
		{1, 3, 0, 1, 2, 32, 1, 1, 0, 0, 1, false, false, []byte{102, 201}},                   // MinInt64 stride
		{1, 3, 0, 1, 0, 8, 1, 1, 0, 1 << 63, 1, false, false, []byte{101, 101}},              // byte_offset > MaxInt64
		{1, 3, 0, 1, 0, 8, 1, 1, 0, 0, 2, false, false, []byte{102, 215}},                    // past the top of memory
		{1, 3, 0, 1, 0, 8, 1, 1, 0, 0, 3, false, false, []byte{102, 216}},                    // below address 0
		{1, 3, 0, 2, 17, 4, 1, 1, 0, 0, 1, false, false, []byte{102, 108, 108, 101}},         // packed float4
		{1, 3, 0, 1, 17, 4, 1, 1, 0, 0, 1, false, false, []byte{104, 102}},                   // packed float4 strided
		{1, 3, 4, 1, 17, 4, 1, 1, 0, 3, 1, false, false, []byte{104, 98}},                    // padded float4 strided
		{1, 3, 0, 1, 2, 32, 2, 1, 0, 0, 1, false, false, []byte{102, 101}},                   // lanes 2
		{1, 3, 0, 1, 2, 32, 1, 2, 1, 0, 1, false, false, []byte{102, 101}},                   // cuda:1
		{1, 3, 0, 1, 2, 32, 1, 19, 0, 0, 1, false, false, []byte{102, 101}},                  // device 19
		{1, 3, 0, 3, 2, 32, 1, 1, 0, 0, 0, false, true, []byte{100, 234, 234}},               // empty, contiguous strides overflow
		{1, 3, 0, 3, 4, 16, 1, 1, 0, 0, 1, false, false, []byte{101, 103, 101, 209, 101, 0}}, // size-1 odd strides
	}
	for _, s := range seeds {
		f.Add(s.major, s.minor, s.flags, s.ndim, s.code, s.bits, s.lanes, s.devType, s.devID, s.off,
			s.dataMode, s.nullShape, s.nullStrides, s.dims)
	}
}

func FuzzDescribeVersioned(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, major, minor uint32, flags uint64, ndim int32, code, bits uint8, lanes uint16,
		devType, devID int32, off uint64, dataMode uint8, nullShape, nullStrides bool, dims []byte) {
		runFuzzDescribe(t, fuzzTensor{
			versioned: true, major: major, minor: minor, flags: flags, ndim: ndim,
			dtype:  core.DataType{Code: core.DataTypeCode(code), Bits: bits, Lanes: lanes},
			device: core.Device{Type: core.DeviceType(devType), ID: devID}, byteOffset: off,
			dataMode: dataMode, nullShape: nullShape, nullStride: nullStrides, dims: dims,
		})
	})
}

func FuzzDescribeLegacy(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, major, minor uint32, flags uint64, ndim int32, code, bits uint8, lanes uint16,
		devType, devID int32, off uint64, dataMode uint8, nullShape, nullStrides bool, dims []byte) {
		runFuzzDescribe(t, fuzzTensor{
			versioned: false, ndim: ndim,
			dtype:  core.DataType{Code: core.DataTypeCode(code), Bits: bits, Lanes: lanes},
			device: core.Device{Type: core.DeviceType(devType), ID: devID}, byteOffset: off,
			dataMode: dataMode, nullShape: nullShape, nullStride: nullStrides, dims: dims,
		})
	})
}
