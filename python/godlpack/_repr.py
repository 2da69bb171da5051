"""repr(), str() and format() of godlpack.Array, printed as numpy prints.

numpy's default print options are followed: at most 8 fractional digits,
the shortest digits that identify each value *in its own dtype* (so a
float32, float16, bfloat16 or float8 0.1 prints as 0.1), scientific
notation when the magnitudes of the shown values span too much, lines of at
most 75 characters, and arrays of more than 1,000 elements summarised to
their first and last 3 items per axis with ``...`` between. bfloat16 and the
float8 kinds, which numpy prints through ml_dtypes' scalar repr, are printed
like numpy's own floats instead.

Values come from ``tolist()`` and views (no Go call, so a forked child can
print); arrays whose memory the CPU cannot read print their shape, dtype and
device only.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable

THRESHOLD = 1000  # more elements than this are summarised (numpy's threshold)
EDGE_ITEMS = 3  # items kept at each end of a summarised axis (numpy's edgeitems)
LINE_WIDTH = 75  # numpy's linewidth
PRECISION = 8  # most fractional digits printed (numpy's precision)

# numpy leaves the dtype out of a repr for these (its _typelessdata).
_IMPLIED = ("bool", "int64", "float64", "complex128")

# Binary float formats narrower than float64: dtype name -> (significand bits
# with the implicit one, smallest normal exponent). The shortest digits of a
# value are those that round back to it in this format.
_NARROW: dict = {
    "float32": (24, -126),
    "float16": (11, -14),
    "bfloat16": (8, -126),
    "float8_e3m4": (5, -2),
    "float8_e4m3": (4, -6),
    "float8_e4m3b11fnuz": (4, -10),
    "float8_e4m3fn": (4, -6),
    "float8_e4m3fnuz": (4, -7),
    "float8_e5m2": (3, -14),
    "float8_e5m2fnuz": (3, -15),
    "float8_e8m0fnu": (1, -127),
}
# Magnitudes from which numpy switches to scientific notation:
# 10**min(8, finfo(dtype).precision) (ml_dtypes' finfo for bfloat16, float8).
_EXP_CUTOFF = {"float64": 1e8, "float32": 1e6, "float16": 1e3, "bfloat16": 1e2}
_EXP_CUTOFF_FLOAT8 = 10.0
_COMPONENT = {"complex64": "float32", "complex128": "float64"}
_GAP = object()  # where a summarised axis leaves items out


def _round_to(x: float, fmt: tuple[int, int]) -> float:
    """x rounded to the nearest value of fmt (ties to even), range unbounded."""
    if x == 0 or not math.isfinite(x):
        return x
    p, emin = fmt
    _, e = math.frexp(x)  # x = m * 2**e, 0.5 <= |m| < 1
    q = max(e, emin + 1) - p  # the exponent of the last significand bit
    return math.ldexp(round(math.ldexp(x, -q)), q)


def _shortest(x: float, fmt: tuple[int, int] | None) -> tuple[str, int]:
    """The shortest decimal digits that identify finite x in fmt, as
    (digits, exponent): x ~ d.ddd * 10**exponent, digits without sign."""
    if fmt is None:
        s = repr(abs(x))
    else:
        ax = abs(x)
        for n in range(1, 18):
            s = f"{ax:.{n - 1}e}"
            if _round_to(float(s), fmt) == ax:
                break
    if x == 0:
        return "0", 0
    if "e" in s:
        mant, _, ex = s.partition("e")
        exp = int(ex)
        digits = mant.replace(".", "")
    else:  # positional repr: "123.45" or "0.0012"
        ip, _, fp = s.partition(".")
        if ip != "0":
            digits, exp = (ip + fp), len(ip) - 1
        else:
            stripped = fp.lstrip("0")
            digits, exp = stripped, -(len(fp) - len(stripped)) - 1
    digits = digits.rstrip("0") or "0"
    lead = len(digits) - len(digits.lstrip("0"))
    return digits[lead:], exp - lead


def _positional(x: float, fmt: tuple[int, int] | None, sign: bool) -> tuple[str, str]:
    """(integer part with its sign, fractional part) of x, unique digits cut
    at PRECISION fractional digits, trailing zeros trimmed."""
    digits, exp = _shortest(x, fmt)
    if exp >= 0:
        ip = (digits[: exp + 1]).ljust(exp + 1, "0")
        fp = digits[exp + 1 :]
    else:
        ip, fp = "0", "0" * (-exp - 1) + digits
    if len(fp) > PRECISION:  # round the exact value, not the digits
        ip, _, fp = f"{abs(x):.{PRECISION}f}".partition(".")
        fp = fp.rstrip("0")
    neg = math.copysign(1.0, x) < 0
    return ("-" if neg else "+" if sign else "") + ip, fp


def _scientific(x: float, fmt: tuple[int, int] | None, sign: bool) -> tuple[str, str, int]:
    """(leading digit with its sign, fractional digits, exponent) of x."""
    digits, exp = _shortest(x, fmt)
    if len(digits) - 1 > PRECISION:
        mant, _, ex = f"{abs(x):.{PRECISION}e}".partition("e")
        digits, exp = mant.replace(".", "").rstrip("0"), int(ex)
    neg = math.copysign(1.0, x) < 0
    return ("-" if neg else "+" if sign else "") + digits[0], digits[1:], exp


class _FloatFormat:
    """numpy's FloatingFormat with its default options (floatmode "maxprec")."""

    def __init__(self, values: list[float], name: str, sign: bool = False) -> None:
        self.fmt = _NARROW.get(name)
        self.sign = sign
        finite = [v for v in values if math.isfinite(v)]
        nonzero = [abs(v) for v in finite if v != 0]
        self.exp = False
        if nonzero:
            hi, lo = max(nonzero), min(nonzero)
            ratio = hi / lo
            if self.fmt is not None:  # numpy divides in the array's dtype
                ratio = _round_to(ratio, self.fmt)
            cutoff = _EXP_CUTOFF.get(name, _EXP_CUTOFF_FLOAT8)
            self.exp = hi >= cutoff or lo < 0.0001 or ratio > 1000.0
        self.pad_left = self.pad_right = 0
        self.precision = 0
        self.exp_size = -1
        if finite and self.exp:
            parts = [_scientific(v, self.fmt, sign) for v in finite]
            self.precision = max(len(f) for _, f, _ in parts)
            self.exp_size = max(max(len(str(abs(e))) for _, _, e in parts), 2)
            self.pad_left = max(len(i) for i, _, _ in parts)
            self.pad_right = self.exp_size + 2 + self.precision
        elif finite:
            pos = [_positional(v, self.fmt, sign) for v in finite]
            self.pad_left = max(len(i) for i, _ in pos)
            self.pad_right = max(len(f) for _, f in pos)
        if len(finite) != len(values):
            neginf = sign or any(v < 0 for v in values if math.isinf(v))
            offset = self.pad_right + 1
            self.pad_left = max(self.pad_left, 3 - offset, 3 + neginf - offset)

    def __call__(self, x: float) -> str:
        if not math.isfinite(x):
            if math.isnan(x):
                s = ("+" if self.sign else "") + "nan"
            else:
                s = ("-" if x < 0 else "+" if self.sign else "") + "inf"
            return s.rjust(self.pad_left + self.pad_right + 1)
        if self.exp:
            i, f, e = _scientific(x, self.fmt, self.sign)
            if len(f) < self.precision:  # more digits of the exact value, not zeros
                mant, _, ex = f"{abs(x):.{self.precision}e}".partition("e")
                i, f, e = i[:-1] + mant[0], mant[2:], int(ex)
            es = ("-" if e < 0 else "+") + str(abs(e)).rjust(self.exp_size, "0")
            return i.rjust(self.pad_left) + "." + f.ljust(self.precision, "0") + "e" + es
        i, f = _positional(x, self.fmt, self.sign)
        return i.rjust(self.pad_left) + "." + f.ljust(self.pad_right)


class _ComplexFormat:
    def __init__(self, values: list[complex], name: str) -> None:
        part = _COMPONENT[name]
        self.real = _FloatFormat([v.real for v in values], part)
        self.imag = _FloatFormat([v.imag for v in values], part, sign=True)

    def __call__(self, x: complex) -> str:
        r, i = self.real(x.real), self.imag(x.imag)
        n = len(i.rstrip())
        return r + i[:n] + "j" + i[n:]


def _formatter(values: list[Any], name: str, zero_d: bool) -> Callable[[Any], str]:
    if name == "bool":
        true = "True" if zero_d else " True"
        return lambda x: true if x else "False"
    if name.startswith(("int", "uint")):
        width = max((len(str(v)) for v in (max(values), min(values))), default=0) if values else 0
        return lambda x: str(x).rjust(width)
    if name in _COMPONENT:
        return _ComplexFormat(values, name)
    return _FloatFormat(values, name)


# ---------------------------------------------------------------- layout


def _shown(a: Any, summarise: bool) -> Any:
    """The shown elements of a as nested lists, _GAP where items are left out.
    A summarised array is read one element at a time (``a[i, j, k]`` makes
    no view, so no Go call: a forked child can print it too)."""
    return _shown_at(a, ()) if summarise else a.tolist()


def _shown_at(a: Any, index: tuple[int, ...]) -> Any:
    axis = len(index)
    if axis == a.ndim:
        return a[index]
    n = a.shape[axis]
    items: Any = range(n)
    if n > 2 * EDGE_ITEMS:
        items = [*range(EDGE_ITEMS), None, *range(n - EDGE_ITEMS, n)]
    return [_GAP if i is None else _shown_at(a, index + (i,)) for i in items]


def _leaves(x: Any, depth: int, out: list[Any]) -> list[Any]:
    if depth == 0:
        out.append(x)
    else:
        for y in x:
            if y is not _GAP:
                _leaves(y, depth - 1, out)
    return out


def _extend(s: str, line: str, word: str, width: int, prefix: str) -> tuple[str, str]:
    if len(line) + len(word) > width and len(line) > len(prefix):
        s += line.rstrip() + "\n"
        line = prefix
    return s, line + word


def _lay_out(x: Any, depth: int, fmt: Callable[[Any], str], prefix: str, width: int, sep: str) -> str:
    """numpy's _formatArray: rows wrapped at width, a blank line per level."""
    if depth == 0:
        return fmt(x)
    inner_prefix, inner_width = prefix + " ", width - 1
    if depth == 1:
        elem_width = width - max(len(sep.rstrip()), 1)
        s, line = "", prefix
        for k, y in enumerate(x):
            word = "..." if y is _GAP else fmt(y)
            s, line = _extend(s, line, word, elem_width, prefix)
            if k != len(x) - 1:
                line += sep
        s += line
    else:
        line_sep = sep.rstrip() + "\n" * (depth - 1)
        rows = ["..." if y is _GAP else _lay_out(y, depth - 1, fmt, inner_prefix, inner_width, sep) for y in x]
        s = line_sep.join(prefix + r for r in rows)
    return "[" + s[len(prefix) :] + "]"


def _body(a: Any, sep: str, prefix: str, width: int) -> str:
    if a.size == 0:
        return "[]"
    summarise = a.size > THRESHOLD
    shown = _shown(a, summarise)
    name = a.dtype.name
    fmt = _formatter(_leaves(shown, a.ndim, []), name, a.ndim == 0)
    return _lay_out(shown, a.ndim, fmt, " " + " " * len(prefix), width, sep)


def _printed(a: Any, sep: str, prefix: str, width: int) -> str | None:
    """_body, or None for arrays whose elements have no Python values: memory
    the CPU cannot read, packed sub-byte dtypes."""
    if a.dtype.bits < 8:
        return None
    try:
        return _body(a, sep, prefix, width)
    except BufferError:
        return None


def _dtype_repr(name: str) -> str:
    return name if name.isalnum() else repr(name)


def array_repr(a: Any) -> str:
    """repr(a): numpy's array repr, spelt Array(...)."""
    name = a.dtype.name
    prefix = "Array("
    body = _printed(a, ", ", prefix, LINE_WIDTH - 1)
    if body is None:
        extra = "" if a.device.type == 1 else f", device='{a.device}'"
        return f"Array({'[], ' if a.size == 0 else ''}shape={a.shape!r}, dtype={_dtype_repr(name)}{extra})"
    extras = []
    if (a.size == 0 and a.shape != (0,)) or a.size > THRESHOLD:
        extras.append(f"shape={a.shape!r}")
    if name not in _IMPLIED or a.size == 0:
        extras.append(f"dtype={_dtype_repr(name)}")
    if not extras:
        return prefix + body + ")"
    head = prefix + body + ","
    tail = ", ".join(extras) + ")"
    last = len(head) - (head.rfind("\n") + 1)
    spacer = "\n" + " " * len(prefix) if last + len(tail) + 1 > LINE_WIDTH else " "
    return head + spacer + tail


def _scalar_str(x: Any, name: str) -> str:
    """str() of one element, as numpy's scalars print (shortest digits)."""
    part = _COMPONENT.get(name)
    if part is not None:
        fmt = _NARROW.get(part)
        if fmt is None:
            return str(x)
        return str(complex(_float_str(x.real, fmt), _float_str(x.imag, fmt)))
    if isinstance(x, float):
        if name not in ("float16", "float32", "float64"):  # ml_dtypes' scalars: as C++ streams, 6 digits
            return format(x, "g")
        fmt = _NARROW.get(name)
        cutoff = 1e16 if name == "float64" else _EXP_CUTOFF[name]  # numpy: 10**precision, float64 as Python
        if fmt is not None and math.isfinite(x) and x != 0 and not 1e-4 <= abs(x) < cutoff:
            digits, exp = _shortest(x, fmt)  # numpy's scalar scientific form: 6.55e+04, 1e-05
            mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
            return f"{'-' if x < 0 else ''}{mant}e{exp:+03d}"
        return repr(_float_str(x, fmt))
    return str(x)


def _float_str(x: float, fmt: tuple[int, int] | None) -> float:
    # the double with x's shortest digits prints as those digits
    if fmt is None or not math.isfinite(x) or x == 0:
        return x
    digits, exp = _shortest(x, fmt)
    return math.copysign(float(f"{digits[0]}.{digits[1:]}e{exp}"), x)


def array_str(a: Any) -> str:
    """str(a): numpy's array str (space-separated, no dtype)."""
    if a.ndim == 0 and a.dtype.bits >= 8:
        try:
            return _scalar_str(a.tolist(), a.dtype.name)
        except BufferError:
            pass
    body = _printed(a, " ", "", LINE_WIDTH)
    return array_repr(a) if body is None else body


def array_format(a: Any, spec: str) -> str:
    """format(a, spec): a 0-d array formats its element; others need spec ''."""
    if not spec:
        return array_str(a)
    if a.ndim != 0:
        raise TypeError(
            f"format(): a format spec applies to 0-d arrays only, not shape {a.shape!r}; "
            f"format the elements instead: [format(x, {spec!r}) for x in a.tolist()]"
        )
    return format(a.tolist(), spec)
