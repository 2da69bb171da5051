package tests_go

import (
	"encoding/binary"
	"math"
	"regexp"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/core/conformance"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// conformance.JudgeExport, the oracle of `python -m godlpack check`: answers of a
// producer, good and broken, built here from godlpack's own exports and then
// damaged, graded check by check.

func f32bytes(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func v2(a, b int64) *[2]int64 { return &[2]int64{a, b} }
func bp(b bool) *bool         { return &b }

// judgedAs maps check ID -> result; a check judged twice must agree.
func judgedAs(t *testing.T, j conformance.Judged) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range j.Results {
		if prev, ok := out[r.ID]; ok && prev != r.Result {
			out[r.ID] = conformance.Fail
			continue
		}
		out[r.ID] = r.Result
	}
	return out
}

func TestJudgeExport(t *testing.T) {
	t.Parallel()
	a, err := core.Empty(core.Float32, 2, 2)
	require.NoError(t, err)
	defer a.Release()
	s, _ := a.Float32s()
	copy(s, []float32{1, 2, 3, 4})
	h := a.Header()
	first := uint64(uintptr(h.Data))
	base := func() conformance.ExportCase {
		return conformance.ExportCase{Case: "t", MaxVersion: v2(1, 3), Device: [2]int64{1, 0}, DType: [3]int64{2, 32, 1},
			Shape: []int64{2, 2}, Values: f32bytes(1, 2, 3, 4), Baseline: first, Name: "dltensor_versioned"}
	}
	cases := []struct {
		name   string
		c      func() conformance.ExportCase
		damage func(m *core.DLManagedTensorVersioned)
		flags  uint64 // export flags
		want   map[string]string
	}{
		{"a good answer", base, nil, 0,
			map[string]string{"P1.name": conformance.Pass, "P1.version": conformance.Pass, "S.struct": conformance.Pass, "S.values": conformance.Pass,
				"P8.device": conformance.Pass, "P4.copy": conformance.Pass}},
		{"a legacy name where versioned was asked", func() conformance.ExportCase { c := base(); c.Name = "dltensor"; return c }, nil, 0,
			map[string]string{"P1.name": conformance.Fail}},
		{"version 2", base, func(m *core.DLManagedTensorVersioned) { m.Version.Major = 2 }, 0,
			map[string]string{"P1.name": conformance.Pass, "P1.version": conformance.Fail}},
		{"a bad ndim", base, func(m *core.DLManagedTensorVersioned) { m.DLTensor.Ndim = -1 }, 0,
			map[string]string{"S.struct": conformance.Fail}},
		{"other values", func() conformance.ExportCase { c := base(); c.Values = f32bytes(1, 2, 3, 5); return c }, nil, 0,
			map[string]string{"S.values": conformance.Fail}},
		{"another dtype", base, func(m *core.DLManagedTensorVersioned) { m.DLTensor.DType.Code = core.KDLInt }, 0,
			map[string]string{"S.values": conformance.Fail, "S.struct": conformance.Pass}},
		{"READ_ONLY missing", func() conformance.ExportCase { c := base(); c.ReadOnly = true; return c }, nil, 0,
			map[string]string{"P2.read_only": conformance.Fail}},
		{"READ_ONLY kept", func() conformance.ExportCase { c := base(); c.ReadOnly = true; return c }, nil, core.FlagReadOnly,
			map[string]string{"P2.read_only": conformance.Pass}},
		{"copy=True without a copy", func() conformance.ExportCase { c := base(); c.Copy = bp(true); return c }, nil, core.FlagIsCopied,
			map[string]string{"P4.copy": conformance.Fail}},
		{"copy=True, a copy not flagged", func() conformance.ExportCase {
			c := base()
			c.Copy, c.Baseline = bp(true), first+4096
			return c
		}, nil, 0, map[string]string{"P4.copy": conformance.Fail}},
		{"copy=True, a flagged copy", func() conformance.ExportCase {
			c := base()
			c.Copy, c.Baseline = bp(true), first+4096
			return c
		}, nil, core.FlagIsCopied, map[string]string{"P4.copy": conformance.Pass}},
		{"copy=False flagged as a copy", func() conformance.ExportCase { c := base(); c.Copy = bp(false); return c }, nil, core.FlagIsCopied,
			map[string]string{"P4.copy": conformance.Fail}},
		{"a stream accepted", func() conformance.ExportCase { s := int64(5); c := base(); c.Stream = &s; return c }, nil, 0,
			map[string]string{"P5.stream": conformance.Fail}},
		{"dl_device on another device", func() conformance.ExportCase {
			c := base()
			c.DLDevice = v2(1, 0)
			c.Device = [2]int64{14, 0}
			return c
		},
			nil, 0, map[string]string{"P3.dl_device": conformance.Pass}},
		{"__dlpack_device__ with a None id", func() conformance.ExportCase { c := base(); c.DeviceError = "(1, None)"; return c }, nil, 0,
			map[string]string{"P8.device": conformance.Fail, "S.values": conformance.Pass}},
		{"the allocator's tensor", func() conformance.ExportCase {
			c := base()
			c.API = &conformance.APICase{How: "allocator", Version: [2]int64{1, 3}}
			return c
		}, nil, 0, map[string]string{"C9.header": conformance.Pass, "C9.allocator": conformance.Pass, "S.values": ""}},
		{"the allocator's tensor of another shape", func() conformance.ExportCase {
			c := base()
			c.Shape, c.API = []int64{4}, &conformance.APICase{How: "allocator", Version: [2]int64{1, 3}}
			return c
		}, nil, 0, map[string]string{"C9.allocator": conformance.Fail}},
		{"the allocator's tensor without a deleter", func() conformance.ExportCase {
			c := base()
			c.API = &conformance.APICase{How: "allocator", Version: [2]int64{1, 3}}
			return c
		}, func(m *core.DLManagedTensorVersioned) { m.Deleter = nil }, 0, map[string]string{"C9.allocator": conformance.Fail}},
	}
	for _, c := range cases {
		m, err := core.ExportVersioned(&h, []int64{2, 2}, []int64{2, 1}, c.flags)
		require.NoError(t, err)
		deleter := m.Deleter
		if c.damage != nil {
			c.damage(m)
		}
		ec := c.c()
		got := judgedAs(t, conformance.JudgeExport(&ec, unsafe.Pointer(m)))
		for id, want := range c.want {
			assert.Equal(t, want, got[id], "%s: %s (%v)", c.name, id, got)
		}
		m.Version.Major, m.Deleter = 1, deleter
		cfixture.DeleteVersioned(unsafe.Pointer(m))
	}
}

// S.values' evidence shows values as numpy prints them, not bytes: the
// first element that differs and the two after it.
func TestJudgeValuesEvidenceIsValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dt       core.DataType
		mem      []byte // the exported array's 5 elements
		expected []byte // what the case says they are
		want     string
	}{
		{core.Float32, f32bytes(0, 1, 2, 3, 4), f32bytes(0, 17, 18.5, 19, 4),
			"from element 1 (C order) on, expected [17 18.5 19 ...] got [1 2 3 ...]"},
		{core.Float32, f32bytes(0, 1, 2, 3, 0.1), f32bytes(0, 1, 2, 3, 0.2), "expected [0.2] got [0.1]"},
		{core.Int8, []byte{1, 2, 3, 4, 0xff}, []byte{1, 2, 3, 4, 5}, "from element 4 (C order) on, expected [5] got [-1]"},
		{core.Uint8, []byte{1, 2, 3, 4, 0xff}, []byte{1, 2, 3, 9, 5}, "expected [9 5] got [4 255]"},
		{core.Bool, []byte{1, 0, 1, 1, 1}, []byte{1, 1, 1, 1, 1}, "expected [1 1 1 ...] got [0 1 1 ...]"},
	}
	for _, c := range cases {
		a, err := core.Empty(c.dt, 5)
		require.NoError(t, err)
		copy(unsafe.Slice((*byte)(a.DataPtr()), len(c.mem)), c.mem)
		m, err := a.ExportVersioned(0)
		require.NoError(t, err)
		ec := conformance.ExportCase{Case: "t", MaxVersion: v2(1, 3), Device: [2]int64{1, 0},
			DType: [3]int64{int64(c.dt.Code), int64(c.dt.Bits), 1}, Shape: []int64{5}, Values: c.expected,
			Name: "dltensor_versioned"}
		var evidence string
		for _, r := range conformance.JudgeExport(&ec, unsafe.Pointer(m)).Results {
			if r.ID == "S.values" {
				evidence = r.Evidence
			}
		}
		assert.Contains(t, evidence, c.want, "%v", c.dt)
		cfixture.DeleteVersioned(unsafe.Pointer(m))
		a.Release()
	}
}

func TestJudgeRelease(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, release, id   string
		before, held, after int64
		result              string
	}{
		{"freed by the destructor", "unconsumed", "P6.destructor", 2, 3, 2, conformance.Pass},
		{"never freed", "unconsumed", "P6.destructor", 2, 3, 3, conformance.Fail},
		{"freed without the GIL", "nogil", "P7.thread", 2, 3, 2, conformance.Pass},
		{"freed twice", "nogil", "P7.thread", 2, 3, 1, conformance.Fail},
		{"a capsule that holds no reference", "nogil", "P7.thread", 2, 2, 2, conformance.Pass},
	}
	for _, c := range cases {
		ec := conformance.ExportCase{MaxVersion: v2(1, 3), Device: [2]int64{1, 0}, Release: c.release,
			RefsBefore: c.before, RefsHeld: c.held, RefsAfter: c.after}
		assert.Equal(t, map[string]string{c.id: c.result}, judgedAs(t, conformance.JudgeExport(&ec, nil)), c.name)
	}

	// the deleter's calls, counted by a trampoline, where the references
	// cannot tell (they came back to where they were)
	counted := []struct {
		name, release string
		calls         int64
		want          map[string]string
	}{
		{"dropped, deleted once", "unconsumed", 1, map[string]string{"P6.destructor": conformance.Pass}},
		{"dropped, freed by the destructor's own function", "unconsumed", 0, map[string]string{"P6.destructor": conformance.Pass}},
		{"dropped, deleted twice", "unconsumed", 2, map[string]string{"P6.destructor": conformance.Fail}},
		{"consumed, deleted once", "nogil", 1, map[string]string{"P7.thread": conformance.Pass}},
		{"consumed, never deleted", "nogil", 0, map[string]string{"P7.thread": conformance.Fail}},
		{"consumed, deleted again by the destructor", "nogil", 2,
			map[string]string{"P6.destructor": conformance.Fail, "P7.thread": conformance.Pass}},
	}
	for _, c := range counted {
		ec := conformance.ExportCase{MaxVersion: v2(1, 3), Device: [2]int64{1, 0}, Release: c.release,
			RefsBefore: 2, RefsHeld: 3, RefsAfter: 2, DeleterCalls: &c.calls}
		assert.Equal(t, c.want, judgedAs(t, conformance.JudgeExport(&ec, nil)), c.name)
	}
}

func TestJudgeRefusals(t *testing.T) {
	t.Parallel()
	stream := int64(5)
	cases := []struct {
		name   string
		c      conformance.ExportCase
		id     string
		result string
	}{
		{"a stream refused with any class", conformance.ExportCase{MaxVersion: v2(1, 3), Stream: &stream, Raised: "RuntimeError"}, "P5.stream", conformance.Pass},
		{"an unreachable device refused with BufferError", conformance.ExportCase{MaxVersion: v2(1, 3), DLDevice: v2(12, 0), Raised: "BufferError"}, "P3.dl_device", conformance.Pass},
		{"an unreachable device refused with ValueError", conformance.ExportCase{MaxVersion: v2(1, 3), DLDevice: v2(12, 0), Raised: "ValueError"}, "P3.dl_device", conformance.Fail},
		{"copy=False towards it with ValueError", conformance.ExportCase{MaxVersion: v2(1, 3), DLDevice: v2(12, 0), Copy: bp(false), Raised: "ValueError"}, "P4.copy", conformance.Fail},
		{"a read-only legacy export refused", conformance.ExportCase{ReadOnly: true, Raised: "BufferError"}, "P2.read_only", conformance.Pass},
		{"a valid copy=True refused", conformance.ExportCase{MaxVersion: v2(1, 3), Copy: bp(true), Raised: "BufferError"}, "P4.copy", conformance.Fail},
		{"a valid request refused", conformance.ExportCase{MaxVersion: v2(1, 3), Raised: "TypeError"}, "P1.name", conformance.Fail},
	}
	for _, c := range cases {
		c.c.Device = [2]int64{1, 0}
		got := judgedAs(t, conformance.JudgeExport(&c.c, nil))
		assert.Equal(t, map[string]string{c.id: c.result}, got, c.name)
	}
}

func TestExportChecksHaveStableUniqueIDs(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range conformance.ExportChecks {
		assert.False(t, seen[c.ID], c.ID)
		seen[c.ID] = true
		assert.NotEmpty(t, c.Rule, c.ID)
	}
	for _, id := range []string{"P1.name", "P1.version", "S.struct", "S.values", "P2.read_only", "P3.dl_device", "P4.copy",
		"P5.stream", "P8.device", "P6.destructor", "P7.thread"} {
		assert.True(t, seen[id], "report files compare by ID: %s must stay", id)
	}
}

// The rules are the report's words for users: no Go identifier in them
// (package-qualified names, as a mechanical rename once left).
func TestCheckRulesAreProse(t *testing.T) {
	t.Parallel()
	qualified := regexp.MustCompile(`\b(core|conformance)\.[A-Z]`)
	for _, c := range append(conformance.ExportChecks[:len(conformance.ExportChecks):len(conformance.ExportChecks)],
		conformance.ImportChecks...) {
		assert.False(t, qualified.MatchString(c.Rule), "%s: %q", c.ID, c.Rule)
	}
}

func TestJudgeImport(t *testing.T) {
	t.Parallel()
	vals := f32bytes(1, 2, 3, 4)
	base := func() conformance.ImportCase {
		return conformance.ImportCase{Case: "t", Supported: true, DType: [3]int64{2, 32, 1}, Shape: []int64{2, 2}, Values: vals,
			Asked: []map[string]any{{"max_version": []any{1.0, 3.0}}}, Names: []string{"used_dltensor_versioned"},
			GotDType: [3]int64{2, 32, 1}, GotShape: []int64{2, 2}, GotValue: vals, Shares: bp(true),
			RefsBefore: 1, RefsAlive: 2, RefsAfter: 1}
	}
	with := func(f func(c *conformance.ImportCase)) conformance.ImportCase { c := base(); f(&c); return c }
	cases := []struct {
		name string
		c    conformance.ImportCase
		want map[string]string
	}{
		{"a good import", base(), map[string]string{"C1.versioned": conformance.Pass, "C3.rename": conformance.Pass, "C3.deleter": conformance.Pass, "C.values": conformance.Pass}},
		{"asks legacy", with(func(c *conformance.ImportCase) { c.Asked = []map[string]any{{"stream": nil}} }), map[string]string{"C1.versioned": conformance.Fail}},
		{"no rename", with(func(c *conformance.ImportCase) { c.Names = []string{"dltensor_versioned"} }), map[string]string{"C3.rename": conformance.Fail}},
		{"deleter never", with(func(c *conformance.ImportCase) { c.RefsAfter = 2 }), map[string]string{"C3.deleter": conformance.Fail}},
		{"deleter twice", with(func(c *conformance.ImportCase) { c.RefsAfter = 0 }), map[string]string{"C3.deleter": conformance.Fail}},
		{"deleter before death", with(func(c *conformance.ImportCase) { c.RefsAlive = 1 }), map[string]string{"C3.deleter": conformance.Fail}},
		{"a copy may free at once", with(func(c *conformance.ImportCase) { c.RefsAlive, c.Shares = 1, bp(false) }), map[string]string{"C3.deleter": conformance.Pass}},
		{"other values", with(func(c *conformance.ImportCase) { c.GotValue = f32bytes(1, 2, 3, 5) }), map[string]string{"C.values": conformance.Fail}},
		{"read-only imported writable", with(func(c *conformance.ImportCase) { c.ReadOnly, c.Writable = true, bp(true) }), map[string]string{"C5.read_only": conformance.Fail}},
		{"read-only kept", with(func(c *conformance.ImportCase) { c.ReadOnly, c.Writable = true, bp(false) }), map[string]string{"C5.read_only": conformance.Pass}},
		{"copy=True shares", with(func(c *conformance.ImportCase) { c.Copy = bp(true) }), map[string]string{"C7.copy": conformance.Fail}},
		{"copy=False shares", with(func(c *conformance.ImportCase) { c.Copy = bp(false) }), map[string]string{"C7.copy": conformance.Pass}},
		{"copy=False refused with ValueError", with(func(c *conformance.ImportCase) { c.Copy, c.Raised = bp(false), "ValueError" }), map[string]string{"C7.copy": conformance.Pass}},
		{"old producer not asked again", with(func(c *conformance.ImportCase) {
			c.OldProducer, c.Raised, c.Asked = true, "TypeError", []map[string]any{{"max_version": []any{1.0, 3.0}}}
		}), map[string]string{"C1.fallback": conformance.Fail}},
		{"old producer asked again", with(func(c *conformance.ImportCase) {
			c.OldProducer, c.Asked = true, []map[string]any{{"max_version": []any{1.0, 3.0}}, {}}
		}), map[string]string{"C1.fallback": conformance.Pass}},
		{"version 2 imported", with(func(c *conformance.ImportCase) { c.Damaged = "major2" }), map[string]string{"C4.refuse": conformance.Fail, "C4.class": ""}},
		{"version 2 refused", with(func(c *conformance.ImportCase) { c.Damaged, c.Raised = "major2", "BufferError" }), map[string]string{"C4.refuse": conformance.Pass, "C4.class": conformance.Pass, "C3.deleter": conformance.Pass}},
		{"a lacked dtype refused with RuntimeError", with(func(c *conformance.ImportCase) { c.Supported, c.Raised = false, "RuntimeError" }), map[string]string{"C4.refuse": conformance.Pass, "C4.class": conformance.Fail}},
		{"the producer refused", with(func(c *conformance.ImportCase) { c.Raised, c.ProducerRaised = "BufferError", true }), map[string]string{"C.values": ""}},
		{"an unlisted dtype refused", with(func(c *conformance.ImportCase) { c.Unlisted, c.Raised = true, "BufferError" }),
			map[string]string{"C4.refuse": conformance.Pass, "C4.class": conformance.Pass, "C3.deleter": conformance.Pass, "C.values": ""}},
		{"an unlisted dtype refused with TypeError", with(func(c *conformance.ImportCase) { c.Unlisted, c.Raised = true, "TypeError" }),
			map[string]string{"C4.refuse": conformance.Pass, "C4.class": conformance.Fail}},
		{"an unlisted dtype its producer would not export as asked", with(func(c *conformance.ImportCase) {
			c.Unlisted, c.Raised, c.ProducerRaised = true, "BufferError", true
		}), map[string]string{"C4.refuse": "", "C4.class": "", "C3.deleter": "", "C.values": ""}},
		{"an unlisted dtype imported as it was", with(func(c *conformance.ImportCase) { c.Unlisted = true }),
			map[string]string{"C4.refuse": "", "C.values": conformance.Pass, "C3.deleter": conformance.Pass}},
		{"an unlisted dtype imported as another", with(func(c *conformance.ImportCase) { c.Unlisted, c.GotDType = true, [3]int64{1, 32, 1} }),
			map[string]string{"C4.refuse": "", "C.values": conformance.Fail}},
		{"an unlisted dtype whose import its library cannot export", with(func(c *conformance.ImportCase) {
			c.Unlisted, c.ReadbackError = true, "godlpack.from_dlpack(y): BufferError"
		}), map[string]string{"C.values": "", "C3.deleter": conformance.Pass}},
		{"a declined capsule, then the one imported", with(func(c *conformance.ImportCase) { c.Names = []string{"dltensor_versioned", "used_dltensor_versioned"} }),
			map[string]string{"C3.rename": conformance.Pass}},
		{"two capsules renamed", with(func(c *conformance.ImportCase) {
			c.Names = []string{"used_dltensor_versioned", "used_dltensor_versioned"}
		}),
			map[string]string{"C3.rename": conformance.Fail}},
		{"copy kept from the producer", with(func(c *conformance.ImportCase) { c.Copy, c.Shares = bp(true), bp(false) }),
			map[string]string{"C7.pass": conformance.Fail, "C7.copy": conformance.Pass}},
		{"copy passed", with(func(c *conformance.ImportCase) {
			c.Copy, c.Shares, c.Asked = bp(true), bp(false), []map[string]any{{"max_version": []any{1.0, 3.0}, "copy": true}}
		}), map[string]string{"C7.pass": conformance.Pass}},
		{"device kept from the producer", with(func(c *conformance.ImportCase) { c.Device = v2(1, 0) }), map[string]string{"C7.pass": conformance.Fail}},
		{"device passed", with(func(c *conformance.ImportCase) {
			c.Device, c.Asked = v2(1, 0), []map[string]any{{"max_version": []any{1.0, 3.0}, "dl_device": []any{1.0, 0.0}}}
		}), map[string]string{"C7.pass": conformance.Pass}},
		{"another device passed", with(func(c *conformance.ImportCase) {
			c.Device, c.Asked = v2(1, 0), []map[string]any{{"max_version": []any{1.0, 3.0}, "dl_device": []any{14.0, 0.0}}}
		}), map[string]string{"C7.pass": conformance.Fail}},
		{"an import that cannot be read back", with(func(c *conformance.ImportCase) { c.ReadbackError = "y.numpy(): MemoryError" }),
			map[string]string{"C.values": conformance.Fail}},
		{"the exchange API's to_py", with(func(c *conformance.ImportCase) { c.API, c.Names, c.Asked = &conformance.APICase{}, nil, nil }),
			map[string]string{"C9.to_py": conformance.Pass, "C.values": conformance.Pass, "C3.deleter": conformance.Pass, "C1.versioned": ""}},
		{"the exchange API's to_py refused", with(func(c *conformance.ImportCase) { c.API, c.Raised = &conformance.APICase{RC: -1}, "error" }),
			map[string]string{"C9.to_py": conformance.Fail, "C4.refuse": "", "C4.class": ""}},
	}
	for _, c := range cases {
		got := judgedAs(t, conformance.JudgeImport(&c.c))
		for id, want := range c.want {
			assert.Equal(t, want, got[id], "%s: %s (%v)", c.name, id, got)
		}
	}
}

// TestImportValuesEvidence: a C.values failure names the first element that
// differs and the values on both sides, as numbers of the dtype (a sub-byte
// dtype's codes, one per byte, read as its values).
func TestImportValuesEvidence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name            string
		dtype           [3]int64
		values, got     []byte
		want, wantOther string
	}{
		{"float32", [3]int64{2, 32, 1}, f32bytes(1, 2, 3, 4), f32bytes(1, 2, 3, 5), "from element 3 (C order) on, expected [4] got [5]", ""},
		{"float4 codes", [3]int64{17, 4, 1}, []byte{0, 1, 2, 3}, []byte{0, 1, 2, 5}, "expected [1.5] got [3]", ""},
		{"float6 codes from the start", [3]int64{15, 6, 1}, []byte{1, 2, 3, 4}, []byte{16, 0, 0, 0}, "from element 0 (C order) on, expected [0.125 0.25 0.375 ...] got [2 0 0 ...]", ""},
		{"another dtype", [3]int64{2, 32, 1}, f32bytes(1, 2), f32bytes(1, 2), "", "became"},
	}
	for _, c := range cases {
		ic := conformance.ImportCase{Case: "t", Supported: true, Unlisted: true, DType: c.dtype, Shape: []int64{int64(len(c.values))},
			Values: c.values, GotDType: c.dtype, GotShape: []int64{int64(len(c.got))}, GotValue: c.got,
			Asked: []map[string]any{{"max_version": []any{1.0, 3.0}}}, RefsBefore: 1, RefsAlive: 2, RefsAfter: 1}
		if c.wantOther != "" {
			ic.GotDType = [3]int64{1, 32, 1}
		}
		var ev string
		for _, r := range conformance.JudgeImport(&ic).Results {
			if r.ID == "C.values" {
				assert.Equal(t, conformance.Fail, r.Result, c.name)
				ev = r.Evidence
			}
		}
		if c.want != "" {
			assert.Contains(t, ev, c.want, c.name)
		} else {
			assert.Contains(t, ev, c.wantOther, c.name)
		}
	}
}

func TestJudgeExchangeAPI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		api    conformance.APICase
		device [2]int64
		header string
		export string
	}{
		{"a whole API that refused a CPU array", conformance.APICase{Version: [2]int64{1, 3}, RC: -1}, [2]int64{1, 0}, conformance.Pass, conformance.Fail},
		{"functions missing", conformance.APICase{Version: [2]int64{1, 3}, Missing: []string{"current_work_stream"}, RC: -1}, [2]int64{1, 0}, conformance.Fail, conformance.Fail},
		{"version 1.1", conformance.APICase{Version: [2]int64{1, 1}, RC: -1}, [2]int64{1, 0}, conformance.Fail, conformance.Fail},
		{"a device tensor refused", conformance.APICase{Version: [2]int64{1, 3}, RC: -1}, [2]int64{14, 0}, conformance.Pass, conformance.Pass},
	}
	for _, c := range cases {
		ec := conformance.ExportCase{MaxVersion: v2(1, 3), Device: c.device, API: &c.api}
		got := judgedAs(t, conformance.JudgeExport(&ec, nil))
		assert.Equal(t, map[string]string{"C9.header": c.header, "C9.export": c.export}, got, c.name)
	}
}

func TestJudgeImportCountedDeleter(t *testing.T) {
	t.Parallel()
	vals := f32bytes(1, 2)
	for _, c := range []struct {
		name         string
		alive, after []int64
		want         string
	}{
		{"once, after death", []int64{0}, []int64{1}, conformance.Pass},
		{"twice", []int64{0}, []int64{2}, conformance.Fail},
		{"never", []int64{0}, []int64{0}, conformance.Fail},
		{"before death", []int64{1}, []int64{1}, conformance.Fail},
		{"a declined capsule freed by its destructor", []int64{1, 0}, []int64{1, 1}, conformance.Pass},
		{"a declined capsule freed twice", []int64{1, 0}, []int64{2, 1}, conformance.Fail},
	} {
		names := []string{"used_dltensor_versioned"}
		if len(c.after) == 2 {
			names = []string{"dltensor_versioned", "used_dltensor_versioned"}
		}
		ic := conformance.ImportCase{Supported: true, DType: [3]int64{2, 32, 1}, Shape: []int64{2}, Values: vals,
			Asked: []map[string]any{{"max_version": []any{1.0, 3.0}}}, Names: names,
			GotDType: [3]int64{2, 32, 1}, GotShape: []int64{2}, GotValue: vals, Shares: bp(true),
			RefsBefore: 1, RefsAlive: 2, RefsAfter: 1, DeleterAlive: c.alive, DeleterAfter: c.after}
		assert.Equal(t, c.want, judgedAs(t, conformance.JudgeImport(&ic))["C3.deleter"], c.name)
	}
}

// Every check carries one of the three levels (docs/rules.md, "Levels"),
// and its ID is unique across both roles.
func TestEveryCheckHasALevel(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range append(append([]conformance.Check{}, conformance.ExportChecks...), conformance.ImportChecks...) {
		assert.Contains(t, []string{conformance.LevelMust, conformance.LevelShould, conformance.LevelAdvice}, c.Level, c.ID)
		assert.False(t, seen[c.ID], "%s twice", c.ID)
		seen[c.ID] = true
	}
}
