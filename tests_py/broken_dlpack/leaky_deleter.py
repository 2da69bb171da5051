"""Breaks P6.destructor and P7.thread: the array is never freed (the producer
keeps a reference to it for every export, which no deleter drops)."""

from ._base import CHECK, namespace

__dlpack_check__ = CHECK
_kept = []


def _answer(a, kw):
    return a.__dlpack__(**kw)


asarray, Array = namespace(_answer)


def _leaky(self, **kw):
    _kept.append(self)
    return self.answer(self._a, kw)


Array.__dlpack__ = _leaky
