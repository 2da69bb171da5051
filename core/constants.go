package core

// The DLPack version godlpack produces and understands. C twin:
// DLPACK_MAJOR_VERSION / DLPACK_MINOR_VERSION in dlpack.h (checked in
// consts_check.go).
const (
	DLPackMajor = 1
	DLPackMinor = 3
)

// ExchangeAPIMinMinor is the first minor version of DLPack's C exchange API
// (DLPackExchangeAPI appeared in 1.2): the oldest godlpack speaks (C9). C
// twin: GD_EXCHANGE_API_MIN_MINOR in godlpack.h (checked in consts_check.go).
const ExchangeAPIMinMinor = 2

// DLPackVersion is the version godlpack produces and understands.
var DLPackVersion = Version{Major: DLPackMajor, Minor: DLPackMinor}

// Ours. C twin: core/godlpack.h (checked in consts_check.go).
const (
	// MaxNdim is the largest ndim godlpack imports or creates.
	MaxNdim = 64
	// Alignment is the byte alignment of every buffer godlpack allocates.
	Alignment = 256
	// HeaderReadOnly is the read-only bit of Header.Flags.
	HeaderReadOnly uint64 = 1 << 0
	// HeaderSubBytePadded marks arrays whose sub-byte elements (float6,
	// float4) each fill a whole byte, as a producer signals with
	// FlagIsSubbyteTypePadded. Without it, sub-byte data is packed.
	HeaderSubBytePadded uint64 = 1 << 1

	// Derived flags: facts core decides about an array's memory and layout
	// (Header.SetDerivedFlags) that the C skin only reads.

	// HeaderHost: the CPU can address the data (CPUAccessible).
	HeaderHost uint64 = 1 << 2
	// HeaderCContig: C-contiguous (row-major, no gaps).
	HeaderCContig uint64 = 1 << 3
	// HeaderFContig: Fortran-contiguous (column-major, no gaps).
	HeaderFContig uint64 = 1 << 4
)
