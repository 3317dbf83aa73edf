"""Two libraries are imported without a part Aniso never uses.

Why: each of these cost CPU before every `aniso ask` could answer, for nothing Aniso
runs:
- sqlite-utils imports pandas whenever it is installed (another package in the
  environment may have brought it), only to map `pandas.Timestamp` to a column type.
  Aniso never stores pandas objects, and the import cost 0.3 s of CPU (0.6 s of wall
  time on a busy machine) before the message could be stored.
- httpx imports its command-line client (`httpx._main`: click, rich, pygments) in its
  top level, inside `try: ... except ImportError`, for the `httpx` console script.
  chromadb imports httpx for its remote clients; Aniso opens only local indexes. That
  was 0.05-0.1 s of CPU before recall.

So while the importing module runs its top level, importing the hidden one fails as if
it were absent, a case each library handles (sqlite-utils maps no pandas type; httpx
defines a `main` that explains the client is missing). Any other module, before or
after, gets the hidden module as usual (nothing on Aniso's paths imports it while the
library loads); a process that already imported it is left alone.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Any

HIDDEN = {"sqlite_utils.db": "pandas", "httpx": "httpx._main"}
"""Module -> the module its top level imports for nothing Aniso uses."""
_lock = threading.Lock()


class _Loader(importlib.abc.Loader):
    """The real loader, with `hidden` hidden while the module's top level runs."""

    def __init__(self, real: Any, hidden: str) -> None:
        self.real = real
        self.hidden = hidden

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ...: the real one's
        return getattr(self.real, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.real.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        with _lock:
            hide = self.hidden not in sys.modules
            if hide:
                sys.modules[self.hidden] = None  # type: ignore[assignment] # import -> ImportError
        try:
            self.real.exec_module(module)
        finally:
            if hide:
                with _lock:
                    if sys.modules.get(self.hidden, ...) is None:
                        del sys.modules[self.hidden]


class _Finder(importlib.abc.MetaPathFinder):
    """Finds each module of `HIDDEN` as the path finder does, with `_Loader` around its
    loader. It stays in `sys.meta_path` (one dict lookup per import): removing it while
    another thread's import walked that list made the walk skip the next finder, and
    that import failed."""

    def find_spec(
        self, name: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        hidden = HIDDEN.get(name)
        if hidden is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or hidden in sys.modules:
            return spec
        spec.loader = _Loader(spec.loader, hidden)
        return spec


def install() -> None:
    """Import the modules of `HIDDEN` lean from now on (idempotent; before they load)."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
