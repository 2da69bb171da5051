package conformance

import (
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/godlpack/godlpack/core"
)

func init() { core.Judge = judgeJSON }

// judgeJSON is core.Judge: JudgeExport (JudgeImport when imports) between
// JSON texts; an empty case asks for the catalogue of checks.
func judgeJSON(in string, managed unsafe.Pointer, imports bool) ([]byte, error) {
	var v any = ExportChecks
	if imports {
		v = ImportChecks
	}
	var err error
	switch {
	case in == "":
	case imports:
		var c ImportCase
		if err = json.Unmarshal([]byte(in), &c); err == nil {
			v = JudgeImport(&c)
		}
	default:
		var c ExportCase
		if err = json.Unmarshal([]byte(in), &c); err == nil {
			v = JudgeExport(&c, managed)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the case is not a case in JSON (%v)", err)
	}
	return json.Marshal(v)
}
