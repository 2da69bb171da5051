package core

// Defined by the specification. C twin: core/godlpack.h.
const (
	CapsuleLegacy        = "dltensor"
	CapsuleLegacyUsed    = "used_dltensor"
	CapsuleVersioned     = "dltensor_versioned"
	CapsuleVersionedUsed = "used_dltensor_versioned"
	CapsuleExchangeAPI   = "dlpack_exchange_api"
)

// DLPackVersion is the version godlpack produces and understands.
var DLPackVersion = Version{Major: 1, Minor: 3}

// Ours. C twin: core/godlpack.h.
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
)
