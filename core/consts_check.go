package core

/*
#include "godlpack.h"
*/
import "C"

import (
	"github.com/godlpack/godlpack/backends"
	"github.com/godlpack/godlpack/core/kernels"
)

// Build-time proof that every number C and Go share has one value: the
// DLPack enums and flag bits of dlpack.h, and godlpack's own constants of
// godlpack.h. `[1]struct{}{}[a-b]` compiles only when a == b (a constant
// index must be 0 here: a negative or too large one is a compile error), so
// a change on one side without the other fails `go build`.
var (
	_ = [1]struct{}{}[C.DLPACK_MAJOR_VERSION-DLPackMajor]
	_ = [1]struct{}{}[C.DLPACK_MINOR_VERSION-DLPackMinor]
	_ = [1]struct{}{}[C.GD_EXCHANGE_API_MIN_MINOR-ExchangeAPIMinMinor]

	_ = [1]struct{}{}[C.kDLCPU-int64(KDLCPU)]
	_ = [1]struct{}{}[C.kDLCUDA-int64(KDLCUDA)]
	_ = [1]struct{}{}[C.kDLCUDAHost-int64(KDLCUDAHost)]
	_ = [1]struct{}{}[C.kDLOpenCL-int64(KDLOpenCL)]
	_ = [1]struct{}{}[C.kDLVulkan-int64(KDLVulkan)]
	_ = [1]struct{}{}[C.kDLMetal-int64(KDLMetal)]
	_ = [1]struct{}{}[C.kDLVPI-int64(KDLVPI)]
	_ = [1]struct{}{}[C.kDLROCM-int64(KDLROCM)]
	_ = [1]struct{}{}[C.kDLROCMHost-int64(KDLROCMHost)]
	_ = [1]struct{}{}[C.kDLExtDev-int64(KDLExtDev)]
	_ = [1]struct{}{}[C.kDLCUDAManaged-int64(KDLCUDAManaged)]
	_ = [1]struct{}{}[C.kDLOneAPI-int64(KDLOneAPI)]
	_ = [1]struct{}{}[C.kDLWebGPU-int64(KDLWebGPU)]
	_ = [1]struct{}{}[C.kDLHexagon-int64(KDLHexagon)]
	_ = [1]struct{}{}[C.kDLMAIA-int64(KDLMAIA)]
	_ = [1]struct{}{}[C.kDLTrn-int64(KDLTrn)]

	_ = [1]struct{}{}[C.kDLInt-int64(KDLInt)]
	_ = [1]struct{}{}[C.kDLUInt-int64(KDLUInt)]
	_ = [1]struct{}{}[C.kDLFloat-int64(KDLFloat)]
	_ = [1]struct{}{}[C.kDLOpaqueHandle-int64(KDLOpaqueHandle)]
	_ = [1]struct{}{}[C.kDLBfloat-int64(KDLBfloat)]
	_ = [1]struct{}{}[C.kDLComplex-int64(KDLComplex)]
	_ = [1]struct{}{}[C.kDLBool-int64(KDLBool)]
	_ = [1]struct{}{}[C.kDLFloat8_e3m4-int64(KDLFloat8E3M4)]
	_ = [1]struct{}{}[C.kDLFloat8_e4m3-int64(KDLFloat8E4M3)]
	_ = [1]struct{}{}[C.kDLFloat8_e4m3b11fnuz-int64(KDLFloat8E4M3B11FNUZ)]
	_ = [1]struct{}{}[C.kDLFloat8_e4m3fn-int64(KDLFloat8E4M3FN)]
	_ = [1]struct{}{}[C.kDLFloat8_e4m3fnuz-int64(KDLFloat8E4M3FNUZ)]
	_ = [1]struct{}{}[C.kDLFloat8_e5m2-int64(KDLFloat8E5M2)]
	_ = [1]struct{}{}[C.kDLFloat8_e5m2fnuz-int64(KDLFloat8E5M2FNUZ)]
	_ = [1]struct{}{}[C.kDLFloat8_e8m0fnu-int64(KDLFloat8E8M0FNU)]
	_ = [1]struct{}{}[C.kDLFloat6_e2m3fn-int64(KDLFloat6E2M3FN)]
	_ = [1]struct{}{}[C.kDLFloat6_e3m2fn-int64(KDLFloat6E3M2FN)]
	_ = [1]struct{}{}[C.kDLFloat4_e2m1fn-int64(KDLFloat4E2M1FN)]

	_ = [1]struct{}{}[C.DLPACK_FLAG_BITMASK_READ_ONLY-FlagReadOnly]
	_ = [1]struct{}{}[C.DLPACK_FLAG_BITMASK_IS_COPIED-FlagIsCopied]
	_ = [1]struct{}{}[C.DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED-FlagIsSubbyteTypePadded]

	_ = [1]struct{}{}[C.GD_MAX_NDIM-MaxNdim]
	_ = [1]struct{}{}[C.GD_ALIGNMENT-Alignment]
	_ = [1]struct{}{}[C.GD_FLAG_READONLY-HeaderReadOnly]
	_ = [1]struct{}{}[C.GD_FLAG_SUBBYTE_PADDED-HeaderSubBytePadded]
	_ = [1]struct{}{}[C.GD_FLAG_HOST-HeaderHost]
	_ = [1]struct{}{}[C.GD_FLAG_C_CONTIG-HeaderCContig]
	_ = [1]struct{}{}[C.GD_FLAG_F_CONTIG-HeaderFContig]
	_ = [1]struct{}{}[C.GD_COPY_IF_NEEDED-int64(CopyIfNeeded)]
	_ = [1]struct{}{}[C.GD_COPY_ALWAYS-int64(CopyAlways)]
	_ = [1]struct{}{}[C.GD_COPY_NEVER-int64(CopyNever)]
	_ = [1]struct{}{}[C.GD_RETRY_NONE-int64(RetryNone)]
	_ = [1]struct{}{}[C.GD_RETRY_HOST_COPY-int64(RetryHostCopy)]
	_ = [1]struct{}{}[C.GD_RETRY_DLPACK-int64(RetryDLPack)]
	_ = [1]struct{}{}[C.GD_RETRY_STREAM-int64(RetryStream)]

	_ = [1]struct{}{}[C.GD_ERR_BUFFER-int64(ClassBuffer)]
	_ = [1]struct{}{}[C.GD_ERR_TYPE-int64(ClassType)]
	_ = [1]struct{}{}[C.GD_ERR_VALUE-int64(ClassValue)]
	_ = [1]struct{}{}[C.GD_ERR_MEMORY-int64(ClassMemory)]
	_ = [1]struct{}{}[C.GD_ERR_RUNTIME-int64(ClassRuntime)]
	_ = [1]struct{}{}[C.GD_ERR_INDEX-int64(ClassIndex)]
	_ = [1]struct{}{}[C.GD_ERR_OVERFLOW-int64(ClassOverflow)]
	_ = [1]struct{}{}[C.GD_ERR_IMPORT-int64(ClassImport)]

	_ = [1]struct{}{}[C.GD_IDX_INT-int64(IdxInt)]
	_ = [1]struct{}{}[C.GD_IDX_SLICE-int64(IdxSlice)]
	_ = [1]struct{}{}[C.GD_IDX_ELLIPSIS-int64(IdxEllipsis)]
	_ = [1]struct{}{}[C.GD_IDX_NEWAXIS-int64(IdxNewAxis)]
	_ = [1]struct{}{}[C.GD_MAX_INDEX_OPS-2*MaxNdim]
	_ = [1]struct{}{}[C.GD_DEVTYPE_MAX-int64(KDLTrn)]
)

// core and its backends agree on the alignment of allocations.
var _ = [1]struct{}{}[backends.Alignment-Alignment]

// core and its kernels agree on the most axes, and on the order of the
// float8 kinds (elemKind adds a code's distance from kDLFloat8_e3m4).
var (
	_ = [1]struct{}{}[kernels.MaxNdim-MaxNdim]
	_ = [1]struct{}{}[MaxNdim-kernels.MaxNdim]
	_ = [1]struct{}{}[int(kernels.Float8E4M3-kernels.Float8E3M4)-int(KDLFloat8E4M3-KDLFloat8E3M4)]
	_ = [1]struct{}{}[int(kernels.Float8E4M3B11FNUZ-kernels.Float8E3M4)-int(KDLFloat8E4M3B11FNUZ-KDLFloat8E3M4)]
	_ = [1]struct{}{}[int(kernels.Float8E4M3FN-kernels.Float8E3M4)-int(KDLFloat8E4M3FN-KDLFloat8E3M4)]
	_ = [1]struct{}{}[int(kernels.Float8E4M3FNUZ-kernels.Float8E3M4)-int(KDLFloat8E4M3FNUZ-KDLFloat8E3M4)]
	_ = [1]struct{}{}[int(kernels.Float8E5M2-kernels.Float8E3M4)-int(KDLFloat8E5M2-KDLFloat8E3M4)]
	_ = [1]struct{}{}[int(kernels.Float8E5M2FNUZ-kernels.Float8E3M4)-int(KDLFloat8E5M2FNUZ-KDLFloat8E3M4)]
	_ = [1]struct{}{}[int(kernels.Float8E8M0FNU-kernels.Float8E3M4)-int(KDLFloat8E8M0FNU-KDLFloat8E3M4)]
)
