package core_test

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// Importing a tensor that a C library produced: godlpack validates it, takes
// ownership and calls its deleter exactly once, when the last array over the
// memory is released.
func ExampleImportVersioned() {
	// A producer hands over a read-only 2x3 float32 tensor in C memory (here
	// a test fixture whose deleter counts its calls).
	m := cfixture.Versioned(cfixture.Spec{
		Version: core.DLPackVersion, Flags: core.FlagReadOnly,
		Device: core.CPU, DType: core.Float32, Ndim: 2, Shape: []int64{2, 3},
		DataBytes: 24, // strides left NULL: C-contiguous
	})
	defer cfixture.Free(m)

	a, err := core.ImportVersioned(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("shape", a.Shape(), "strides", a.Strides(), "read-only", a.ReadOnly())
	a.Release()
	fmt.Println("deleter calls:", cfixture.Calls(m))

	// A tensor from an unknown major version is refused, and its deleter
	// is still called exactly once.
	bad := cfixture.Truncated(core.Version{Major: 2})
	defer cfixture.Free(bad)
	_, err = core.ImportVersioned(bad)
	fmt.Println(errors.Is(err, core.ErrVersion), core.ClassOf(err), "deleter calls:", cfixture.Calls(bad))
	// Output:
	// shape [2 3] strides [3 1] read-only true
	// deleter calls: 1
	// true BufferError deleter calls: 1
}

// Exporting an array for a C consumer: one C allocation holds the struct,
// its shape and its strides; data points at the first element, strides are
// kept as they are; the consumer calls the deleter when done.
func ExampleArray_ExportVersioned() {
	a, err := core.Zeros(core.Int64, 2, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	owner := a.Header().Owner
	at := a.T() // a transposed view: shape [3 2], strides [1 3]
	a.Release()

	out, err := at.ExportVersioned(core.FlagIsCopied)
	if err != nil {
		fmt.Println(err)
		return
	}
	t := &out.DLTensor
	fmt.Println("version", out.Version, "flags", out.Flags, "byte_offset", t.ByteOffset,
		"shape", unsafe.Slice(t.Shape, t.Ndim), "strides", unsafe.Slice(t.Strides, t.Ndim))
	at.Release()
	fmt.Println("owner references held by the export:", owner.Refs())

	// The consumer (here godlpack itself) takes the export and releases it;
	// that frees the memory.
	b, err := core.ImportVersioned(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("consumer sees", b.Shape(), b.Strides(), b.DType())
	b.Release()
	// Output:
	// version {1 3} flags 2 byte_offset 0 shape [3 2] strides [1 3]
	// owner references held by the export: 1
	// consumer sees [3 2] [1 3] int64
}
