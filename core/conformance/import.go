package conformance

import (
	"bytes"
	"fmt"
	"github.com/godlpack/godlpack/core"
	"strings"
)

// The consumer half of the conformance checker: TARGET's from_dlpack is
// handed instrumented producers (godlpack arrays behind a recorder) and
// JudgeImport grades what it did by godlpack's consumer rules (C1-C7): what
// it asked for, whether it renamed the capsule, when the deleter ran (the
// source array's owner count, read before, with the import alive, and after
// its death), whether it honoured READ_ONLY, and what it read.

// ImportChecks are the checks of a consumer's from_dlpack, in report order.
var ImportChecks = []Check{
	{"C1.versioned", "the consumer asks for a versioned capsule: __dlpack__(max_version=(1, x)) (C1)", LevelShould},
	{"C1.fallback", "a producer whose __dlpack__ takes no max_version (TypeError) is asked again without it (C1)", LevelShould},
	{"C3.rename", "the capsule the consumer imports from is renamed \"used_dltensor\" / \"used_dltensor_versioned\"; one it declines keeps its name for its destructor (C3, C4)", LevelMust},
	{"C3.deleter", "the deleter runs exactly once: after the last array over the memory dies, or at once when the consumer copied (C3, C4)", LevelMust},
	{"C3.pydtor", "a refused capsule whose destructor is Python code still reaches its deleter: the consumer drops it with no exception in flight (C4; numpy#32697)", LevelAdvice},
	{"C5.read_only", "memory exported with READ_ONLY is never imported writable (C5)", LevelAdvice},
	{"C.values", "the imported array holds the producer's shape, dtype and elements, bit for bit (S3, S4)", LevelMust},
	{"C7.copy", "from_dlpack(x, copy=True) gives memory of its own, copy=False the producer's or a ValueError / BufferError (C7)", LevelMust},
	{"C9.to_py", "managed_tensor_to_py_object_no_sync takes a CPU tensor and its deleter; the object is then judged as an import (values, READ_ONLY, the deleter once) (C9)", LevelMust},
	{"C7.pass", "from_dlpack's copy and device reach __dlpack__ as copy= and dl_device= (C7)", LevelAdvice},
	{"C4.refuse", "what the consumer cannot represent (major version 2, dtypes or strides it lacks) is refused: an exception, never imported or crashed on (C4, S1)", LevelMust},
	{"C4.class", "the consumer's refusal of what it cannot represent is a BufferError (C4, S1; the standard names no class)", LevelAdvice},
}

// ImportCase is one from_dlpack call of TARGET on an instrumented producer.
type ImportCase struct {
	Case string `json:"case"`
	// The producer: the godlpack array behind it and how it answered.
	OldProducer bool `json:"old_producer"` // __dlpack__(stream=None) only
	ReadOnly    bool `json:"read_only"`    // exported with READ_ONLY
	// Damaged: what the producer changed in its capsule: "major2" (the
	// version says 2.0) and "dtype99" (an unknown type code) must be
	// refused; "byte_offset" (the data pointer moved back, byte_offset
	// forward: the same elements) must be read like any other.
	Damaged string `json:"damaged"`
	// PyDestructor: the capsule's destructor is Python code, which cannot
	// run while the consumer drops the capsule with its exception set
	PyDestructor bool `json:"py_destructor"`
	Supported    bool `json:"supported"` // the consumer has the dtype (its own table)
	// Unlisted: a dtype godlpack describes that the target's row neither
	// lists nor says it lacks. The consumer may refuse it (C4) or import it;
	// an import is judged on what it holds, read back through DLPack.
	Unlisted bool     `json:"unlisted"`
	DType    [3]int64 `json:"dtype"`
	Shape    []int64  `json:"shape"`
	Values   []byte   `json:"values"`
	// The call: from_dlpack's copy keyword (nil: absent), the keywords each
	// __dlpack__ call got, the names the capsules had after the import.
	Copy   *bool     `json:"copy"`
	Device *[2]int64 `json:"device"` // from_dlpack's device, as a DLPack pair (nil: absent)
	// The producer's __dlpack_device__().
	ProducerDevice [2]int64         `json:"producer_device"`
	Asked          []map[string]any `json:"asked"`
	Names          []string         `json:"names"`
	// ProducerRaised: the exception came from the producer (a request it
	// refuses), not from the consumer.
	ProducerRaised bool `json:"producer_raised"`
	// The outcome: the exception class, else what the array holds and
	// whether the consumer reports it writable (nil: it cannot say), and
	// whether it shares the producer's memory (a write through the producer
	// shows; nil: unknown).
	Raised   string   `json:"raised"`
	Message  string   `json:"message"`
	GotDType [3]int64 `json:"got_dtype"`
	GotShape []int64  `json:"got_shape"`
	GotValue []byte   `json:"got_values"`
	Writable *bool    `json:"writable"`
	// ReadbackError: the imported array could not be read (the call and
	// its exception).
	ReadbackError string `json:"readback_error"`
	Shares        *bool  `json:"shares"`
	// API: the tensor went to the type's C exchange API
	// (managed_tensor_to_py_object_no_sync) instead of from_dlpack: what
	// that returned.
	API *APICase `json:"api"`
	// The source array's owner references: before the call, with the
	// import alive (the producer's capsules dropped), and after its death.
	RefsBefore int64 `json:"refs_before"`
	RefsAlive  int64 `json:"refs_alive"`
	RefsAfter  int64 `json:"refs_after"`
	// DeleterAlive and DeleterAfter count the calls of each versioned
	// capsule's deleter (the checker's counting deleters) at those two
	// times; empty when no versioned capsule was made.
	DeleterAlive []int64 `json:"deleter_alive"`
	DeleterAfter []int64 `json:"deleter_after"`
}

// JudgeImport grades one from_dlpack call.
func JudgeImport(c *ImportCase) Judged {
	var j Judged
	add := func(id string, ok bool, evidence string, args ...any) {
		r := Result{ID: id, Case: c.Case, Result: Pass}
		if !ok {
			r.Result, r.Evidence = Fail, fmt.Sprintf(evidence, args...)
		}
		j.Results = append(j.Results, r)
	}
	if c.API != nil {
		add("C9.to_py", c.API.RC == 0 && c.Raised == "", "managed_tensor_to_py_object_no_sync of a %v %v returned %d",
			dtypeOf(c.DType), c.Shape, c.API.RC)
		if c.Raised != "" {
			return j
		}
	}
	if len(c.Asked) > 0 && !c.OldProducer {
		mv, ok := c.Asked[0]["max_version"].([]any)
		major, _ := firstNumber(mv)
		add("C1.versioned", ok && major >= 1, "from_dlpack called __dlpack__(%s)", kwString(c.Asked[0]))
	}
	if len(c.Asked) > 0 && !c.OldProducer && (c.Copy != nil || c.Device != nil) {
		judgePassed(c, add)
	}
	if c.Damaged == "" && (!c.Supported || c.Unlisted) && c.ProducerRaised {
		// the producer refused what it was asked (a legacy capsule of padded
		// sub-byte data): nothing reached the consumer to refuse
		return j
	}
	if c.Damaged == "major2" || c.Damaged == "dtype99" || !c.Supported || (c.Unlisted && c.Raised != "") {
		// S1 / C4: refused, and the capsule left to its own destructor
		what := "a version 2.0 capsule"
		switch {
		case c.Damaged == "dtype99":
			what = "a tensor of the unknown type code 99"
		case c.Damaged == "" && c.Unlisted:
			what = fmt.Sprintf("dtype %v, which its row does not list,", dtypeOf(c.DType))
		case c.Damaged == "":
			what = fmt.Sprintf("dtype %v, which it lacks,", dtypeOf(c.DType))
		}
		if c.Raised == "" {
			add("C4.refuse", false, "%s was imported (dtype %v, shape %v) instead of refused", what, dtypeOf(c.GotDType), c.GotShape)
		} else {
			add("C4.refuse", true, "")
			add("C4.class", c.Raised == "BufferError", "%s was refused with %s (%s), expected BufferError", what, c.Raised, c.Message)
		}
		if c.Raised != "" {
			calls := c.RefsBefore - c.RefsAfter + 1
			if len(c.DeleterAfter) > 0 {
				calls = c.DeleterAfter[0]
			}
			id := "C3.deleter"
			if c.PyDestructor { // the standard says nothing of destructors written in Python
				id = "C3.pydtor"
			}
			add(id, calls == 1 && c.RefsAfter == c.RefsBefore,
				"refused: the deleter ran %d times (expected once, from the capsule's destructor)", calls)
		}
		return j
	}
	if c.Raised != "" {
		retried := len(c.Asked) >= 1 && len(c.Asked[len(c.Asked)-1]) == 0
		switch {
		case c.ProducerRaised:
			// the producer refused what it was asked (C1 judges the asking)
		case c.OldProducer && !retried:
			add("C1.fallback", false, "the producer takes no max_version; from_dlpack raised %s: %s", c.Raised, c.Message)
		case c.Copy != nil && !*c.Copy && (c.Raised == "ValueError" || c.Raised == "BufferError"):
			// the standard's class for "a copy would be needed" is ValueError, godlpack's BufferError
			add("C7.copy", true, "")
		default:
			add("C4.refuse", true, "")
			add("C4.class", c.Raised == "BufferError", "a %v %v the consumer refused with %s (%s), expected BufferError",
				dtypeOf(c.DType), c.Shape, c.Raised, c.Message)
		}
		return j
	}
	if c.OldProducer {
		add("C1.fallback", len(c.Asked) >= 1 && len(c.Asked[len(c.Asked)-1]) == 0,
			"the producer takes no max_version; the last call was __dlpack__(%s)", kwString(c.Asked[len(c.Asked)-1]))
	}
	// A consumer may decline a capsule and ask again (C4: godlpack does,
	// when the tensor turns out to need its queue); the capsule it imports
	// from is the one it renames.
	used := func(i int) bool {
		return i >= len(c.Names) || c.Names[i] == "used_dltensor" || c.Names[i] == "used_dltensor_versioned"
	}
	if len(c.Names) > 0 {
		renamed := 0
		for i := range c.Names {
			if used(i) {
				renamed++
			}
		}
		add("C3.rename", renamed == 1, "%d of the %d capsules it was given were renamed after the import (names %q); "+
			"expected the one it imported from", renamed, len(c.Names), c.Names)
	}
	switch {
	case c.ReadbackError != "" && c.Unlisted:
		// the consumer's own export of a dtype it was never listed with: not
		// the import's fault, so the values are not judged
	case c.ReadbackError != "":
		add("C.values", false, "the import succeeded, but reading it back failed: %s", c.ReadbackError)
		return j
	default:
		dt := dtypeOf(c.DType)
		same := c.GotDType == c.DType && equalDims(c.GotShape, c.Shape)
		if i := firstDiff(c.GotValue, c.Values, elementBytes(dt)); same && i >= 0 {
			add("C.values", false, "the producer's %v %v came back with other elements: from element %d (C order) on, "+
				"expected %s got %s", dt, c.Shape, i, valuesFrom(c.Values, i, dt), valuesFrom(c.GotValue, i, dt))
		} else {
			add("C.values", same && i < 0, "the producer's %v %v became %v %v%s", dt, c.Shape, dtypeOf(c.GotDType),
				c.GotShape, map[bool]string{true: "", false: " with other elements"}[i < 0])
		}
	}
	shares := c.Shares != nil && *c.Shares
	// With the import alive the producer's reference is still held when
	// the memory is shared; a copy may have let it go already.
	onceAfterDeath := c.RefsAfter == c.RefsBefore && (!shares || c.RefsAlive == c.RefsBefore+1)
	counted := ""
	for i, n := range c.DeleterAfter {
		alive := int64(0)
		if i < len(c.DeleterAlive) {
			alive = c.DeleterAlive[i]
		}
		// a capsule left unrenamed is freed by its destructor, whenever it dies
		if counted == "" && (n != 1 || (shares && used(i) && alive != 0)) {
			counted = fmt.Sprintf("capsule %d's deleter ran %d times while the import lived and %d times in all; expected %s",
				i, alive, n, map[bool]string{true: "0 and 1", false: "once"}[used(i)])
		}
	}
	if counted != "" {
		add("C3.deleter", false, "%s", counted)
	} else {
		add("C3.deleter", onceAfterDeath, "owner references of the exported array: %d before, %d with the import alive%s, %d after its death; "+
			"expected %d after (the deleter once)%s", c.RefsBefore, c.RefsAlive,
			map[bool]string{true: " (it shares the memory)", false: ""}[shares], c.RefsAfter, c.RefsBefore,
			map[bool]string{true: fmt.Sprintf(" and %d while it lives", c.RefsBefore+1), false: ""}[shares])
	}
	if c.ReadOnly && c.Writable != nil && shares {
		add("C5.read_only", !*c.Writable, "a READ_ONLY capsule became a writable array over the producer's memory")
	}
	if c.Copy != nil && c.Shares != nil {
		want := !*c.Copy
		add("C7.copy", *c.Shares == want, "from_dlpack(x, copy=%v): the array %s the producer's memory",
			map[bool]string{true: "True", false: "False"}[*c.Copy], map[bool]string{true: "shares", false: "does not share"}[*c.Shares])
	}
	return j
}

// judgePassed grades whether the first __dlpack__ call carried from_dlpack's
// copy and device (C7): a producer cannot serve a request it is not told.
func judgePassed(c *ImportCase, add func(string, bool, string, ...any)) {
	kw := c.Asked[0]
	ok := true
	pdev := core.Device{Type: core.DeviceType(c.ProducerDevice[0]), ID: int32(c.ProducerDevice[1])}
	if c.Copy != nil && !(*c.Copy && core.NeedsConsumerStream(pdev)) {
		// C8: copy=True with a queue is withheld (the consumer copies after waiting)
		v, has := kw["copy"].(bool)
		ok = has && v == *c.Copy
	}
	if c.Device != nil {
		d, _ := kw["dl_device"].([]any)
		ok = ok && len(d) == 2 && d[0] == float64(c.Device[0]) && d[1] == float64(c.Device[1])
	}
	want := ""
	if c.Copy != nil {
		want = fmt.Sprintf("copy=%v", map[bool]string{true: "True", false: "False"}[*c.Copy])
	}
	if c.Device != nil {
		want = strings.TrimPrefix(fmt.Sprintf("%s, dl_device=(%d, %d)", want, c.Device[0], c.Device[1]), ", ")
	}
	add("C7.pass", ok, "from_dlpack was given %s; it called __dlpack__(%s)", want, kwString(kw))
}

func dtypeOf(t [3]int64) core.DataType {
	return core.DataType{Code: core.DataTypeCode(t[0]), Bits: uint8(t[1]), Lanes: uint16(t[2])}
}

func firstNumber(v []any) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	f, ok := v[0].(float64)
	return f, ok
}

// kwString spells recorded keywords.
func kwString(kw map[string]any) string {
	var b bytes.Buffer
	for _, k := range []string{"stream", "max_version", "dl_device", "copy"} {
		if v, ok := kw[k]; ok {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			if v == nil {
				v = "None"
			}
			fmt.Fprintf(&b, "%s=%v", k, v)
		}
	}
	return b.String()
}
