"""What Dask, distributed and joblib need to treat a godlpack.Array as numpy's.

- ``dask.sizeof``: the bytes an Array holds (Dask's memory manager spills and
  pauses by it).
- ``dask.array.from_array``: an Array has no ``__array_function__``, so Dask
  already turns its chunks into numpy arrays; the collection's ``_meta`` (what
  Dask runs each operation on first, and where ``d.dtype`` comes from) is then
  numpy's empty array of its dtype too, so ``da.from_array(a)`` is
  ``da.from_array(ndarray)`` down to the meta.
- distributed's "dask" serializer family: a small header and the array's
  bytes as one zero-copy frame, as distributed does for numpy (its "pickle"
  family would carry the data in band over links that use protocol 4).
- joblib's loky pickler: an Array travels as the numpy view of its memory,
  the same view for every task, so joblib memory-maps a large one once,
  exactly as it does a numpy argument.

- torch's ``default_collate`` (a DataLoader's default): a batch of Arrays
  becomes the stacked tensor, as a batch of numpy arrays does.

Ray needs nothing here: it pickles with protocol 5 and hands the buffers
back read-only from its object store, which ``_pickle`` turns into a
read-only Array over them (zero-copy), as numpy does.

None of these libraries is imported by ``import godlpack``. Each registration
runs when its library's module has been imported: at once if it already has,
else from a finder on ``sys.meta_path`` that watches for that module and
registers right after it executes. An entry point (``dask.sizeof``) was not
used: Dask loads those at ``import dask``, which would import godlpack, and
start its Go runtime, in every process that imports Dask.
"""

from __future__ import annotations

import sys

from . import _native, _ndarray, _pickle, _types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable

Array = _native.Array


# ---------------------------------------------------------------- dask.sizeof


def _sizeof(a: Any) -> int:
    """Bytes of memory the array spans, as Dask's sizeof of numpy: a broadcast
    (stride 0) axis counts once."""
    n = a.itemsize
    for d, s in zip(a.shape, a.strides):
        if s != 0:
            n *= d
    return int(n)


def _register_sizeof(mod: Any) -> None:
    mod.sizeof.register(Array)(_sizeof)


# ---------------------------------------------------------------- dask.array


def _numpy_meta(x: Any, kwargs: dict) -> None:
    """Gives from_array numpy's meta for an Array whose chunks Dask makes
    numpy arrays (asarray None or True), unless the caller chose a meta."""
    if type(x) is Array and kwargs.get("meta") is None and kwargs.get("asarray") is not False:
        try:
            kwargs["meta"] = x[(slice(0, 0),) * x.ndim].__array__()
        except (ImportError, TypeError, BufferError):  # no numpy twin (ml_dtypes missing, device memory): Dask's way
            pass


def _register_dask_array(mod: Any) -> None:
    original = mod.from_array

    def from_array(x: Any, *args: Any, **kwargs: Any) -> Any:
        _numpy_meta(x, kwargs)
        return original(x, *args, **kwargs)

    import functools  # Dask has imported it

    functools.update_wrapper(from_array, original)
    # dask.array re-exports it: when dask.array.core was imported before godlpack, that name is bound already
    for m in (mod, sys.modules.get("dask.array")):
        if m is not None and getattr(m, "from_array", None) is original:
            setattr(m, "from_array", from_array)  # noqa: B010


# ---------------------------------------------------------------- distributed


def _dask_serialize(a: Any) -> tuple[dict, list]:
    """distributed's "dask" family: (header, [the bytes]); a view of the array's
    memory when it is C- or Fortran-contiguous, else of a C-contiguous copy."""
    u8, fortran = _pickle._bytes_of(a, "distributed serialize")
    dt = a.dtype
    header = {"dtype": dt._key, "shape": list(a.shape), "fortran": fortran, "readonly": a.readonly,
              "padded": dt.bits < 8}
    return header, [memoryview(u8)]


def _dask_deserialize(header: dict, frames: list) -> Any:
    """The array over the received frame; a writable array received in a
    read-only frame gets memory of its own, as distributed does for numpy."""
    return _pickle._rebuild(frames[0], header["dtype"], tuple(header["shape"]), header["fortran"],
                            header["readonly"], header["padded"])


def _register_distributed(mod: Any) -> None:
    mod.dask_serialize.register(Array)(_dask_serialize)
    mod.dask_deserialize.register(Array)(_dask_deserialize)


# ---------------------------------------------------------------- joblib (loky)


def _from_numpy(n: Any, key: int) -> Any:
    """An Array over numpy's array n (a memory map from joblib), zero-copy; key
    is the godlpack dtype, which n holds as its ml_dtypes twin for bfloat16 and
    float8 (numpy's DLPack export knows only its own dtypes)."""
    if _ndarray.is_ml_dtypes(n):
        a = _ndarray.from_ml_dtypes(n, "pickle.loads()")
        return a if a.dtype._key == key else _native._retype(a, key, "pickle.loads()")
    return _native._asarray_dlpack(n, None, False)


# id(Array) -> (a weak reference to it, its numpy view), while the Array
# lives. joblib writes an array to a memory map once per ndarray object it has
# seen, so every task given one Array must get the same ndarray. The view does
# not refer to the Array (its base is the DLPack capsule, which holds the
# memory's owner), so keeping it here keeps neither alive.
_VIEWS: dict[int, tuple[Any, Any]] = {}


def _numpy_view(a: Any) -> Any:
    from ._perarray import kept

    return kept(_VIEWS, a, lambda x: x.__array__())


def _loky_reduce(a: Any) -> tuple[Any, ...]:
    try:
        n = _numpy_view(a)
    except (ImportError, TypeError):  # no numpy layout or no numpy: godlpack's own pickling
        return a.__reduce_ex__(5)
    return (_from_numpy, (n, a.dtype._key))


def _register_loky(mod: Any) -> None:
    mod.register(Array, _loky_reduce)


# ---------------------------------------------------------------- torch's collate


def _collate_arrays(batch: list, *, collate_fn_map: dict | None = None) -> Any:
    """default_collate of Arrays: the tensors over them (torch.from_dlpack,
    zero-copy), collated as tensors are (stacked; into shared memory in a
    DataLoader worker), as torch collates numpy arrays."""
    import torch
    from torch.utils.data._utils.collate import collate

    return collate([torch.from_dlpack(a) for a in batch], collate_fn_map=collate_fn_map)


def _register_collate(mod: Any) -> None:
    mod.default_collate_fn_map[Array] = _collate_arrays


# ---------------------------------------------------------------- enum


def _build_device_types(mod: Any) -> None:
    """Not an engine: godlpack.DLDeviceType, deferred while enum is not
    imported (_types.device_types), built once something imports it."""
    _types.device_types()


# ---------------------------------------------------------------- the hooks

# module name -> registration, run once right after that module executes
_HOOKS: dict[str, Callable[[Any], None]] = {
    "dask.sizeof": _register_sizeof,
    "dask.array.core": _register_dask_array,
    "distributed.protocol.serialize": _register_distributed,
    "joblib.externals.loky.backend.reduction": _register_loky,
    "torch.utils.data._utils.collate": _register_collate,
    "enum": _build_device_types,
}
_PENDING: dict = {}


def _run(name: str, module: Any) -> None:
    hook = _PENDING.pop(name, None)
    if hook is None:
        return
    if not _PENDING and _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    try:
        hook(module)
    except Exception as e:  # a library whose API moved: godlpack still imports, and says so
        import warnings

        warnings.warn(f"godlpack: could not register with {name}: {e!r}", RuntimeWarning, stacklevel=2)


class _AfterImport:
    """A sys.meta_path finder: for a watched module, the spec the other finders
    give, with its loader's exec_module followed by the registration."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in _PENDING:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None or isinstance(loader, type):  # a class serves many modules: leave it alone
            return spec

        def exec_then_register(module: Any) -> None:
            exec_module(module)
            _run(name, module)

        loader.exec_module = exec_then_register  # this loader serves this one module
        return spec


_FINDER = _AfterImport()


def install() -> None:
    """Registers with the libraries already imported; watches for the others."""
    _PENDING.update(_HOOKS)
    for name in list(_PENDING):
        mod = sys.modules.get(name)
        if mod is not None:
            _run(name, mod)
    if _PENDING and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)

