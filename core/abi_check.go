package core

/*
#include "godlpack.h"
*/
import "C"

import "unsafe"

// Build-time proof that the Go mirrors have the C layout of dlpack.h and
// godlpack.h. Indexing a one-element array with a-b compiles only when a == b
// (a > b is out of range, a < b overflows uintptr). tests_go repeats the
// comparison at run time with readable messages (LayoutTable).

var (
	_ = [1]struct{}{}[unsafe.Sizeof(Version{})-unsafe.Sizeof(C.DLPackVersion{})]
	_ = [1]struct{}{}[unsafe.Sizeof(C.DLPackVersion{})-unsafe.Sizeof(Version{})]
	_ = [1]struct{}{}[unsafe.Offsetof(Version{}.Major)-unsafe.Offsetof(C.DLPackVersion{}.major)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLPackVersion{}.major)-unsafe.Offsetof(Version{}.Major)]
	_ = [1]struct{}{}[unsafe.Offsetof(Version{}.Minor)-unsafe.Offsetof(C.DLPackVersion{}.minor)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLPackVersion{}.minor)-unsafe.Offsetof(Version{}.Minor)]
	_ = [1]struct{}{}[unsafe.Sizeof(Device{})-unsafe.Sizeof(C.DLDevice{})]
	_ = [1]struct{}{}[unsafe.Sizeof(C.DLDevice{})-unsafe.Sizeof(Device{})]
	_ = [1]struct{}{}[unsafe.Offsetof(Device{}.Type)-unsafe.Offsetof(C.DLDevice{}.device_type)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLDevice{}.device_type)-unsafe.Offsetof(Device{}.Type)]
	_ = [1]struct{}{}[unsafe.Offsetof(Device{}.ID)-unsafe.Offsetof(C.DLDevice{}.device_id)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLDevice{}.device_id)-unsafe.Offsetof(Device{}.ID)]
	_ = [1]struct{}{}[unsafe.Sizeof(DataType{})-unsafe.Sizeof(C.DLDataType{})]
	_ = [1]struct{}{}[unsafe.Sizeof(C.DLDataType{})-unsafe.Sizeof(DataType{})]
	_ = [1]struct{}{}[unsafe.Offsetof(DataType{}.Code)-unsafe.Offsetof(C.DLDataType{}.code)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLDataType{}.code)-unsafe.Offsetof(DataType{}.Code)]
	_ = [1]struct{}{}[unsafe.Offsetof(DataType{}.Bits)-unsafe.Offsetof(C.DLDataType{}.bits)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLDataType{}.bits)-unsafe.Offsetof(DataType{}.Bits)]
	_ = [1]struct{}{}[unsafe.Offsetof(DataType{}.Lanes)-unsafe.Offsetof(C.DLDataType{}.lanes)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLDataType{}.lanes)-unsafe.Offsetof(DataType{}.Lanes)]
	_ = [1]struct{}{}[unsafe.Sizeof(DLTensor{})-unsafe.Sizeof(C.DLTensor{})]
	_ = [1]struct{}{}[unsafe.Sizeof(C.DLTensor{})-unsafe.Sizeof(DLTensor{})]
	_ = [1]struct{}{}[unsafe.Offsetof(DLTensor{}.Data)-unsafe.Offsetof(C.DLTensor{}.data)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLTensor{}.data)-unsafe.Offsetof(DLTensor{}.Data)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLTensor{}.Device)-unsafe.Offsetof(C.DLTensor{}.device)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLTensor{}.device)-unsafe.Offsetof(DLTensor{}.Device)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLTensor{}.Ndim)-unsafe.Offsetof(C.DLTensor{}.ndim)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLTensor{}.ndim)-unsafe.Offsetof(DLTensor{}.Ndim)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLTensor{}.DType)-unsafe.Offsetof(C.DLTensor{}.dtype)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLTensor{}.dtype)-unsafe.Offsetof(DLTensor{}.DType)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLTensor{}.Shape)-unsafe.Offsetof(C.DLTensor{}.shape)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLTensor{}.shape)-unsafe.Offsetof(DLTensor{}.Shape)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLTensor{}.Strides)-unsafe.Offsetof(C.DLTensor{}.strides)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLTensor{}.strides)-unsafe.Offsetof(DLTensor{}.Strides)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLTensor{}.ByteOffset)-unsafe.Offsetof(C.DLTensor{}.byte_offset)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLTensor{}.byte_offset)-unsafe.Offsetof(DLTensor{}.ByteOffset)]
	_ = [1]struct{}{}[unsafe.Sizeof(DLManagedTensor{})-unsafe.Sizeof(C.DLManagedTensor{})]
	_ = [1]struct{}{}[unsafe.Sizeof(C.DLManagedTensor{})-unsafe.Sizeof(DLManagedTensor{})]
	_ = [1]struct{}{}[unsafe.Offsetof(DLManagedTensor{}.DLTensor)-unsafe.Offsetof(C.DLManagedTensor{}.dl_tensor)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLManagedTensor{}.dl_tensor)-unsafe.Offsetof(DLManagedTensor{}.DLTensor)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLManagedTensor{}.ManagerCtx)-unsafe.Offsetof(C.DLManagedTensor{}.manager_ctx)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLManagedTensor{}.manager_ctx)-unsafe.Offsetof(DLManagedTensor{}.ManagerCtx)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLManagedTensor{}.Deleter)-unsafe.Offsetof(C.DLManagedTensor{}.deleter)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLManagedTensor{}.deleter)-unsafe.Offsetof(DLManagedTensor{}.Deleter)]
	_ = [1]struct{}{}[unsafe.Sizeof(DLManagedTensorVersioned{})-unsafe.Sizeof(C.DLManagedTensorVersioned{})]
	_ = [1]struct{}{}[unsafe.Sizeof(C.DLManagedTensorVersioned{})-unsafe.Sizeof(DLManagedTensorVersioned{})]
	_ = [1]struct{}{}[unsafe.Offsetof(DLManagedTensorVersioned{}.Version)-unsafe.Offsetof(C.DLManagedTensorVersioned{}.version)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLManagedTensorVersioned{}.version)-unsafe.Offsetof(DLManagedTensorVersioned{}.Version)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLManagedTensorVersioned{}.ManagerCtx)-unsafe.Offsetof(C.DLManagedTensorVersioned{}.manager_ctx)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLManagedTensorVersioned{}.manager_ctx)-unsafe.Offsetof(DLManagedTensorVersioned{}.ManagerCtx)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLManagedTensorVersioned{}.Deleter)-unsafe.Offsetof(C.DLManagedTensorVersioned{}.deleter)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLManagedTensorVersioned{}.deleter)-unsafe.Offsetof(DLManagedTensorVersioned{}.Deleter)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLManagedTensorVersioned{}.Flags)-unsafe.Offsetof(C.DLManagedTensorVersioned{}.flags)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLManagedTensorVersioned{}.flags)-unsafe.Offsetof(DLManagedTensorVersioned{}.Flags)]
	_ = [1]struct{}{}[unsafe.Offsetof(DLManagedTensorVersioned{}.DLTensor)-unsafe.Offsetof(C.DLManagedTensorVersioned{}.dl_tensor)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.DLManagedTensorVersioned{}.dl_tensor)-unsafe.Offsetof(DLManagedTensorVersioned{}.DLTensor)]
	_ = [1]struct{}{}[unsafe.Sizeof(Header{})-unsafe.Sizeof(C.gd_header{})]
	_ = [1]struct{}{}[unsafe.Sizeof(C.gd_header{})-unsafe.Sizeof(Header{})]
	_ = [1]struct{}{}[unsafe.Offsetof(Header{}.Data)-unsafe.Offsetof(C.gd_header{}.data)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.gd_header{}.data)-unsafe.Offsetof(Header{}.Data)]
	_ = [1]struct{}{}[unsafe.Offsetof(Header{}.Owner)-unsafe.Offsetof(C.gd_header{}.owner)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.gd_header{}.owner)-unsafe.Offsetof(Header{}.Owner)]
	_ = [1]struct{}{}[unsafe.Offsetof(Header{}.Offset)-unsafe.Offsetof(C.gd_header{}.offset)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.gd_header{}.offset)-unsafe.Offsetof(Header{}.Offset)]
	_ = [1]struct{}{}[unsafe.Offsetof(Header{}.DType)-unsafe.Offsetof(C.gd_header{}.dtype)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.gd_header{}.dtype)-unsafe.Offsetof(Header{}.DType)]
	_ = [1]struct{}{}[unsafe.Offsetof(Header{}.Ndim)-unsafe.Offsetof(C.gd_header{}.ndim)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.gd_header{}.ndim)-unsafe.Offsetof(Header{}.Ndim)]
	_ = [1]struct{}{}[unsafe.Offsetof(Header{}.Device)-unsafe.Offsetof(C.gd_header{}.device)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.gd_header{}.device)-unsafe.Offsetof(Header{}.Device)]
	_ = [1]struct{}{}[unsafe.Offsetof(Header{}.Flags)-unsafe.Offsetof(C.gd_header{}.flags)]
	_ = [1]struct{}{}[unsafe.Offsetof(C.gd_header{}.flags)-unsafe.Offsetof(Header{}.Flags)]
)

// LayoutCheck is one size or offset compared between a Go mirror and its C
// definition.
type LayoutCheck struct {
	Type, Field string
	Go, C       uintptr
}

// LayoutTable lists every compared size and field offset, for tests.
func LayoutTable() []LayoutCheck {
	return []LayoutCheck{
		{"Version", "size", unsafe.Sizeof(Version{}), unsafe.Sizeof(C.DLPackVersion{})},
		{"Version", "Major", unsafe.Offsetof(Version{}.Major), unsafe.Offsetof(C.DLPackVersion{}.major)},
		{"Version", "Minor", unsafe.Offsetof(Version{}.Minor), unsafe.Offsetof(C.DLPackVersion{}.minor)},
		{"Device", "size", unsafe.Sizeof(Device{}), unsafe.Sizeof(C.DLDevice{})},
		{"Device", "Type", unsafe.Offsetof(Device{}.Type), unsafe.Offsetof(C.DLDevice{}.device_type)},
		{"Device", "ID", unsafe.Offsetof(Device{}.ID), unsafe.Offsetof(C.DLDevice{}.device_id)},
		{"DataType", "size", unsafe.Sizeof(DataType{}), unsafe.Sizeof(C.DLDataType{})},
		{"DataType", "Code", unsafe.Offsetof(DataType{}.Code), unsafe.Offsetof(C.DLDataType{}.code)},
		{"DataType", "Bits", unsafe.Offsetof(DataType{}.Bits), unsafe.Offsetof(C.DLDataType{}.bits)},
		{"DataType", "Lanes", unsafe.Offsetof(DataType{}.Lanes), unsafe.Offsetof(C.DLDataType{}.lanes)},
		{"DLTensor", "size", unsafe.Sizeof(DLTensor{}), unsafe.Sizeof(C.DLTensor{})},
		{"DLTensor", "Data", unsafe.Offsetof(DLTensor{}.Data), unsafe.Offsetof(C.DLTensor{}.data)},
		{"DLTensor", "Device", unsafe.Offsetof(DLTensor{}.Device), unsafe.Offsetof(C.DLTensor{}.device)},
		{"DLTensor", "Ndim", unsafe.Offsetof(DLTensor{}.Ndim), unsafe.Offsetof(C.DLTensor{}.ndim)},
		{"DLTensor", "DType", unsafe.Offsetof(DLTensor{}.DType), unsafe.Offsetof(C.DLTensor{}.dtype)},
		{"DLTensor", "Shape", unsafe.Offsetof(DLTensor{}.Shape), unsafe.Offsetof(C.DLTensor{}.shape)},
		{"DLTensor", "Strides", unsafe.Offsetof(DLTensor{}.Strides), unsafe.Offsetof(C.DLTensor{}.strides)},
		{"DLTensor", "ByteOffset", unsafe.Offsetof(DLTensor{}.ByteOffset), unsafe.Offsetof(C.DLTensor{}.byte_offset)},
		{"DLManagedTensor", "size", unsafe.Sizeof(DLManagedTensor{}), unsafe.Sizeof(C.DLManagedTensor{})},
		{"DLManagedTensor", "DLTensor", unsafe.Offsetof(DLManagedTensor{}.DLTensor), unsafe.Offsetof(C.DLManagedTensor{}.dl_tensor)},
		{"DLManagedTensor", "ManagerCtx", unsafe.Offsetof(DLManagedTensor{}.ManagerCtx), unsafe.Offsetof(C.DLManagedTensor{}.manager_ctx)},
		{"DLManagedTensor", "Deleter", unsafe.Offsetof(DLManagedTensor{}.Deleter), unsafe.Offsetof(C.DLManagedTensor{}.deleter)},
		{"DLManagedTensorVersioned", "size", unsafe.Sizeof(DLManagedTensorVersioned{}), unsafe.Sizeof(C.DLManagedTensorVersioned{})},
		{"DLManagedTensorVersioned", "Version", unsafe.Offsetof(DLManagedTensorVersioned{}.Version), unsafe.Offsetof(C.DLManagedTensorVersioned{}.version)},
		{"DLManagedTensorVersioned", "ManagerCtx", unsafe.Offsetof(DLManagedTensorVersioned{}.ManagerCtx), unsafe.Offsetof(C.DLManagedTensorVersioned{}.manager_ctx)},
		{"DLManagedTensorVersioned", "Deleter", unsafe.Offsetof(DLManagedTensorVersioned{}.Deleter), unsafe.Offsetof(C.DLManagedTensorVersioned{}.deleter)},
		{"DLManagedTensorVersioned", "Flags", unsafe.Offsetof(DLManagedTensorVersioned{}.Flags), unsafe.Offsetof(C.DLManagedTensorVersioned{}.flags)},
		{"DLManagedTensorVersioned", "DLTensor", unsafe.Offsetof(DLManagedTensorVersioned{}.DLTensor), unsafe.Offsetof(C.DLManagedTensorVersioned{}.dl_tensor)},
		{"Header", "size", unsafe.Sizeof(Header{}), unsafe.Sizeof(C.gd_header{})},
		{"Header", "Data", unsafe.Offsetof(Header{}.Data), unsafe.Offsetof(C.gd_header{}.data)},
		{"Header", "Owner", unsafe.Offsetof(Header{}.Owner), unsafe.Offsetof(C.gd_header{}.owner)},
		{"Header", "Offset", unsafe.Offsetof(Header{}.Offset), unsafe.Offsetof(C.gd_header{}.offset)},
		{"Header", "DType", unsafe.Offsetof(Header{}.DType), unsafe.Offsetof(C.gd_header{}.dtype)},
		{"Header", "Ndim", unsafe.Offsetof(Header{}.Ndim), unsafe.Offsetof(C.gd_header{}.ndim)},
		{"Header", "Device", unsafe.Offsetof(Header{}.Device), unsafe.Offsetof(C.gd_header{}.device)},
		{"Header", "Flags", unsafe.Offsetof(Header{}.Flags), unsafe.Offsetof(C.gd_header{}.flags)},
	}
}
