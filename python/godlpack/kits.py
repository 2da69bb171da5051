"""Kit packages: Python packages whose functions are Go functions, composed
with godlpack and every other installed kit into one Go runtime (a process
can hold one). A kit's ``__init__.py`` is::

    from godlpack.kits import bind

    bind(__name__, globals())

and its ``setup.py`` uses :func:`godlpack.build.go_kit`. See docs/go.md.
"""

from ._kits import bind, cache_dir, markers

__all__ = ["bind", "cache_dir", "markers"]
