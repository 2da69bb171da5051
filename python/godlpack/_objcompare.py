"""Comparisons of an Array with a list or tuple that is no array of numbers,
as numpy makes them (pyext/compare.c asks here only then): numpy turns the
sequence into an array of strings or of Python objects and compares
element-wise.

- Strings (and bytes) with or without numbers: numpy's array of strings,
  which equals no number: ``==`` all False, ``!=`` all True, an ordering a
  TypeError.
- Integers that no int64 holds, and nothing else: uint64 when they fit, as
  numpy picks; else, like anything else (None, other objects), Python
  objects, each compared with the Array's element as Python compares them.

A ragged sequence is a ValueError, as numpy's, before any of this.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

_OPS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
        ">=": operator.ge}


def _leaves(seq: Any, entry: str) -> tuple[tuple[int, ...], list[Any]]:
    """The shape of a nested list or tuple and its elements in order; a
    ragged one is numpy's ValueError."""
    shape: list[int] = []
    level: list[Any] = [seq]
    while level and all(isinstance(x, (list, tuple)) for x in level):
        n = len(level[0])
        if any(len(x) != n for x in level):
            raise ValueError(f"{entry}: inhomogeneous nested sequence (ragged); give every sub-sequence the same "
                             "length")
        shape.append(n)
        level = [y for x in level for y in x]
    if any(isinstance(x, (list, tuple)) for x in level):
        raise ValueError(f"{entry}: inhomogeneous nested sequence (ragged or mixed with scalars); give every "
                         "sub-sequence the same length")
    return tuple(shape), level


def _broadcast(a: tuple[int, ...], b: tuple[int, ...], entry: str) -> tuple[int, ...]:
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    if any(x != y and 1 not in (x, y) for x, y in zip(pa, pb)):
        raise ValueError(f"{entry}: operands could not be broadcast together with shapes {a} {b}")
    return tuple(max(x, y) if 0 not in (x, y) else 0 for x, y in zip(pa, pb))


def _flat_index(shape: tuple[int, ...], out: tuple[int, ...]) -> list[int]:
    """For each element of out (C order), the index of the element of an
    array of shape broadcast to it."""
    pad = (1,) * (len(out) - len(shape)) + shape
    strides, s = [], 1
    for d in reversed(pad):
        strides.append(s if d != 1 else 0)
        s *= d
    strides.reverse()
    return [sum(i * st for i, st in zip(idx, strides)) for idx in itertools.product(*map(range, out))]


def compare(a: Any, other: Any, op: str) -> Any:
    """The answer of a OP other, or NotImplemented (an ordering against
    strings)."""
    import godlpack as gd

    shape, leaves = _leaves(other, op)
    if leaves and all(type(x) is int and 0 <= x < 1 << 64 for x in leaves):  # beyond int64: numpy's uint64
        return _OPS[op](a, gd.asarray(other, dtype="uint64", device=a.device))
    out = _broadcast(a.shape, shape, op)
    strings = any(isinstance(x, (str, bytes)) for x in leaves) and \
        all(isinstance(x, (str, bytes, bool, int, float, complex)) for x in leaves)
    if strings:
        if op not in ("==", "!="):
            return NotImplemented
        return gd.full(out, op == "!=", dtype="bool", device=a.device)
    mine = [a.tolist()] if a.ndim == 0 else a.reshape(-1).tolist()
    fn = _OPS[op]
    got = [bool(fn(mine[i], leaves[j])) for i, j in zip(_flat_index(a.shape, out), _flat_index(shape, out))]
    return gd.asarray(got, dtype="bool", device=a.device).reshape(out)
