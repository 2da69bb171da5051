package tests_go

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
)

// ---- export ----------------------------------------------------------------

type optVersion struct {
	set bool
	v   core.Version
}

type optDevice struct {
	set  bool
	same bool // the source device itself
	d    core.Device
}

type optStream struct {
	set bool
	s   int64
}

func (o optVersion) String() string {
	if !o.set {
		return "None"
	}
	return fmt.Sprintf("(%d, %d)", o.v.Major, o.v.Minor)
}

func (o optDevice) String() string {
	switch {
	case !o.set:
		return "None"
	case o.same:
		return "same"
	}
	return o.d.Tuple()
}

func (o optStream) String() string {
	if !o.set {
		return "None"
	}
	return fmt.Sprint(o.s)
}

var (
	maxVersions = []optVersion{
		{}, {true, core.Version{Major: 0, Minor: 8}}, {true, core.Version{Major: 1, Minor: 0}},
		{true, core.Version{Major: 1, Minor: 3}}, {true, core.Version{Major: 2, Minor: 0}},
		{true, core.Version{Major: 10, Minor: 10}},
	}
	dlDevices = []optDevice{
		{}, {set: true, same: true},
		{set: true, d: core.Device{Type: 1, ID: 0}}, {set: true, d: core.Device{Type: 2, ID: 0}},
		{set: true, d: core.Device{Type: 7, ID: 0}}, {set: true, d: core.Device{Type: 10, ID: 0}}, // Vulkan, ROCm: no backend
	}
	copyModes = []core.CopyMode{core.CopyIfNeeded, core.CopyAlways, core.CopyNever}
	streams   = []optStream{{}, {true, -1}, {true, 0}, {true, 1}, {true, 2}, {true, 1 << 40}}
	// Source devices: the CPU (what godlpack makes) and devices an imported
	// array may sit on.
	exportSources = []core.Device{
		core.CPU,
		{Type: core.KDLCUDAHost}, {Type: core.KDLCUDAManaged}, {Type: core.KDLROCMHost},
		{Type: core.KDLCUDA, ID: 0}, {Type: core.KDLCUDA, ID: 1}, {Type: core.KDLROCM}, {Type: core.KDLVulkan},
	}
)

type exportOutcome struct {
	err       *core.Error // nil: success
	versioned bool
	copy      bool
	target    core.Device
}

// exportOracle restates docs/rules.md P1–P5 and godlpack's decisions,
// independently of negotiate.go, as a list of questions asked in the order
// PlanExport documents.
func exportOracle(src core.Device, readOnly bool, mv optVersion, dl optDevice, cp core.CopyMode, st optStream) exportOutcome {
	legacy := !mv.set || mv.v.Major == 0
	if readOnly && legacy {
		return exportOutcome{err: core.ErrReadOnlyLegacy}
	}
	target := src
	if dl.set && !dl.same {
		target = dl.d
	}
	hostKinds := map[core.DeviceType]bool{1: true, 3: true, 11: true, 13: true}
	moved := target != src
	if moved && !(target == (core.Device{Type: 1, ID: 0}) && hostKinds[src.Type]) {
		return exportOutcome{err: core.ErrDevice}
	}
	if cp == core.CopyNever && moved {
		return exportOutcome{err: core.ErrCopyNeeded}
	}
	// copy=True in place: godlpack copies only memory the CPU can read.
	if cp == core.CopyAlways && !moved && !hostKinds[src.Type] {
		return exportOutcome{err: core.ErrDevice}
	}
	if st.set {
		ok := st.s == -1
		switch target.Type {
		case 2, 13: // CUDA, CUDA managed: 1, 2 and handles; 0 ambiguous
			ok = ok || st.s > 0
		case 10: // ROCm: 0 and handles
			ok = ok || st.s == 0 || st.s >= 3
		}
		if !ok {
			return exportOutcome{err: core.ErrStream}
		}
	}
	return exportOutcome{versioned: !legacy, copy: moved || cp == core.CopyAlways, target: target}
}

func TestPlanExportMatrix(t *testing.T) {
	t.Parallel()
	n := 0
	for _, src := range exportSources {
		for _, mv := range maxVersions {
			for _, dl := range dlDevices {
				for _, cp := range copyModes {
					for _, st := range streams {
						for _, ro := range []bool{false, true} {
							n++
							req := core.ExportRequest{
								MaxVersion: mv.v, HasMaxVersion: mv.set,
								HasDLDevice: dl.set, DLDevice: dl.d,
								Copy: cp, Stream: st.s, HasStream: st.set,
							}
							if dl.same {
								req.DLDevice = src
							}
							name := fmt.Sprintf("src=%v readonly=%v max_version=%v dl_device=%v copy=%v stream=%v", src, ro, mv, dl, cp, st)
							want := exportOracle(src, ro, mv, dl, cp, st)
							got, err := core.PlanExport(src, ro, req)
							if want.err != nil {
								if !errors.Is(err, want.err) {
									t.Errorf("%s: got (%+v, %v), want error %q", name, got, err, want.err.Error())
									continue
								}
								if c := core.ClassOf(err); c != want.err.Class() {
									t.Errorf("%s: class %v, want %v", name, c, want.err.Class())
								}
								if !strings.HasPrefix(err.Error(), "__dlpack__(): ") || !strings.Contains(err.Error(), "; pass ") {
									t.Errorf("%s: message %q lacks entry point or way out", name, err)
								}
								assert.Equal(t, core.ExportPlan{}, got, name)
								continue
							}
							if err != nil {
								t.Errorf("%s: got error %v, want success", name, err)
								continue
							}
							wantPlan := core.ExportPlan{Versioned: want.versioned, Copy: want.copy, Target: want.target}
							if want.versioned {
								wantPlan.Version = core.Version{Major: 1, Minor: 3}
								if want.copy {
									wantPlan.ExtraFlags = core.FlagIsCopied
								}
							}
							if got != wantPlan {
								t.Errorf("%s: got %+v, want %+v", name, got, wantPlan)
							}
						}
					}
				}
			}
		}
	}
	assert.Equal(t, len(exportSources)*6*6*3*6*2, n)
}

func TestPlanExportMessages(t *testing.T) {
	t.Parallel()
	host := core.Device{Type: core.KDLCUDAHost}
	tests := []struct {
		name string
		src  core.Device
		ro   bool
		req  core.ExportRequest
		want string
	}{
		{"copy needed", host, false,
			core.ExportRequest{HasDLDevice: true, DLDevice: core.CPU, Copy: core.CopyNever},
			"__dlpack__(): copy=False but dl_device=(1, 0) needs a copy; pass copy=None or True"},
		{"unreachable", core.CPU, false,
			core.ExportRequest{HasDLDevice: true, DLDevice: core.Device{Type: 2}},
			"__dlpack__(): dl_device=(2, 0) cannot be reached from an array on cpu:0; pass dl_device=None or (1, 0)"},
		{"read-only legacy", core.CPU, true,
			core.ExportRequest{},
			"__dlpack__(): a read-only array cannot be exported as a legacy capsule (max_version=None); pass max_version=(1, 0) or newer"},
		{"read-only 0.8", core.CPU, true,
			core.ExportRequest{HasMaxVersion: true, MaxVersion: core.Version{Minor: 8}},
			"__dlpack__(): a read-only array cannot be exported as a legacy capsule (max_version=(0, 8)); pass max_version=(1, 0) or newer"},
		{"cpu stream", core.CPU, false,
			core.ExportRequest{HasStream: true, Stream: 1},
			"__dlpack__(): stream=1 is not supported for a kDLCPU tensor; pass stream=None or -1"},
		{"cuda stream 0", core.Device{Type: core.KDLCUDA}, false,
			core.ExportRequest{HasStream: true, Stream: 0},
			"__dlpack__(): stream=0 is ambiguous for a kDLCUDA tensor; pass stream=1 (legacy default), 2 (per-thread default), a stream handle or -1"},
		{"bad copy mode", core.CPU, false,
			core.ExportRequest{Copy: 7},
			"__dlpack__(): invalid copy mode 7; pass copy=None, True or False"},
	}
	for _, tt := range tests {
		_, err := core.PlanExport(tt.src, tt.ro, tt.req)
		require.Error(t, err, tt.name)
		assert.Equal(t, tt.want, err.Error(), tt.name)
	}
}

func TestPlanExportCopyArg(t *testing.T) {
	t.Parallel()
	for _, c := range []core.CopyMode{-1, 3, 100} {
		_, err := core.PlanExport(core.CPU, false, core.ExportRequest{Copy: c})
		assert.Truef(t, errors.Is(err, core.ErrCopyArg), "copy mode %d: %v", c, err)
		assert.Equal(t, core.ClassValue, core.ClassOf(err))
		_, err = core.PlanImport(core.CPU, 0, core.ImportRequest{Copy: c})
		assert.Truef(t, errors.Is(err, core.ErrCopyArg), "copy mode %d: %v", c, err)
	}
}

func TestPlanExportNoAlloc(t *testing.T) {
	// Not parallel: AllocsPerRun refuses parallel tests.
	reqs := []core.ExportRequest{
		{},
		{HasMaxVersion: true, MaxVersion: core.Version{Major: 1, Minor: 3}, HasDLDevice: true, DLDevice: core.CPU, Copy: core.CopyAlways, HasStream: true, Stream: -1},
		{HasMaxVersion: true, MaxVersion: core.Version{Major: 1}, Copy: core.CopyNever},
	}
	for _, req := range reqs {
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := core.PlanExport(core.CPU, false, req); err != nil {
				panic(err)
			}
		})
		assert.Zerof(t, allocs, "PlanExport(%+v) allocates", req)
	}
	allocs := testing.AllocsPerRun(200, func() {
		_, err := core.PlanExport(core.Device{Type: core.KDLCUDAManaged}, true, core.ExportRequest{
			HasMaxVersion: true, MaxVersion: core.Version{Major: 1}, HasDLDevice: true, DLDevice: core.CPU})
		if err != nil {
			panic(err)
		}
	})
	assert.Zero(t, allocs)
}

// ---- import ----------------------------------------------------------------

type optWant struct {
	set bool
	d   core.Device
}

func (o optWant) String() string {
	if !o.set {
		return "None"
	}
	return o.d.String()
}

type importOutcome struct {
	err    *core.Error
	copy   bool
	device core.Device
}

// importOracle restates C5–C7 and godlpack's decisions independently of
// negotiate.go.
func importOracle(got core.Device, flags uint64, want optWant, cp core.CopyMode, negotiated bool) importOutcome {
	result := got
	moved := false
	hostKind := func(t core.DeviceType) bool { return t == 1 || t == 3 || t == 11 || t == 13 }
	if want.set && !hostKind(want.d.Type) {
		return importOutcome{err: core.ErrDevice} // no backend for it (C7)
	}
	if want.set && want.d != got {
		cpuReadable := got.Type == 1 || got.Type == 3 || got.Type == 11 || got.Type == 13
		if want.d != core.CPU || !cpuReadable {
			return importOutcome{err: core.ErrDevice}
		}
		moved, result = true, want.d
	}
	switch cp {
	case core.CopyNever:
		if moved {
			return importOutcome{err: core.ErrCopyNeeded}
		}
		return importOutcome{device: result}
	case core.CopyAlways:
		producerCopied := negotiated && flags&core.FlagIsCopied != 0
		if !moved && !producerCopied && !hostKind(got.Type) {
			return importOutcome{err: core.ErrDevice} // no backend to copy with
		}
		return importOutcome{copy: moved || !producerCopied, device: result}
	}
	return importOutcome{copy: moved, device: result}
}

func TestPlanImportMatrix(t *testing.T) {
	t.Parallel()
	gots := []core.Device{
		core.CPU, {Type: core.KDLCUDA}, {Type: core.KDLCUDA, ID: 1}, {Type: core.KDLCUDAHost},
		{Type: core.KDLCUDAManaged}, {Type: core.KDLROCMHost}, {Type: core.KDLROCM}, {Type: core.KDLVulkan},
		{Type: core.KDLTrn, ID: 2},
	}
	wants := []optWant{
		{}, {true, core.CPU}, {true, core.Device{Type: core.KDLCUDA}}, {true, core.Device{Type: core.KDLCUDA, ID: 1}},
		{true, core.Device{Type: core.KDLCUDAHost}}, {true, core.Device{Type: core.KDLVulkan}},
	}
	flagSets := []uint64{0, core.FlagIsCopied, core.FlagReadOnly, core.FlagReadOnly | core.FlagIsCopied, core.FlagIsSubbyteTypePadded}
	for _, got := range gots {
		for _, want := range wants {
			for _, cp := range copyModes {
				for _, flags := range flagSets {
					for _, neg := range []bool{false, true} {
						name := fmt.Sprintf("got=%v device=%v copy=%v flags=%#x negotiated=%v", got, want, cp, flags, neg)
						exp := importOracle(got, flags, want, cp, neg)
						plan, err := core.PlanImport(got, flags, core.ImportRequest{Device: want.d, HasDevice: want.set, Copy: cp, Negotiated: neg})
						if exp.err != nil {
							if !errors.Is(err, exp.err) {
								t.Errorf("%s: got (%+v, %v), want error %q", name, plan, err, exp.err.Error())
								continue
							}
							if c := core.ClassOf(err); c != exp.err.Class() {
								t.Errorf("%s: class %v, want %v", name, c, exp.err.Class())
							}
							if !strings.HasPrefix(err.Error(), "from_dlpack(): ") || !strings.Contains(err.Error(), "; pass ") {
								t.Errorf("%s: message %q lacks entry point or way out", name, err)
							}
							continue
						}
						if err != nil {
							t.Errorf("%s: got error %v, want success", name, err)
							continue
						}
						wantPlan := core.ImportPlan{Copy: exp.copy, Device: exp.device}
						if plan != wantPlan {
							t.Errorf("%s: got %+v, want %+v", name, plan, wantPlan)
						}
					}
				}
			}
		}
	}
}

func TestPlanImportMessages(t *testing.T) {
	t.Parallel()
	_, err := core.PlanImport(core.Device{Type: core.KDLCUDAHost}, 0, core.ImportRequest{HasDevice: true, Device: core.CPU, Copy: core.CopyNever})
	require.Error(t, err)
	assert.Equal(t, "from_dlpack(): copy=False but device=cpu:0 needs a copy of a tensor on cuda_host:0; pass copy=None or True", err.Error())
	_, err = core.PlanImport(core.CPU, 0, core.ImportRequest{HasDevice: true, Device: core.Device{Type: core.KDLCUDA, ID: 1}})
	require.Error(t, err)
	assert.Equal(t, `from_dlpack(): godlpack has no memory backend for device=cuda:1; pass device=None or "cpu"`, err.Error())
	_, err = core.PlanImport(core.Device{Type: core.KDLVulkan}, 0, core.ImportRequest{HasDevice: true, Device: core.Device{Type: core.KDLVulkan}})
	require.Error(t, err, "a device without a backend is refused even when the tensor is already there")
	assert.Equal(t, core.ClassBuffer, core.ClassOf(err))
	_, err = core.PlanImport(core.CPU, 0, core.ImportRequest{HasDevice: true, Device: core.Device{Type: core.KDLCUDAHost}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot be reached")
}

func TestPlanImportNoAlloc(t *testing.T) {
	// Not parallel: AllocsPerRun refuses parallel tests.
	reqs := []core.ImportRequest{
		{},
		{HasDevice: true, Device: core.CPU, Copy: core.CopyAlways, Negotiated: true},
		{HasDevice: true, Device: core.CPU, Copy: core.CopyNever},
	}
	for _, req := range reqs {
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := core.PlanImport(core.CPU, core.FlagIsCopied, req); err != nil {
				panic(err)
			}
		})
		assert.Zerof(t, allocs, "PlanImport(%+v) allocates", req)
	}
}

func TestCanCopy(t *testing.T) {
	t.Parallel()
	for _, src := range core.DeviceTypes {
		for _, dst := range core.DeviceTypes {
			if src == core.KDLOneAPI || dst == core.KDLOneAPI {
				continue // a registered backend: tests_go/oneapi (TestCanCopyWithOneAPI)
			}
			s, d := core.Device{Type: src}, core.Device{Type: dst}
			want := dst == core.KDLCPU && (src == core.KDLCPU || src == core.KDLCUDAHost || src == core.KDLROCMHost || src == core.KDLCUDAManaged)
			assert.Equalf(t, want, core.CanCopy(s, d), "CanCopy(%v, %v)", s, d)
		}
	}
	assert.False(t, core.CanCopy(core.CPU, core.Device{Type: core.KDLCPU, ID: 1}))
	assert.False(t, core.CanCopy(core.Device{Type: 6}, core.CPU))
}

func TestCopyModeString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "None", core.CopyIfNeeded.String())
	assert.Equal(t, "True", core.CopyAlways.String())
	assert.Equal(t, "False", core.CopyNever.String())
	assert.Equal(t, "CopyMode(5)", core.CopyMode(5).String())
}
