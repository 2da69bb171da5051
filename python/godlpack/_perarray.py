"""A value made once per Array and kept while that Array lives (dpctl's
Memory of a oneAPI array, joblib's numpy view), imported by its first use."""

from __future__ import annotations

import weakref

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Callable


def kept(store: dict[int, tuple[Any, Any]], a: Any, make: Callable[[Any], Any]) -> Any:
    """make(a), made on the first call for a and returned again after; store
    (id(a) -> (a weak reference, the value)) drops the entry when a dies.
    The value must not refer to a, or a never dies."""
    key = id(a)
    got = store.get(key)
    if got is not None and got[0]() is a:
        return got[1]

    def forget(_ref: Any) -> None:
        store.pop(key, None)

    value = make(a)
    # setdefault: of two threads making one at once, both return the first
    return store.setdefault(key, (weakref.ref(a, forget), value))[1]
