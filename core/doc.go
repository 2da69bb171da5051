// Package core is godlpack's model of DLPack 1.3 and its rules: the ABI
// structs, data types and devices, validation and import of foreign
// tensors, export, the negotiation rules of __dlpack__ and from_dlpack, the
// Array type with views, numpy's rules for the operations on arrays
// (promotion, broadcasting, reductions' dtypes, arange), and the sentinel
// errors. It knows nothing about Python: the CPython skin in pyext calls it
// at most once per operation and maps its errors to exceptions. The no-copy
// CPU export and import have a pure-C twin for speed (fastpath.c, declared
// in godlpack.h) that accepts a bounded subset and leaves everything else,
// errors included, to this package; tests_go proves the two agree.
//
// core is the middle of three packages that import downward only
// (tests_go/layers_test.go):
//
//	core/conformance   the conformance checker's judge; core reaches it
//	                   through Judge, which it sets
//	core               this package: the model, the rules, the checks
//	core/kernels       the loops over raw memory (copies, fills,
//	                   conversions, comparisons, reductions, the SIMD
//	                   rows), which know nothing of DLPack: core checks
//	                   the operands and hands them plain pointers, strides
//	                   and kernels.Kind
//
// # Files
//
// One concern per file; docs/architecture.md maps every DLPack rule to the
// file that decides it.
//
//	abi.go, abi_check.go  DLPack structs and enums (Version, Device, DataType,
//	                      DLTensor, DLManagedTensor[Versioned], Flag* bits);
//	                      build-time check that they match dlpack.h
//	consts_check.go       build-time check of every number C and Go share
//	constants.go          DLPackVersion (1.3), MaxNdim, Alignment, Header flags
//	dtype.go, tables.go   predefined DataTypes, names, ParseDataType, sizes,
//	                      ValidateDataType; the aliases Python's tables use
//	device.go             device type names, ParseDevice, ValidateDevice,
//	                      DeviceArg (a user's device argument), and
//	                      the device facts: CPUAccessible, FoldsByteOffset
//	backend.go            the backends.Backend of a device
//	negotiate.go          PlanExport (rules P1–P5), PlanImport (C5–C7, C9)
//	serve.go              ServeExport / ServeImport: the whole bodies of the
//	                      CPython skin's two hot operations
//	errors.go             Class, sentinel errors, ClassOf, WithClass
//	header.go, owner.go   Header (the fixed part of an array, with the derived
//	                      flags the skin reads) and Owner (the refcounted C
//	                      owner of the memory)
//	validate.go, import.go, export.go
//	                      DescribeVersioned/Legacy, ImportVersioned/Legacy,
//	                      ExportVersioned/Legacy, ExportView
//	layout.go             C- and Fortran-contiguity, contiguous strides
//	array.go, view.go, desc.go, typed.go, iter.go, rows.go
//	                      Array, Empty/Zeros, views (Index, Slice, Transpose,
//	                      Reshape), zero-allocation descriptor kernels
//	                      (ApplyIndex, ReshapeDesc), typed access, iteration
//	                      (All, Values; Rows, ReadRows: rows as slices)
//	copy.go, fill.go, devcopy.go
//	                      CopyInto, Fill (their checks; the loops are
//	                      kernels.Copy, kernels.Fill), and both on memory the
//	                      CPU cannot address, staged through its backend
//	convert.go, float16.go
//	                      ConvertInto, AsType: which dtypes convert (the
//	                      loops are kernels.Convert); float16/bfloat16 and
//	                      sub-byte decoding
//	compare.go            element-wise comparisons: CompareOp, Scalar,
//	                      Operand, CompareShape (broadcasting), CompareInto,
//	                      Array.Compare, the element a Python scalar stands
//	                      for (NEP 50); the loops are kernels.Compare
//	reduce.go, round.go   reductions (ReduceOp, PlanReduce, Reduction's Begin,
//	                      Accumulate, End; Sum): axes, keepdims, numpy's
//	                      result and accumulator dtypes, dtype=/out= checks;
//	                      the loops are kernels.Reducer
//	ops.go, ops_plans.go  RunOp: every operation of the skin other than the
//	                      exchange, read from its C gd_op in one crossing
//	kit.go, blocks.go, mapblocks.go, blockcheck.go, reader_kernels.go
//	                      what the extension kit needs of an Array (Borrow,
//	                      lending), buffered iteration in contiguous blocks
//	                      (Blocks, ReadBlocks, MapBlocks), the checks that a
//	                      block is used only during its step, and the typed
//	                      kernels over a Reader
//	abi_nocgo.go          a clear build error without cgo
//	owner.c               C: owner refcounting and deleters
//	exchange.c            C: the import as steps (gd_import_next), the
//	                      facts of other libraries' types, numpy's route
//	buffer.c, bufferfmt.c C: bytes and Py_buffer views seen as tensors; the
//	                      formats (PEP 3118, Arrow) of each dtype
//	arrow.c               C: an array as Arrow's C data interface
//	chunk.c               C: the chunks of a long operation (Ctrl-C between them)
//	probe.c               C: the conformance checker's counting deleters
//	fastpath.c, glue.h    C: the zero-crossing twin of the no-copy export
//	                      and import, and the glue that runs it before the
//	                      one call into Go (ServeExport / ServeImport)
//	promote.go, scalarkind.c
//	                      numpy's promotion of dtypes (PromoteTypes,
//	                      ResultType) and the dtype of a Python number
//	arange.c              C: numpy's arange (length, dtype, arithmetic)
//	addrspace.go          the address space the Go runtime reserves
//
// # Data types and devices
//
// DataType is DLDataType {Code, Bits, Lanes}. Every scalar type of DLPack 1.3
// has a predefined value (Float32, BFloat16, Complex128, Bool,
// Float8E4M3FN, Float6E2M3FN, Float4E2M1FN, ...) whose String is the numpy /
// ml_dtypes name ("float32", "float8_e4m3fn"); ParseDataType is its inverse
// (plus "bool_" and numpy codes such as "f4"). Vector types (Lanes != 1) and
// opaque handles are refused. Float6 and float4 types are sub-byte: packed
// (ItemSize 0, PackedBytes gives the storage) unless the producer sets
// FlagIsSubbyteTypePadded, in which case each element fills one byte
// (StorageItemSize). Packed sub-byte arrays are only exchanged whole
// (C-contiguous, offset 0); views and copies of them fail with
// ErrSubByteView.
//
// Device is DLDevice {Type, ID}; String gives "cpu:0", "cuda:1", and
// ParseDevice reads the same forms. Memory of kDLCPU, kDLCUDAHost,
// kDLROCMHost and kDLCUDAManaged is CPU-accessible (CPUAccessible, or the
// device's backend); godlpack's cpu backend can copy it to kDLCPU. No other
// device is reachable yet. On the CPU an import adds byte_offset to data and
// an export points data at the first element; other devices keep their data
// pointer, which may be an opaque handle, and carry the offset in
// byte_offset (FoldsByteOffset).
//
// # Negotiation
//
// PlanExport turns the keywords of __dlpack__ (stream, max_version,
// dl_device, copy) into an ExportPlan: versioned or legacy, copy or view,
// target device, extra flags. PlanImport decides what from_dlpack must still
// do once it holds the producer's tensor (copy, or refuse). Both are plain
// functions without side effects that allocate nothing on success; the
// caller carries the plan out with ExportVersioned/ExportLegacy, Copy, and
// so on.
//
// # Ownership and lifetime
//
// Tensor memory is always C memory, never the Go heap, so that Python,
// foreign libraries and forked children may hold it. Each buffer belongs to
// an Owner, a reference-counted C struct (gd_owner) that frees our buffer or
// calls a foreign deleter when its last reference goes; releasing never needs
// the Go runtime, so it is safe from any thread and during interpreter
// shutdown.
//
//   - An Array (and every view of it) holds one reference to its Owner.
//     Array.Release drops it and is idempotent; the last view to go releases
//     the memory. A cleanup attached by the runtime is only a safety net:
//     call Release.
//   - NewArray retains the header's owner: the caller keeps its own reference.
//   - Importing takes ownership of a foreign managed tensor: from then on its
//     deleter is called exactly once, when the last Array over it is released.
//     If ImportVersioned or ImportLegacy fails, the deleter has already been
//     called exactly once. DescribeVersioned/Legacy only read the tensor and
//     never call its deleter: the Python skin decides, by renaming the
//     capsule, who owns it (docs/rules.md C3, C4).
//   - Exporting allocates one C block holding the managed struct, shape and
//     strides, retains the owner and stores it in manager_ctx; the exported
//     deleter drops that reference and frees the block. The consumer calls it
//     exactly once, or the capsule destructor does if the capsule is never
//     consumed.
//   - Data pointers obtained from an Array are valid only while the Array (or
//     another reference to its owner) is alive.
//
// # Errors
//
// Every error wraps exactly one sentinel (ErrDType, ErrCopyNeeded, ...), so
// errors.Is works, and ClassOf gives the Python exception class: BufferError
// when a tensor cannot be exported or imported as asked, TypeError and
// ValueError for bad arguments, IndexError, MemoryError, RuntimeError for
// internal failures. Messages start with the entry point and end with the way
// out, e.g.
//
//	__dlpack__(): copy=False but dl_device=(1, 0) needs a copy; pass copy=None or True
package core
