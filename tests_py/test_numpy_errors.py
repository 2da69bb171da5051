"""Constructors refuse what numpy refuses with numpy's exception class (issue
35, item 7): a shape whose size overflows is numpy's "array is too big"
ValueError, an arange of no computable length its ValueError, each message
starting with the entry point and ending with the way out."""

import math

import pytest

from _helpers import need, requires

import godlpack as gd

CASES = [
    ("empty", lambda m: m.empty((1 << 62,))),
    ("zeros", lambda m: m.zeros((1 << 40, 1 << 40))),
    ("ones", lambda m: m.ones((1 << 61, 4))),
    ("full", lambda m: m.full((1 << 61,), 1.0)),
    ("arange", lambda m: m.arange(0, 1e30)),
    ("arange", lambda m: m.arange(0, 2**64)),
    ("arange", lambda m: m.arange(0, math.inf)),
    ("arange", lambda m: m.arange(0, math.nan)),
]


@requires("numpy")
@pytest.mark.parametrize("entry, make", CASES)
def test_what_numpy_refuses_is_refused_with_numpys_class(entry, make):
    np = need("numpy")
    with pytest.raises(ValueError):
        make(np)
    with pytest.raises(ValueError, match=rf"^{entry}\(\): .*; (ask for fewer elements|narrow the range.*|pass finite bounds)$"):
        make(gd)
