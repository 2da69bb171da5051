"""Pickling and copying of godlpack.Array (set on the type by ``godlpack``).

The data travels as raw bytes with the dtype key, shape, order (C or
Fortran) and read-only-ness beside them, so every dtype pickles, bfloat16
and float8 included (they have no buffer-protocol format). Protocol 5 hands
the bytes out as a ``pickle.PickleBuffer`` over the array's own memory:
out of band (``buffer_callback``) the unpickled array shares that memory.
The byte views are made in C without entering Go, so a forked child can
pickle the arrays it returns to its parent.
"""

from __future__ import annotations

from . import _native, _types

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing stays unimported at run time, as in __init__
    from typing import Any



_CPU = _types.CPU


def _bytes_of(a: _native.Array, entry: str) -> tuple[_native.Array, bool]:
    got = _native._bytes_view(a, entry)
    if got is None:  # neither C- nor Fortran-contiguous: its C-contiguous copy
        got = _native._bytes_view(a.copy(), entry)
    assert got is not None  # a C-contiguous copy always has a byte view
    return got


def _reduce_ex(self: _native.Array, protocol: int) -> tuple[Any, ...]:
    """pickle support: dtype, shape, order and read-only-ness are kept; the data is an
    out-of-band-capable PickleBuffer under protocol 5, bytes under protocols <= 4."""
    u8, fortran = _bytes_of(self, "pickle.dumps()")
    dt = self.dtype
    # a sub-byte dtype that got this far is padded (one element per byte):
    # packed ones are refused by _bytes_view
    if protocol >= 5:
        from pickle import PickleBuffer

        how: tuple[Any, ...] = (_rebuild_buffer, (PickleBuffer(u8), dt._key, self.shape, fortran, self.readonly,
                                                  dt.bits < 8))
    else:
        how = (_rebuild, (bytes(memoryview(u8)), dt._key, self.shape, fortran, self.readonly, dt.bits < 8))
    device = self.device
    if device == _CPU:
        return how
    # a device array (its memory the CPU reads, or _bytes_view refused it) comes back on its device, as
    # torch's CUDA tensors do
    return (_rebuild_on, (tuple(device), *how))


def _rebuild_on(device: tuple[int, int], rebuild: Any, args: tuple[Any, ...]) -> _native.Array:
    """The unpickler's half for an array that was on a device: rebuilt, then
    moved back to that device; where this process cannot reach it, an error
    of the same class saying so, and the way out."""
    a = rebuild(*args)
    try:
        return a.to_device(device)
    except (BufferError, ValueError, RuntimeError) as e:
        where = _types.Device(device)
        raise type(e)(f"pickle.loads(): the array was pickled on {where}, which this process cannot use ({e}); "
                      f"unpickle it where {where} exists, or pickle a.to_device(\"cpu\") instead") from None


def _rebuild(data: Any, key: int, shape: tuple[int, ...], fortran: bool, readonly: bool, padded: bool) -> _native.Array:
    """The unpickler's half of _reduce_ex under protocols <= 4: the bytes in the pickle
    become the array's own memory (one copy) when the array was writable, else the
    read-only array is a view of them."""
    m = memoryview(data)
    if m.readonly and not readonly:
        u8 = _native._full((m.nbytes,), _types._BY_DTYPE_NAME["uint8"]._key, None)
        memoryview(u8)[:] = m.cast("B")
        return _native._reinterpret(u8, key, tuple(shape), fortran, readonly, padded)
    return _rebuild_buffer(m, key, shape, fortran, readonly, padded)


def _rebuild_buffer(
    data: Any, key: int, shape: tuple[int, ...], fortran: bool, readonly: bool, padded: bool
) -> _native.Array:
    """The unpickler's half of _reduce_ex under protocol 5, as numpy's: the array is a
    view of the buffer pickle hands back (in band: a bytearray, or bytes when the array
    was read-only; out of band: the caller's buffer), read-only when either the array
    was or the buffer is (Ray's object store, a Dask frame)."""
    # The import holds a buffer export on data itself (as numpy's does), so
    # that data cannot be released or resized under the array.
    try:
        a = _native._from_buffer(data)
    except (BufferError, TypeError):  # a format the import refuses: its bytes, through a cast view
        a = _native._from_buffer(memoryview(data).cast("B"))
    if a.ndim != 1 or a.dtype != "uint8":
        view = _native._bytes_view(a, "pickle.loads()")
        if view is None:
            raise ValueError("pickle.loads(): the buffer handed back is not contiguous; pass the buffers "
                             "pickle.dumps() handed out")
        a = view[0]
    return _native._reinterpret(a, key, tuple(shape), fortran, readonly, padded)


def _copy(self: _native.Array) -> _native.Array:
    """copy.copy(a): like numpy's, a new writable C-contiguous array with a's values
    (a.copy()); it never shares memory with a."""
    return self.copy()


def _deepcopy(self: _native.Array, memo: dict | None = None) -> _native.Array:
    """copy.deepcopy(a): a.copy(), independent memory (elements are plain values)."""
    return self.copy()
