package core_test

import (
	"errors"
	"fmt"

	"github.com/godlpack/godlpack/core"
)

// A consumer calls a.__dlpack__(max_version=(1, 3), copy=True): the CPU array
// is exported as a versioned capsule holding a fresh copy marked IS_COPIED.
func ExamplePlanExport() {
	p, err := core.PlanExport(core.CPU, false, core.ExportRequest{
		MaxVersion: core.Version{Major: 1, Minor: 3}, HasMaxVersion: true,
		Copy: core.CopyAlways,
	})
	fmt.Println(p.Versioned, p.Version, p.Copy, p.Target, p.ExtraFlags == core.FlagIsCopied, err)

	// An old consumer (no max_version) asks for a read-only array.
	_, err = core.PlanExport(core.CPU, true, core.ExportRequest{})
	fmt.Println(core.ClassOf(err), errors.Is(err, core.ErrReadOnlyLegacy))
	fmt.Println(err)

	// A CPU array cannot be sent to a CUDA device yet.
	_, err = core.PlanExport(core.CPU, false, core.ExportRequest{
		HasDLDevice: true, DLDevice: core.Device{Type: core.KDLCUDA, ID: 0},
	})
	fmt.Println(core.ClassOf(err), err)
	// Output:
	// true {1 3} true cpu:0 true <nil>
	// BufferError true
	// __dlpack__(): a read-only array cannot be exported as a legacy capsule (max_version=None); pass max_version=(1, 0) or newer
	// BufferError __dlpack__(): dl_device=(2, 0) cannot be reached from an array on cpu:0; pass dl_device=None or (1, 0)
}

// from_dlpack(x, device="cpu", copy=False) on a tensor in pinned CUDA host
// memory: bringing it to kDLCPU needs a copy, which copy=False forbids.
func ExamplePlanImport() {
	pinned := core.Device{Type: core.KDLCUDAHost}
	dev, _ := core.ParseDevice("cpu")

	p, err := core.PlanImport(pinned, 0, core.ImportRequest{Device: dev, HasDevice: true})
	fmt.Println(p.Copy, p.Device, err)

	_, err = core.PlanImport(pinned, 0, core.ImportRequest{Device: dev, HasDevice: true, Copy: core.CopyNever})
	fmt.Println(core.ClassOf(err), err)

	// copy=True and a negotiated producer that already copied: nothing left to do.
	p, err = core.PlanImport(core.CPU, core.FlagIsCopied, core.ImportRequest{Copy: core.CopyAlways, Negotiated: true})
	fmt.Println(p.Copy, err)
	// Output:
	// true cpu:0 <nil>
	// BufferError from_dlpack(): copy=False but device=cpu:0 needs a copy of a tensor on cuda_host:0; pass copy=None or True
	// false <nil>
}

func ExampleParseDataType() {
	for _, name := range []string{"float32", "bool_", "float8_e4m3fn", "float4_e2m1fn"} {
		d, _ := core.ParseDataType(name)
		fmt.Println(d, d.Code, d.Bits, d.ItemSize())
	}
	_, err := core.ParseDataType("float128")
	fmt.Println(core.ClassOf(err), err)
	// Output:
	// float32 2 32 4
	// bool 6 8 1
	// float8_e4m3fn 10 8 1
	// float4_e2m1fn 17 4 0
	// ValueError unknown dtype "float128"; use a name such as "float32", "int64", "bool" or "float8_e4m3fn"
}
