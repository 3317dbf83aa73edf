"""sqlite-utils is imported without pandas.

Why: sqlite-utils imports pandas whenever it is installed (another package in the
environment may have brought it), only to map `pandas.Timestamp` to a column type.
Aniso never stores pandas objects, and the import cost 0.3 s of CPU (0.6 s of wall
time on a busy machine) before every `aniso ask` could store its message. So while
`sqlite_utils.db` runs its top level, `import pandas` fails there as if pandas were
absent, which is a case sqlite-utils handles. Any other module, before or after, gets
pandas as usual (nothing on Aniso's paths imports pandas while sqlite-utils loads); a
process that already imported pandas is left alone.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Any

TARGET = "sqlite_utils.db"
HIDDEN = "pandas"
_lock = threading.Lock()


class _Loader(importlib.abc.Loader):
    """The real loader, with pandas hidden while the module's top level runs."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ...: the real one's
        return getattr(self.real, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.real.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        with _lock:
            hide = HIDDEN not in sys.modules
            if hide:
                sys.modules[HIDDEN] = None  # type: ignore[assignment] # import -> ImportError
        try:
            self.real.exec_module(module)
        finally:
            if hide:
                with _lock:
                    if sys.modules.get(HIDDEN, ...) is None:
                        del sys.modules[HIDDEN]


class _Finder(importlib.abc.MetaPathFinder):
    """Finds `sqlite_utils.db` as the path finder does, with `_Loader` around its
    loader. It stays in `sys.meta_path` (one string comparison per import): removing
    it while another thread's import walks that list made the walk skip the next
    finder, and that import failed."""

    def find_spec(
        self, name: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or HIDDEN in sys.modules:
            return spec
        spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Import sqlite-utils without pandas from now on (idempotent; before it is imported)."""
    if TARGET in sys.modules or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
