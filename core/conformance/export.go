package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/godlpack/godlpack/core"
	"strconv"
	"unsafe"
)

// The DLPack conformance checker's oracle (`python -m godlpack check`): the
// checker makes another library's arrays, asks them for capsules, and hands
// what it saw to JudgeExport, which grades each observation by the same
// functions godlpack's own exchanges run (core.PlanExport, core.DescribeVersioned,
// core.DescribeLegacy, core.CopyInto). The Python side gathers evidence; it holds no
// rule of its own.

// Check is one graded rule; ID is stable across releases (reports and CI
// files compare by it). Level says where the rule comes from.
type Check struct {
	ID    string `json:"id"`
	Rule  string `json:"rule"`
	Level string `json:"level"`
}

// The levels of the checks (docs/rules.md, "Levels", quotes the text each
// MUST and SHOULD rests on): `check --level must` gates on the standard's
// normative text alone.
const (
	LevelMust   = "MUST"     // the standard (array API, DLPack's Python spec, dlpack.h) requires it
	LevelShould = "SHOULD"   // the standard recommends it
	LevelAdvice = "godlpack" // godlpack's advice: what a careful library does where the standard is silent
)

// CheckLevels are the levels, strictest first: `check --level L` gates on
// the checks of L and of the levels before it.
var CheckLevels = []string{LevelMust, LevelShould, LevelAdvice}

// Check outcomes.
const (
	Pass  = "PASS"
	Fail  = "FAIL"
	NA    = "N/A"
	Crash = "CRASH"
)

// ExportChecks are the checks of a producer's __dlpack__ (the target's
// arrays, consumed by the checker), in report order.
var ExportChecks = []Check{
	{"P1.name", "max_version=None gives a legacy \"dltensor\" capsule; a major of 1 or more a \"dltensor_versioned\" one (P1)", LevelShould},
	{"P1.version", "a versioned capsule's major version is 1 and not above the major asked for (P1, S1)", LevelShould},
	{"S.struct", "the managed tensor is well formed: ndim, shape, strides, dtype, device and flags pass the consumer's validation (S1-S8)", LevelMust},
	{"S.values", "shape, dtype and every element read back bit-exactly equal the array's own (S3, S4)", LevelMust},
	{"P2.read_only", "a read-only array's memory is exported with READ_ONLY, and never in a legacy capsule, which cannot say so (P2)", LevelShould},
	{"P3.dl_device", "dl_device=(kDLCPU, 0) of CPU memory is served without a copy; a device the producer cannot reach is refused with BufferError (P3)", LevelMust},
	{"P4.copy", "copy=True returns fresh memory and sets IS_COPIED; copy=False and None on the same device share the array's memory and leave IS_COPIED clear (P4)", LevelMust},
	{"P5.stream", "on the CPU a stream other than None or -1 is refused: an exception, not a capsule (P5; the standard names no class)", LevelMust},
	{"P8.device", "__dlpack_device__() names the device the capsule's tensor is on (P8)", LevelMust},
	{"P6.destructor", "a capsule dropped unconsumed frees its tensor once, through its destructor; a consumed one's destructor leaves the deleter to the consumer (P6)", LevelMust},
	{"P7.thread", "a consumed tensor's deleter runs once, on a thread without the GIL, and frees it (P7)", LevelMust},
	{"C9.header", "a type's C exchange API is a \"dlpack_exchange_api\" capsule of version 1.2 or later with every required function (C9)", LevelMust},
	{"C9.export", "managed_tensor_from_py_object_no_sync serves a CPU array; its tensor passes the checks of __dlpack__'s (C9)", LevelMust},
	{"C9.allocator", "managed_tensor_allocator gives a well-formed tensor of the prototype's dtype, shape and device, with a deleter; a device it cannot allocate on is refused through SetError (C9)", LevelMust},
}

// ExportCase is one x.__dlpack__(...) call the checker made on a target's
// array, and what came back.
type ExportCase struct {
	Case string `json:"case"` // e.g. "float32 transposed (3, 2): max_version=(1, 3)"
	// The request: nil for an absent keyword.
	MaxVersion *[2]int64 `json:"max_version"`
	DLDevice   *[2]int64 `json:"dl_device"`
	Copy       *bool     `json:"copy"`
	Stream     *int64    `json:"stream"`
	// The array: its __dlpack_device__(), whether it is read-only, and its
	// elements as the target itself reports them (C order).
	Device [2]int64 `json:"device"`
	// DeviceError: __dlpack_device__() was not a pair of ints (its repr);
	// Device then holds its type and id 0.
	DeviceError string   `json:"device_error"`
	ReadOnly    bool     `json:"read_only"`
	DType       [3]int64 `json:"dtype"` // code, bits, lanes
	Shape       []int64  `json:"shape"`
	Values      []byte   `json:"values"`
	// Baseline is the address of the first element of a plain
	// __dlpack__(max_version=(1, 3)) export of the same array (0: unknown).
	Baseline uint64 `json:"baseline"`
	// API: the case went through the type's C exchange API
	// (managed_tensor_from_py_object_no_sync) instead of __dlpack__: the
	// API's version, the required functions it lacks, and what the call
	// returned; a tensor it gave is judged as a versioned capsule.
	API *APICase `json:"api"`
	// Release: the case is the end of a capsule of max_version=(1, 3):
	// "unconsumed" (dropped as it came) or "nogil" (consumed by godlpack
	// and released by a Go call with the GIL released); the references
	// to the array before the export, while the capsule or import held it,
	// and after the release (the deleter's work, where the target's
	// capsule holds a reference at all).
	Release    string `json:"release"`
	RefsBefore int64  `json:"refs_before"`
	RefsHeld   int64  `json:"refs_held"`
	RefsAfter  int64  `json:"refs_after"`
	// DeleterCalls: how many times the tensor's deleter ran by the end (a
	// counting trampoline in its deleter field); nil when not counted (no
	// deleter, or no capsule).
	DeleterCalls *int64 `json:"deleter_calls"`
	// The answer: the exception class the call raised ("" when a capsule
	// came back), its message, and the capsule's name.
	Raised  string `json:"raised"`
	Message string `json:"message"`
	Name    string `json:"name"`
}

// APICase is what the checker saw of a C exchange API.
type APICase struct {
	// How: "" for managed_tensor_from_py_object_no_sync of the array,
	// "allocator" for managed_tensor_allocator of a prototype of the
	// case's dtype, shape and device.
	How     string   `json:"how"`
	Version [2]int64 `json:"version"`
	Missing []string `json:"missing"`
	RC      int64    `json:"rc"`
	Message string   `json:"message"` // what the allocator gave SetError
}

// Judged is what JudgeExport found: the results, and the address of the
// tensor's first element (0 when no tensor came back), which the checker
// compares across calls to tell copies from views.
type Judged struct {
	Results []Result `json:"results"`
	First   uint64   `json:"first"`
}

// Result is one graded check of one case.
type Result struct {
	ID       string `json:"id"`
	Case     string `json:"case"`
	Result   string `json:"result"`
	Evidence string `json:"evidence,omitempty"`
}

// JudgeExport grades one case against every export check it bears on; the
// checks it cannot judge are left out (the report marks a check N/A when no
// case judged it). managed is the capsule's managed tensor (nil when the
// call raised); it is read, never freed: the caller still owns the capsule.
func JudgeExport(c *ExportCase, managed unsafe.Pointer) Judged {
	var j Judged
	out := &j.Results
	add := func(id string, ok bool, evidence string, args ...any) {
		r := Result{ID: id, Case: c.Case, Result: Pass}
		if !ok {
			r.Result, r.Evidence = Fail, fmt.Sprintf(evidence, args...)
		}
		*out = append(*out, r)
	}
	req := exportRequestOf(c)
	src := core.Device{Type: core.DeviceType(c.Device[0]), ID: int32(c.Device[1])}
	plan, planErr := core.PlanExport(src, c.ReadOnly, req)

	if c.API != nil {
		v := c.API.Version
		add("C9.header", v[0] == int64(core.DLPackMajor) && v[1] >= core.ExchangeAPIMinMinor && len(c.API.Missing) == 0,
			"the API says version (%d, %d) and lacks %v", v[0], v[1], c.API.Missing)
		if c.API.How == "allocator" {
			judgeAllocated(c, src, managed, add)
			return j
		}
		if c.API.RC != 0 || managed == nil {
			cpu := core.CPUAccessible(src.Type)
			add("C9.export", !cpu, "managed_tensor_from_py_object_no_sync returned %d for an array on %s",
				c.API.RC, src.Tuple())
			return j
		}
		add("C9.export", true, "")
	}
	if c.Release != "" {
		if c.Raised == "" {
			judgeRelease(c, add)
		}
		return j
	}
	if c.Raised != "" {
		judgeRefusal(c, src, planErr, add)
		return j
	}
	// A capsule came back: for a request core refuses, that is the failure.
	switch {
	case errors.Is(planErr, core.ErrStream):
		add("P5.stream", false, "asked %s of an array on %s: a capsule came back; the stream must be refused", asked(c), src.Tuple())
	case errors.Is(planErr, core.ErrCopyNeeded):
		add("P4.copy", false, "asked %s of an array on %s: a capsule came back, which needed a copy", asked(c), src.Tuple())
	}
	wantName := "dltensor"
	if plan.Versioned || (planErr != nil && req.HasMaxVersion && req.MaxVersion.Major >= 1) {
		wantName = "dltensor_versioned"
	}
	add("P1.name", c.Name == wantName, "asked %s, got a %q capsule; expected %q", asked(c), c.Name, wantName)
	if c.Name != "dltensor" && c.Name != "dltensor_versioned" || managed == nil {
		return j
	}
	versioned := c.Name == "dltensor_versioned"
	var h core.Header
	var shape, strides [core.MaxNdim]int64
	var describeErr error
	var flags uint64
	if versioned {
		m := (*core.DLManagedTensorVersioned)(managed)
		flags = m.Flags
		major := int64(m.Version.Major)
		okMajor := major == int64(core.DLPackMajor) && (req.MaxVersion.Major == 0 || major <= int64(req.MaxVersion.Major))
		add("P1.version", okMajor, "asked %s, got version (%d, %d)", asked(c), m.Version.Major, m.Version.Minor)
		if !okMajor {
			return j
		}
		describeErr = core.DescribeVersioned(m, &h, shape[:], strides[:])
	} else {
		describeErr = core.DescribeLegacy((*core.DLManagedTensor)(managed), &h, shape[:], strides[:])
	}
	add("S.struct", describeErr == nil, "asked %s: %v", asked(c), describeErr)
	if describeErr != nil {
		return j
	}
	nd := int(h.Ndim)
	got := core.Device(h.Device)
	if c.DeviceError != "" {
		add("P8.device", false, "__dlpack_device__() returned %s, not a (DLDeviceType, device_id) tuple of ints", c.DeviceError)
	} else if c.DLDevice == nil {
		add("P8.device", got == src, "__dlpack_device__() says %s, the capsule's tensor is on %s", src.Tuple(), got.Tuple())
	} else {
		want := core.Device{Type: core.DeviceType(c.DLDevice[0]), ID: int32(c.DLDevice[1])}
		add("P3.dl_device", got == want, "asked dl_device=%s, got a tensor on %s", want.Tuple(), got.Tuple())
	}
	if core.CPUAccessible(got.Type) || core.Reachable(got) { // a registered backend copies device memory back
		judgeValues(c, &h, shape[:nd], strides[:nd], add)
	}
	// A copy is fresh memory the consumer may write: only the array's own
	// memory must say read-only (a copy that does not say it is one is
	// told by its address).
	first := uint64(uintptr(h.Data)) + uint64(h.Offset*h.DType.ItemSize())
	j.First = first
	own := flags&core.FlagIsCopied == 0 && (c.Baseline == 0 || first == c.Baseline || sizeOf(shape[:nd]) == 0)
	if c.ReadOnly && versioned && own {
		add("P2.read_only", flags&core.FlagReadOnly != 0, "asked %s of a read-only array: READ_ONLY is not set", asked(c))
	}
	if c.ReadOnly && !versioned {
		add("P2.read_only", false, "asked %s of a read-only array: a legacy capsule came back, which cannot say read-only", asked(c))
	}
	if c.Copy != nil && *c.Copy {
		// a legacy capsule cannot say IS_COPIED: its memory must still be fresh
		fresh := c.Baseline == 0 || first != c.Baseline || sizeOf(shape[:nd]) == 0
		add("P4.copy", fresh && (!versioned || flags&core.FlagIsCopied != 0),
			"asked %s: IS_COPIED=%v, data at %#x (the array's own memory is at %#x)", asked(c), flags&core.FlagIsCopied != 0,
			first, c.Baseline)
	} else if c.DLDevice == nil || (core.Device{Type: core.DeviceType(c.DLDevice[0]), ID: int32(c.DLDevice[1])} == src) {
		shares := c.Baseline == 0 || first == c.Baseline || sizeOf(shape[:nd]) == 0
		id := "P4.copy"
		if c.DLDevice != nil {
			id = "P3.dl_device"
		}
		add(id, shares && flags&core.FlagIsCopied == 0, "asked %s: IS_COPIED=%v, data at %#x (the array's own memory is at %#x)",
			asked(c), flags&core.FlagIsCopied != 0, first, c.Baseline)
	}
	return j
}

// judgeRelease grades the end of a capsule (P6: dropped unconsumed, its
// destructor; P7: consumed by godlpack and released without the GIL): the
// deleter ran exactly once, and the references the export took of the
// array are gone. A deleter run again after the consumer's is the capsule
// destructor's, which must leave a renamed capsule alone (P6).
func judgeRelease(c *ExportCase, add func(string, bool, string, ...any)) {
	id, how := "P6.destructor", "dropped unconsumed"
	if c.Release == "nogil" {
		id, how = "P7.thread", "released without the GIL"
	}
	if n := c.DeleterCalls; n != nil && *n > 1 && c.Release == "nogil" {
		add("P6.destructor", false, "the deleter ran %d times after the capsule was consumed and %s: the "+
			"capsule's destructor ran it too, after the rename", *n, how)
	} else if n != nil && (*n > 0 || c.Release == "nogil") {
		// a destructor may free its tensor through its own function rather
		// than the deleter field (jax's): no call of an unconsumed capsule's
		// is then the references' to judge
		add(id, *n == 1, "the deleter ran %d times after the capsule was %s; expected once", *n, how)
	}
	add(id, c.RefsHeld <= c.RefsBefore || c.RefsAfter == c.RefsBefore,
		"references to the array: %d before the export, %d while held, %d after it was %s; expected %d",
		c.RefsBefore, c.RefsHeld, c.RefsAfter, how, c.RefsBefore)
}

// judgeRefusal grades a __dlpack__ call that raised: a refusal core would
// make must come with the class core gives it (or the alternative the rule
// allows); a valid request must be served. Moving to another device is
// something a producer may do, not must: it may refuse any device other
// than the array's own, with BufferError (P3).
func judgeRefusal(c *ExportCase, src core.Device, planErr error, add func(string, bool, string, ...any)) {
	switch {
	case planErr == nil && c.DLDevice != nil && (core.Device{Type: core.DeviceType(c.DLDevice[0]), ID: int32(c.DLDevice[1])}) != src:
		add("P3.dl_device", c.Raised == "BufferError", "asked %s of an array on %s: raised %s, expected BufferError",
			asked(c), src.Tuple(), c.Raised)
	case planErr == nil:
		id := "P1.name"
		switch {
		case c.Copy != nil:
			id = "P4.copy"
		case c.DLDevice != nil:
			id = "P3.dl_device"
		case c.Stream != nil:
			id = "P5.stream"
		case c.ReadOnly:
			id = "P2.read_only"
		}
		add(id, false, "asked %s: raised %s: %s; the request is valid and must be served", asked(c), c.Raised, c.Message)
	case errors.Is(planErr, core.ErrReadOnlyLegacy):
		add("P2.read_only", c.Raised == "BufferError", "asked %s of a read-only array: raised %s, expected BufferError",
			asked(c), c.Raised)
	case errors.Is(planErr, core.ErrStream):
		add("P5.stream", true, "")
	case errors.Is(planErr, core.ErrCopyNeeded), errors.Is(planErr, core.ErrDevice):
		id := "P3.dl_device"
		if c.Copy != nil && !*c.Copy {
			id = "P4.copy"
		}
		add(id, c.Raised == "BufferError", "asked %s: raised %s, expected BufferError", asked(c), c.Raised)
	}
}

// judgeValues compares the tensor's elements, read in C order through
// core's own copy, with the values the target reported.
// judgeAllocated grades what managed_tensor_allocator gave for a prototype
// of the case's dtype, shape and device (managed nil: it failed).
func judgeAllocated(c *ExportCase, src core.Device, managed unsafe.Pointer, add func(string, bool, string, ...any)) {
	if c.API.RC != 0 || managed == nil {
		// a device it cannot allocate on is refused through SetError
		refused := c.API.RC == -1 && c.API.Message != "" && !core.CPUAccessible(src.Type)
		add("C9.allocator", refused, "managed_tensor_allocator returned %d for a %v %v prototype on %s (%s)", c.API.RC,
			dtypeOf(c.DType), c.Shape, src.Tuple(), c.API.Message)
		return
	}
	m := (*core.DLManagedTensorVersioned)(managed)
	var h core.Header
	var shape, strides [core.MaxNdim]int64
	err := core.DescribeVersioned(m, &h, shape[:], strides[:])
	switch {
	case err != nil:
		add("C9.allocator", false, "the allocated tensor: %v", err)
	case m.Deleter == nil:
		add("C9.allocator", false, "the allocated tensor has no deleter: its memory cannot be freed")
	default:
		nd := int(h.Ndim)
		ok := h.DType == dtypeOf(c.DType) && equalDims(shape[:nd], c.Shape) && core.Device(h.Device) == src
		add("C9.allocator", ok, "a %v %v prototype on %s gave a %v %v tensor on %s", dtypeOf(c.DType), c.Shape,
			src.Tuple(), h.DType, shape[:nd], core.Device(h.Device).Tuple())
	}
}

func judgeValues(c *ExportCase, h *core.Header, shape, strides []int64, add func(string, bool, string, ...any)) {
	want := core.DataType{Code: core.DataTypeCode(c.DType[0]), Bits: uint8(c.DType[1]), Lanes: uint16(c.DType[2])}
	if h.DType != want || !equalDims(shape, c.Shape) {
		add("S.values", false, "asked %s: got dtype %v shape %v, the array is %v %v", asked(c), h.DType, shape, want, c.Shape)
		return
	}
	n := sizeOf(shape)
	if n == 0 || h.DType.IsSubByte() {
		add("S.values", true, "")
		return
	}
	var dst core.Header
	var dstStrides [core.MaxNdim]int64
	if err := core.AllocContiguous(h.DType, shape, &dst, dstStrides[:]); err != nil {
		add("S.values", false, "asked %s: cannot read the tensor back: %v", asked(c), err)
		return
	}
	defer dst.Owner.Release()
	if err := core.CopyInto(&dst, shape, dstStrides[:len(shape)], h, shape, strides); err != nil {
		add("S.values", false, "asked %s: cannot read the tensor back: %v", asked(c), err)
		return
	}
	got := unsafe.Slice((*byte)(dst.Data), n*h.DType.ItemSize())
	if i := firstDiff(got, c.Values, int(h.DType.ItemSize())); i >= 0 {
		add("S.values", false, "asked %s: from element %d (C order) on, expected %s got %s", asked(c), i,
			valuesFrom(c.Values, i, h.DType), valuesFrom(got, i, h.DType))
		return
	}
	add("S.values", true, "")
}

func exportRequestOf(c *ExportCase) core.ExportRequest {
	var r core.ExportRequest
	if c.MaxVersion != nil {
		r.HasMaxVersion, r.MaxVersion = true, core.Version{Major: uint32(max(c.MaxVersion[0], 0)), Minor: uint32(max(c.MaxVersion[1], 0))}
	}
	if c.DLDevice != nil {
		r.HasDLDevice, r.DLDevice = true, core.Device{Type: core.DeviceType(c.DLDevice[0]), ID: int32(c.DLDevice[1])}
	}
	if c.Copy != nil {
		r.Copy = core.CopyNever
		if *c.Copy {
			r.Copy = core.CopyAlways
		}
	}
	if c.Stream != nil {
		r.HasStream, r.Stream = true, *c.Stream
	}
	return r
}

// asked spells the request as Python keywords.
func asked(c *ExportCase) string {
	var b bytes.Buffer
	b.WriteString("__dlpack__(")
	sep := ""
	if c.MaxVersion != nil {
		fmt.Fprintf(&b, "max_version=(%d, %d)", c.MaxVersion[0], c.MaxVersion[1])
		sep = ", "
	}
	if c.DLDevice != nil {
		fmt.Fprintf(&b, "%sdl_device=(%d, %d)", sep, c.DLDevice[0], c.DLDevice[1])
		sep = ", "
	}
	if c.Copy != nil {
		fmt.Fprintf(&b, "%scopy=%s", sep, map[bool]string{true: "True", false: "False"}[*c.Copy])
		sep = ", "
	}
	if c.Stream != nil {
		fmt.Fprintf(&b, "%sstream=%d", sep, *c.Stream)
	}
	b.WriteString(")")
	return b.String()
}

func sizeOf(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

func equalDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// firstDiff is the index of the first element (of size is) where a and b
// differ, or -1.
func firstDiff(a, b []byte, is int) int {
	if len(a) != len(b) {
		return min(len(a), len(b)) / is
	}
	for i := 0; i < len(a); i += is {
		if !bytes.Equal(a[i:i+is], b[i:i+is]) {
			return i / is
		}
	}
	return -1
}

// valuesFrom formats up to three elements of b from element i as values
// (numpy's print of them, near enough: integers exactly, floating point
// in the fewest digits that read back as the same value of its width), or
// as bytes where core cannot convert the dtype.
func valuesFrom(b []byte, i int, dt core.DataType) string {
	is := elementBytes(dt)
	out := []byte{'['}
	for k := i; k < i+3 && (k+1)*is <= len(b); k++ {
		if k > i {
			out = append(out, ' ')
		}
		out = append(out, valueText(b[k*is:(k+1)*is], dt)...)
	}
	if (i+3)*is < len(b) {
		out = append(out, " ..."...)
	}
	return string(append(out, ']'))
}

// elementBytes is the bytes of one element in a case's values: a sub-byte
// dtype's are one code per byte (the checker unpacks packed data); never 0,
// so that a walk over the values ends whatever dtype a case names.
func elementBytes(dt core.DataType) int {
	return max(int(dt.ItemSize()), 1)
}

// valueText is one element's value as text (its bytes in hex when core
// has no conversion for the dtype).
func valueText(e []byte, dt core.DataType) string {
	var to core.DataType
	switch dt.Code {
	case core.KDLInt, core.KDLBool:
		to = core.Int64
	case core.KDLUInt:
		to = core.Uint64
	case core.KDLComplex:
		to = core.Complex128
	default:
		to = core.Float64
	}
	if f, ok := core.SubByteToFloat64(dt, e[0]); ok {
		return strconv.FormatFloat(f, 'g', -1, 32)
	}
	var v [16]byte
	dims, strides := []int64{1}, []int64{1}
	src := core.Header{Data: unsafe.Pointer(&e[0]), DType: dt, Ndim: 1, Device: core.CPU}
	dst := core.Header{Data: unsafe.Pointer(&v[0]), DType: to, Ndim: 1, Device: core.CPU}
	if dt.Lanes != 1 || core.ConvertInto(&dst, dims, strides, &src, dims, strides) != nil {
		return fmt.Sprintf("0x%x", e)
	}
	bits := 64
	if dt.Bits <= 32 || dt.Code == core.KDLComplex && dt.Bits <= 64 {
		bits = 32
	}
	switch to {
	case core.Int64:
		return strconv.FormatInt(*(*int64)(unsafe.Pointer(&v[0])), 10)
	case core.Uint64:
		return strconv.FormatUint(*(*uint64)(unsafe.Pointer(&v[0])), 10)
	case core.Complex128:
		return strconv.FormatComplex(*(*complex128)(unsafe.Pointer(&v[0])), 'g', -1, 2*bits)
	}
	return strconv.FormatFloat(*(*float64)(unsafe.Pointer(&v[0])), 'g', -1, bits)
}
