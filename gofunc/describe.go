package gofunc

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Docstring is the function's Python __doc__, led by the
// __text_signature__ line that inspect.signature reads, and followed by
// what the parameters' constraints, the context and Quick() mean for the
// caller.
func (e *Entry) Docstring() string {
	var b strings.Builder
	b.WriteString(e.Name + "(")
	for k := range e.Params {
		p := &e.Params[k]
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		if p.Optional() {
			b.WriteString("=" + p.DefaultRepr())
		}
	}
	b.WriteString(")\n--\n\n")
	doc := strings.TrimSpace(e.Doc)
	if doc == "" {
		doc = "The Go function " + e.GoName + "."
	}
	b.WriteString(doc)
	var notes []string
	for k := range e.Params {
		p := &e.Params[k]
		if c := p.Constraints(); c != "" {
			notes = append(notes, fmt.Sprintf("%s: an array (%s)", p.Name, c))
		}
	}
	if e.Context {
		notes = append(notes, "Ctrl-C cancels the call (KeyboardInterrupt once the Go function returns).")
	}
	if e.Quick {
		notes = append(notes, "Holds the GIL while it runs (it returns within microseconds).")
	}
	if len(notes) > 0 {
		b.WriteString("\n\n" + strings.Join(notes, "\n"))
	}
	return b.String()
}

// meta is one function as build-ext writes it into the .pyi stub.
type meta struct {
	Name    string      `json:"name"`
	Doc     string      `json:"doc"`
	GoName  string      `json:"go_name"`
	Module  string      `json:"module,omitempty"`
	Params  []paramMeta `json:"params"`
	Results []string    `json:"results"`
	Tuple   bool        `json:"tuple"`
	Context bool        `json:"context"`
	Quick   bool        `json:"quick"`
}

type paramMeta struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Default     string `json:"default,omitempty"`
	Constraints string `json:"constraints,omitempty"`
}

// MetaJSON describes the functions as JSON, with the Python types of their
// parameters and results: what `python -m godlpack build-ext` writes into
// a module's .pyi stub (the module's _gofuncs()).
func MetaJSON(entries []*Entry) ([]byte, error) {
	ms := make([]meta, 0, len(entries))
	for _, e := range entries {
		m := meta{Name: e.Name, Doc: strings.TrimSpace(e.Doc), GoName: e.GoName, Module: e.Module, Tuple: e.Tuple, Context: e.Context,
			Quick: e.Quick, Params: []paramMeta{}, Results: []string{}}
		for k := range e.Params {
			p := &e.Params[k]
			m.Params = append(m.Params, paramMeta{Name: p.Name, Type: p.Kind.PyType(), Default: p.DefaultRepr(),
				Constraints: p.Constraints()})
		}
		for _, r := range e.Results {
			m.Results = append(m.Results, r.PyType())
		}
		ms = append(ms, m)
	}
	return json.Marshal(ms)
}
