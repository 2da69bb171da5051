//go:build pyext

package pyext

/*
#include "bridge.h"
*/
import "C"

import "github.com/godlpack/godlpack/core"

// Build-time proof that the numbers of bridge.h are core's: error classes,
// and index kinds cross the boundary as plain ints.
// `[1]struct{}{}[a-b]` compiles only when a == b.
var (
	_ = [1]struct{}{}[C.GD_ERR_BUFFER-int64(core.ClassBuffer)]
	_ = [1]struct{}{}[C.GD_ERR_TYPE-int64(core.ClassType)]
	_ = [1]struct{}{}[C.GD_ERR_VALUE-int64(core.ClassValue)]
	_ = [1]struct{}{}[C.GD_ERR_MEMORY-int64(core.ClassMemory)]
	_ = [1]struct{}{}[C.GD_ERR_RUNTIME-int64(core.ClassRuntime)]
	_ = [1]struct{}{}[C.GD_ERR_INDEX-int64(core.ClassIndex)]

	_ = [1]struct{}{}[C.GD_IDX_INT-int64(core.IdxInt)]
	_ = [1]struct{}{}[C.GD_IDX_SLICE-int64(core.IdxSlice)]
	_ = [1]struct{}{}[C.GD_IDX_ELLIPSIS-int64(core.IdxEllipsis)]
	_ = [1]struct{}{}[C.GD_IDX_NEWAXIS-int64(core.IdxNewAxis)]
	_ = [1]struct{}{}[C.GD_MAX_INDEX_OPS-2*core.MaxNdim]

	_ = [1]struct{}{}[C.GD_DEVTYPE_MAX-int64(core.KDLTrn)]
)
