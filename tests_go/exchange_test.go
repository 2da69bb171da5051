package tests_go

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/godlpack/godlpack/core"
	"github.com/godlpack/godlpack/tests_go/cfixture"
)

// The exchange model (core/exchange.c, docs/rules.md C1 C6-C9): each case
// is a script of the steps from_dlpack must take and what the producer
// answers to each, as pyext/import.c executes them.

type want struct {
	kind     int
	keywords []string
	// the import request of an ask / take / api step
	negotiated, mayStream, mayHost, streamGiven, hasDevice bool
	dev                                                    core.Device
	hostCopy, retried                                      bool
	noteKW, noteStream                                     int32
	streamOn, tensorDev                                    core.Device
}

type answer struct {
	outcome, retry int
	rdev           core.Device
	pdev           *core.Device // a GD_STEP_DEVICE answer
}

type scriptStep struct {
	want   want
	answer answer
}

var (
	oneapi0 = core.Device{Type: core.KDLOneAPI, ID: 0}
	vulkan0 = core.Device{Type: core.KDLVulkan, ID: 0}
	cpu0    = core.CPU
	mv      = []string{"max_version"}
	done    = answer{outcome: cfixture.OutDone}
	typeErr = answer{outcome: cfixture.OutTypeError}
)

func TestImportModel(t *testing.T) {
	t.Parallel()
	hostVulkan := uint64(1) << uint(core.KDLVulkan)
	tests := []struct {
		name   string
		facts  cfixture.ImportFacts
		script []scriptStep
	}{
		{"numpy: max_version only, one call", cfixture.ImportFacts{}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true, noteKW: 1}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"a type seen taking keywords records nothing", cfixture.ImportFacts{KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C6 raw capsule: taken, nothing negotiated", cfixture.ImportFacts{RawCapsule: true, Copy: int32(core.CopyAlways)}, []scriptStep{
			{want{kind: cfixture.StepTake}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C9 torch: refusals, then its exchange API", cfixture.ImportFacts{Torch: true, HasAPI: true}, []scriptStep{
			{want{kind: cfixture.StepTorch}, answer{}},
			{want{kind: cfixture.StepAPI}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C9 the API declines: __dlpack__", cfixture.ImportFacts{HasAPI: true, KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAPI}, answer{outcome: cfixture.OutDeclined}},
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C9 a subclass's own __dlpack__ skips its base's API", cfixture.ImportFacts{HasAPI: true, Shadowed: true, KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C9 ... and torch's, its refusals too", cfixture.ImportFacts{Torch: true, HasAPI: true, Shadowed: true, KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C9 device= skips the API", cfixture.ImportFacts{HasAPI: true, Device: &cpu0, KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device"}, negotiated: true, mayStream: true, hasDevice: true, dev: cpu0}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C1 a new type's TypeError: asked again without keywords", cfixture.ImportFacts{}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true, noteKW: 1}, typeErr},
			{want{kind: cfixture.StepAsk, retried: true, noteKW: -1}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C1 ... and when that fails too, its error is raised", cfixture.ImportFacts{Copy: int32(core.CopyAlways), Device: &cpu0}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device", "copy"}, negotiated: true, mayStream: true, hasDevice: true, dev: cpu0, noteKW: 1}, typeErr},
			{want{kind: cfixture.StepAsk, retried: true, noteKW: -1, hasDevice: true, dev: cpu0}, typeErr},
			{want{kind: cfixture.StepRaise}, answer{}},
		}},
		{"C1 a type that took keywords: its TypeError is raised", cfixture.ImportFacts{KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, typeErr},
			{want{kind: cfixture.StepRaise}, answer{}},
		}},
		{"C1 a type that refused keywords is asked without", cfixture.ImportFacts{KW: -1, Copy: int32(core.CopyAlways)}, []scriptStep{
			{want{kind: cfixture.StepDevice}, answer{pdev: &cpu0}},
			{want{kind: cfixture.StepAsk}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"our own array: max_version only, core plans device and copy", cfixture.ImportFacts{Own: true, KW: 1, Device: &cpu0, Copy: int32(core.CopyAlways)}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, hasDevice: true, dev: cpu0}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C7 copy=True: a producer the CPU cannot read is asked for a host copy first", cfixture.ImportFacts{Copy: int32(core.CopyAlways), KW: 1, HostCopyTypes: hostVulkan}, []scriptStep{
			{want{kind: cfixture.StepDevice}, answer{pdev: &vulkan0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device", "copy"}, negotiated: true, hasDevice: true, dev: cpu0, hostCopy: true, tensorDev: vulkan0}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C7 copy=True on the CPU: asked as usual", cfixture.ImportFacts{Copy: int32(core.CopyAlways), KW: 1, HostCopyTypes: hostVulkan}, []scriptStep{
			{want{kind: cfixture.StepDevice}, answer{pdev: &cpu0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "copy"}, negotiated: true, mayStream: true, mayHost: true}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C7 core asks for a host copy after the import", cfixture.ImportFacts{KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, answer{outcome: cfixture.OutRetry, retry: 1, rdev: vulkan0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device"}, negotiated: true, hasDevice: true, dev: cpu0, hostCopy: true, tensorDev: vulkan0}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C7 an old producer asked for a host copy is imported as it answers", cfixture.ImportFacts{Copy: int32(core.CopyAlways), HostCopyTypes: hostVulkan}, []scriptStep{
			{want{kind: cfixture.StepDevice}, answer{pdev: &vulkan0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device", "copy"}, negotiated: true, hasDevice: true, dev: cpu0, hostCopy: true, tensorDev: vulkan0}, typeErr},
			{want{kind: cfixture.StepAsk, retried: true, noteKW: -1}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C8 core asks for our stream: asked again, and the type remembered", cfixture.ImportFacts{KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, answer{outcome: cfixture.OutRetry, retry: 3, rdev: oneapi0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "stream"}, negotiated: true, streamGiven: true, mayHost: true, streamOn: oneapi0, noteStream: int32(core.KDLOneAPI)}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C8 a remembered type on that device gets the stream at once", cfixture.ImportFacts{KW: 1, StreamDev: int32(core.KDLOneAPI)}, []scriptStep{
			{want{kind: cfixture.StepDevice}, answer{pdev: &oneapi0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "stream"}, negotiated: true, streamGiven: true, mayHost: true, streamOn: oneapi0}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C8 copy=True: the producer is not asked for its copy, core copies after the wait", cfixture.ImportFacts{KW: 1, Copy: int32(core.CopyAlways), Device: &oneapi0}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device", "copy"}, negotiated: true, mayStream: true, hasDevice: true, dev: oneapi0}, answer{outcome: cfixture.OutRetry, retry: 3, rdev: oneapi0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device", "stream"}, negotiated: true, streamGiven: true, hasDevice: true, dev: oneapi0, streamOn: oneapi0, noteStream: int32(core.KDLOneAPI)}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C8 copy=False is passed on with the stream", cfixture.ImportFacts{KW: 1, StreamDev: int32(core.KDLOneAPI), Copy: int32(core.CopyNever)}, []scriptStep{
			{want{kind: cfixture.StepDevice}, answer{pdev: &oneapi0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "copy", "stream"}, negotiated: true, streamGiven: true, mayHost: true, streamOn: oneapi0}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C8 ... and on another device does not", cfixture.ImportFacts{KW: 1, StreamDev: int32(core.KDLOneAPI)}, []scriptStep{
			{want{kind: cfixture.StepDevice}, answer{pdev: &cpu0}},
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"C8 then C7: the stream import asks for a host copy", cfixture.ImportFacts{KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, answer{outcome: cfixture.OutRetry, retry: 3, rdev: oneapi0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "stream"}, negotiated: true, streamGiven: true, mayHost: true, streamOn: oneapi0, noteStream: int32(core.KDLOneAPI)}, answer{outcome: cfixture.OutRetry, retry: 1, rdev: oneapi0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device"}, negotiated: true, hasDevice: true, dev: cpu0, hostCopy: true, tensorDev: oneapi0}, done},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
		{"a host copy is asked once", cfixture.ImportFacts{KW: 1}, []scriptStep{
			{want{kind: cfixture.StepAsk, keywords: mv, negotiated: true, mayStream: true, mayHost: true}, answer{outcome: cfixture.OutRetry, retry: 1, rdev: vulkan0}},
			{want{kind: cfixture.StepAsk, keywords: []string{"max_version", "dl_device"}, negotiated: true, hasDevice: true, dev: cpu0, hostCopy: true, tensorDev: vulkan0}, answer{outcome: cfixture.OutRetry, retry: 1, rdev: vulkan0}},
			{want{kind: cfixture.StepDone}, answer{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			im := cfixture.NewImport(tt.facts)
			for i, s := range tt.script {
				got := im.Next()
				w := s.want
				require.Equalf(t, w.kind, got.Kind, "step %d kind", i)
				assert.Equalf(t, w.keywords, got.Keywords, "step %d keywords", i)
				if w.kind == cfixture.StepAsk || w.kind == cfixture.StepTake {
					r := got.Req
					assert.Equalf(t, w.negotiated, r.Negotiated, "step %d negotiated", i)
					assert.Equalf(t, w.mayStream, r.MayAskStream, "step %d may ask stream", i)
					assert.Equalf(t, w.mayHost, r.MayAskHostCopy, "step %d may ask host copy", i)
					assert.Equalf(t, w.streamGiven, r.StreamGiven, "step %d stream given", i)
					assert.Equalf(t, w.hasDevice, r.HasDevice, "step %d has device", i)
					if w.hasDevice {
						assert.Equalf(t, w.dev, r.Device, "step %d device", i)
					}
					assert.Equalf(t, tt.facts.Copy, int32(r.Copy), "step %d copy", i)
					assert.Equalf(t, w.hostCopy, got.HostCopy, "step %d host copy", i)
					assert.Equalf(t, w.retried, got.Retried, "step %d retried", i)
					assert.Equalf(t, w.noteKW, got.NoteKW, "step %d note kw", i)
					assert.Equalf(t, w.noteStream, got.NoteStreamDev, "step %d note stream", i)
					if w.hostCopy {
						assert.Equalf(t, cpu0, got.DLDevice, "step %d dl_device", i)
						assert.Equalf(t, w.tensorDev, got.TensorDevice, "step %d tensor device", i)
					}
					if w.streamOn != (core.Device{}) {
						assert.Equalf(t, w.streamOn, got.StreamOn, "step %d stream on", i)
					}
				}
				if w.kind == cfixture.StepAPI {
					assert.Truef(t, got.Req.NoSync, "step %d: the API import never synchronises", i)
				}
				if s.answer.pdev != nil {
					im.ReportDevice(*s.answer.pdev)
				}
				im.Report(s.answer.outcome, s.answer.retry, s.answer.rdev)
			}
		})
	}
}

// TestExchangeAPIVersionSpoken: which exchange API of a producer type's
// prev_api chain godlpack speaks (C9): the first of major 1 and minor 2 or
// later, the struct's first version; none past one without the import
// function, none of another major, and a cycle in the chain ends.
func TestExchangeAPIVersionSpoken(t *testing.T) {
	t.Parallel()
	v := func(major, minor uint32) cfixture.APIVersion {
		return cfixture.APIVersion{Major: major, Minor: minor, FromPy: true}
	}
	cases := []struct {
		name  string
		chain []cfixture.APIVersion
		cycle bool
		want  int
	}{
		{"none", nil, false, -1},
		{"1.3", []cfixture.APIVersion{v(1, 3)}, false, 0},
		{"1.2, the first with the struct", []cfixture.APIVersion{v(1, 2)}, false, 0},
		{"1.1 predates it", []cfixture.APIVersion{v(1, 1)}, false, -1},
		{"2.0 first, then 1.3", []cfixture.APIVersion{v(2, 0), v(1, 3)}, false, 1},
		{"0.9 then 2.1: none", []cfixture.APIVersion{v(0, 9), v(2, 1)}, false, -1},
		{"1.3 without the import function", []cfixture.APIVersion{{Major: 1, Minor: 3}, v(1, 2)}, false, -1},
		{"a cycle of 2.x", []cfixture.APIVersion{v(2, 0), v(3, 0)}, true, -1},
		{"a cycle that reaches 1.4", []cfixture.APIVersion{v(2, 0), v(1, 4)}, true, 1},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, cfixture.SpokenAPI(c.chain, c.cycle), c.name)
	}
}

// TestScalarDType: the dtype numpy gives a number as an array element
// (core/scalarkind.c), from what the skin reads of it: Python's bool, int,
// float and complex (bool before int: a bool is an int), a numpy scalar's
// own dtype, then __complex__, __index__, __float__ (clongdouble has both
// __complex__ and __float__: complex); nothing of those: not a number.
func TestScalarDType(t *testing.T) {
	t.Parallel()
	f32 := core.Float32
	cases := []struct {
		name  string
		facts uint32
		own   core.DataType
		want  core.DataType
		kind  int
	}{
		{"True", cfixture.SFBool, core.DataType{}, core.Bool, 0},
		{"3", cfixture.SFInt, core.DataType{}, core.Int64, 1},
		{"2.5", cfixture.SFFloat, core.DataType{}, core.Float64, 2},
		{"1j", cfixture.SFComplex, core.DataType{}, core.Complex128, 3},
		{"np.float32(2.5)", cfixture.SFDType | cfixture.SFHasFloat | cfixture.SFHasComplex, f32, f32, 2},
		{"np.int8(3)", cfixture.SFDType | cfixture.SFHasIndex, core.Int8, core.Int8, 1},
		{"np.float64, a float", cfixture.SFFloat, core.DataType{}, core.Float64, 2},
		{"an __index__", cfixture.SFHasIndex | cfixture.SFHasFloat, core.DataType{}, core.Int64, 1},
		{"np.clongdouble", cfixture.SFHasComplex | cfixture.SFHasFloat, core.DataType{}, core.Complex128, 3},
		{"a __float__", cfixture.SFHasFloat, core.DataType{}, core.Float64, 2},
	}
	for _, c := range cases {
		got, ok := cfixture.ScalarDType(c.facts, c.own)
		assert.True(t, ok, c.name)
		assert.Equal(t, c.want, got, c.name)
		assert.Equal(t, c.kind, cfixture.ScalarKind(c.facts, c.own), c.name)
	}
	_, ok := cfixture.ScalarDType(0, core.DataType{})
	assert.False(t, ok, "a str: no number")
	assert.Equal(t, -1, cfixture.ScalarKind(0, core.DataType{}))
	for kind, want := range map[int]core.DataType{-1: core.Float64, 0: core.Bool, 1: core.Int64, 2: core.Float64, 3: core.Complex128} {
		assert.Equal(t, want, cfixture.KindDType(kind), "kind %d", kind)
	}
}
