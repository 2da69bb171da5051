package core

import "unsafe"

// Version is DLPackVersion: a major and a minor number. A consumer that sees a
// major number other than its own must not read anything but the version and
// the deleter of a DLManagedTensorVersioned.
type Version struct {
	Major uint32
	Minor uint32
}

// DeviceType is DLDeviceType, an int32 in the C ABI.
type DeviceType int32

// Device types defined by DLPack 1.3. Numbers 5 and 6 are retired.
const (
	KDLCPU         DeviceType = 1
	KDLCUDA        DeviceType = 2
	KDLCUDAHost    DeviceType = 3
	KDLOpenCL      DeviceType = 4
	KDLVulkan      DeviceType = 7
	KDLMetal       DeviceType = 8
	KDLVPI         DeviceType = 9
	KDLROCM        DeviceType = 10
	KDLROCMHost    DeviceType = 11
	KDLExtDev      DeviceType = 12
	KDLCUDAManaged DeviceType = 13
	KDLOneAPI      DeviceType = 14
	KDLWebGPU      DeviceType = 15
	KDLHexagon     DeviceType = 16
	KDLMAIA        DeviceType = 17
	KDLTrn         DeviceType = 18 // since DLPack 1.2
)

// Device is DLDevice. ID must be 0 for CPU, CUDAHost and CUDAManaged memory.
type Device struct {
	Type DeviceType
	ID   int32
}

// CPU is the only device the cpu backend serves.
var CPU = Device{Type: KDLCPU, ID: 0}

// DataTypeCode is DLDataTypeCode, stored in 8 bits.
type DataTypeCode uint8

// Data type codes defined by DLPack 1.3.
const (
	KDLInt               DataTypeCode = 0
	KDLUInt              DataTypeCode = 1
	KDLFloat             DataTypeCode = 2
	KDLOpaqueHandle      DataTypeCode = 3
	KDLBfloat            DataTypeCode = 4
	KDLComplex           DataTypeCode = 5
	KDLBool              DataTypeCode = 6 // since 0.8, 8 bits
	KDLFloat8E3M4        DataTypeCode = 7 // codes 7..17 since 1.1
	KDLFloat8E4M3        DataTypeCode = 8
	KDLFloat8E4M3B11FNUZ DataTypeCode = 9
	KDLFloat8E4M3FN      DataTypeCode = 10
	KDLFloat8E4M3FNUZ    DataTypeCode = 11
	KDLFloat8E5M2        DataTypeCode = 12
	KDLFloat8E5M2FNUZ    DataTypeCode = 13
	KDLFloat8E8M0FNU     DataTypeCode = 14
	KDLFloat6E2M3FN      DataTypeCode = 15 // bits must be 6
	KDLFloat6E3M2FN      DataTypeCode = 16 // bits must be 6
	KDLFloat4E2M1FN      DataTypeCode = 17 // bits must be 4
)

// DataType is DLDataType: {code, bits, lanes}. Lanes other than 1 describe
// vector types, which godlpack refuses.
type DataType struct {
	Code  DataTypeCode
	Bits  uint8
	Lanes uint16
}

// DLTensor mirrors the C struct field for field. Strides are in elements.
type DLTensor struct {
	Data       unsafe.Pointer
	Device     Device
	Ndim       int32
	DType      DataType
	Shape      *int64
	Strides    *int64
	ByteOffset uint64
}

// DLManagedTensor is the legacy (pre-1.0) managed tensor carried by capsules
// named "dltensor". Deleter is a C function pointer void(*)(DLManagedTensor*)
// and may be nil. Instances must live in C memory.
type DLManagedTensor struct {
	DLTensor   DLTensor
	ManagerCtx unsafe.Pointer
	Deleter    unsafe.Pointer
}

// DLManagedTensorVersioned is the 1.0+ managed tensor carried by capsules
// named "dltensor_versioned". Instances must live in C memory.
type DLManagedTensorVersioned struct {
	Version    Version
	ManagerCtx unsafe.Pointer
	Deleter    unsafe.Pointer
	Flags      uint64
	DLTensor   DLTensor
}

// Flag bits of DLManagedTensorVersioned.Flags, defined by the specification.
const (
	FlagReadOnly            uint64 = 1 << 0
	FlagIsCopied            uint64 = 1 << 1
	FlagIsSubbyteTypePadded uint64 = 1 << 2 // since 1.1
)
