package gofunc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/godlpack/godlpack/core"
)

// ParamSpec names a parameter and, for an array, constrains it. Make one
// with Arg or Array and pass them, in order, to Params.
type ParamSpec struct {
	name       string
	array      bool
	dtype      core.DataType
	hasDType   bool
	ndim       int
	hasNdim    bool
	device     core.Device
	hasDevice  bool
	contiguous bool
	writable   bool
	def        any
	hasDef     bool
}

// Arg names a parameter (any kind).
func Arg(name string) ParamSpec { return ParamSpec{name: name} }

// Array names an array parameter; its methods add constraints.
func Array(name string) ParamSpec { return ParamSpec{name: name, array: true} }

// DType requires the array's dtype to be dt (TypeError otherwise).
func (p ParamSpec) DType(dt core.DataType) ParamSpec { p.dtype, p.hasDType = dt, true; return p }

// NDim requires n dimensions (ValueError otherwise).
func (p ParamSpec) NDim(n int) ParamSpec { p.ndim, p.hasNdim = n, true; return p }

// Device requires the array to live on d (BufferError otherwise).
func (p ParamSpec) Device(d core.Device) ParamSpec { p.device, p.hasDevice = d, true; return p }

// Contiguous requires a C-contiguous array (BufferError otherwise), so that
// the typed slices of core (Float32s, ...) work on it.
func (p ParamSpec) Contiguous() ParamSpec { p.contiguous = true; return p }

// Writable requires an array that may be written (ValueError for a read-only
// one, e.g. numpy's writeable=False).
func (p ParamSpec) Writable() ParamSpec { p.writable = true; return p }

// Default makes the parameter optional with the value v (of the parameter's
// Go type; not for arrays or contexts).
func (p ParamSpec) Default(v any) ParamSpec { p.def, p.hasDef = v, true; return p }

// Param describes one Python parameter of a registered function.
type Param struct {
	Name string
	Kind Kind
	Spec ParamSpec
	def  Value
}

// Optional reports whether the parameter has a default.
func (p *Param) Optional() bool { return p.Spec.hasDef }

// DefaultRepr is the default value as Python source ("" when required).
func (p *Param) DefaultRepr() string {
	if !p.Spec.hasDef {
		return ""
	}
	switch v := p.Spec.def.(type) {
	case bool:
		if v {
			return "True"
		}
		return "False"
	case string:
		return fmt.Sprintf("%q", v)
	case []int64:
		s := "("
		for i, d := range v {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprint(d)
		}
		if len(v) == 1 {
			s += ","
		}
		return s + ")"
	case complex128:
		return fmt.Sprintf("complex(%s, %s)", pyFloat(real(v)), pyFloat(imag(v)))
	case float64:
		return pyFloat(v)
	}
	return fmt.Sprint(p.Spec.def)
}

// pyFloat is v as Python writes a float literal.
func pyFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "float('inf')"
	case math.IsInf(v, -1):
		return "float('-inf')"
	case math.IsNaN(v):
		return "float('nan')"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// Constraints describes the array constraints for docstrings ("" if none).
func (p *Param) Constraints() string {
	s := p.Spec
	out := ""
	add := func(x string) {
		if out != "" {
			out += ", "
		}
		out += x
	}
	if s.hasDType {
		add("dtype " + s.dtype.String())
	}
	if s.hasNdim {
		add(fmt.Sprintf("%d-d", s.ndim))
	}
	if s.hasDevice {
		add("on " + s.device.String())
	}
	if s.contiguous {
		add("C-contiguous")
	}
	if s.writable {
		add("writable")
	}
	return out
}

// setDefault checks the default value against the parameter's kind.
func (p *Param) setDefault() error {
	if !p.Spec.hasDef {
		return nil
	}
	v := &p.def
	ok := true
	switch d := p.Spec.def.(type) {
	case int:
		v.Kind, v.I = KindInt, int64(d)
		ok = p.Kind == KindInt
	case int64:
		v.Kind, v.I = KindInt, d
		ok = p.Kind == KindInt
	case float64:
		v.Kind, v.F = KindFloat, d
		ok = p.Kind == KindFloat
	case bool:
		v.Kind = KindBool
		if d {
			v.I = 1
		}
		ok = p.Kind == KindBool
	case complex128:
		v.Kind, v.C = KindComplex, d
		ok = p.Kind == KindComplex
	case string:
		v.Kind, v.S = KindString, d
		ok = p.Kind == KindString
	case []int64:
		v.Kind, v.Ints = KindInts, d
		ok = p.Kind == KindInts
	default:
		ok = false
	}
	if !ok {
		return fmt.Errorf("gofunc: default %#v does not suit parameter %q of kind %s", p.Spec.def, p.Name, p.Kind.PyType())
	}
	return nil
}

// constrained says whether p's array constraints have anything to check.
func (s *ParamSpec) constrained() bool {
	return s.hasDType || s.hasNdim || s.hasDevice || s.contiguous || s.writable
}

// check applies the array constraints of p to a (before the call).
func (p *Param) check(fn string, a *core.Array) error {
	s := &p.Spec
	if s.hasDType && a.DType() != s.dtype {
		return core.WithClass(core.ClassType, fmt.Sprintf("%s(): %s must have dtype %v, got %v; convert it first (numpy: x.astype(%q), torch: x.to(torch.%s))",
			fn, p.Name, s.dtype, a.DType(), s.dtype.String(), s.dtype.String()), core.ErrDType)
	}
	if s.hasNdim && a.Ndim() != s.ndim {
		return core.WithClass(core.ClassValue, fmt.Sprintf("%s(): %s must have %d dimensions, got %d (shape %v); reshape it first",
			fn, p.Name, s.ndim, a.Ndim(), a.Shape()), core.ErrShape)
	}
	if s.hasDevice && a.Device() != s.device {
		return core.WithClass(core.ClassBuffer, fmt.Sprintf("%s(): %s must be on %v, got an array on %v; move it there first (torch: x.to(%q))",
			fn, p.Name, s.device, a.Device(), s.device.String()), core.ErrDevice)
	}
	if s.contiguous && !a.IsCContiguous() {
		return core.WithClass(core.ClassBuffer, fmt.Sprintf("%s(): %s must be C-contiguous, got strides %v; pass a contiguous copy "+
			"(numpy.ascontiguousarray(x), x.contiguous() in torch, x.copy() in godlpack)", fn, p.Name, a.Strides()), core.ErrStrides)
	}
	if s.writable && a.ReadOnly() {
		return core.WithClass(core.ClassValue, fmt.Sprintf("%s(): %s must be writable, got a read-only array; pass a writable copy (x.copy())",
			fn, p.Name), core.ErrReadOnly)
	}
	return nil
}
