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

One more is deferred rather than hidden, since its importer does not handle its absence:
- chromadb's telemetry imports the OpenTelemetry gRPC span exporter (gRPC and protobuf)
  at its top level, to build it only when a collector endpoint is configured, which
  Aniso never does. It was about a quarter of chromadb's import, paid by the process
  that opens the vector index beside `aniso ask`'s first reply, on the same two cores.
  While chromadb's module loads, it gets a stand-in whose one name imports the real
  exporter when called (`DEFERRED`), so a configured collector still works.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Any

HIDDEN = {"sqlite_utils.db": "pandas", "httpx": "httpx._main"}
"""Module -> the module its top level imports for nothing Aniso uses."""
DEFERRED = {
    "chromadb.telemetry.opentelemetry": (
        "opentelemetry.exporter.otlp.proto.grpc.trace_exporter",
        "OTLPSpanExporter",
    )
}
"""Module -> (the module its top level imports, the one name it takes from it, only to
call it in a case Aniso never configures)."""
_lock = threading.Lock()


def _stand_in(module: str, name: str) -> ModuleType:
    """A module whose `name` imports the real `module` when called and calls its `name`."""
    stand_in = ModuleType(module)

    def call_the_real_one(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    setattr(stand_in, name, call_the_real_one)
    return stand_in


class _Loader(importlib.abc.Loader):
    """The real loader, with `hidden` replaced while the module's top level runs: by
    None (an import of it fails) or by a `_stand_in`."""

    def __init__(self, real: Any, hidden: str, replacement: ModuleType | None = None) -> None:
        self.real = real
        self.hidden = hidden
        self.replacement = replacement

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ...: the real one's
        return getattr(self.real, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.real.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        with _lock:
            hide = self.hidden not in sys.modules
            if hide:
                # None: an import of it raises ImportError
                sys.modules[self.hidden] = self.replacement  # type: ignore[assignment]
        try:
            self.real.exec_module(module)
        finally:
            if hide:
                with _lock:
                    if sys.modules.get(self.hidden, ...) is self.replacement:
                        del sys.modules[self.hidden]


class _Finder(importlib.abc.MetaPathFinder):
    """Finds each module of `HIDDEN` and `DEFERRED` as the path finder does, with
    `_Loader` around its loader. It stays in `sys.meta_path` (one dict lookup per
    import): removing it while another thread's import walked that list made the walk
    skip the next finder, and that import failed."""

    def find_spec(
        self, name: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        hidden = HIDDEN.get(name)
        deferred = DEFERRED.get(name)
        if hidden is None and deferred is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return spec
        if deferred is not None:
            hidden = deferred[0]
            replacement: ModuleType | None = _stand_in(*deferred)
        else:
            replacement = None
        if hidden is None or hidden in sys.modules:
            return spec
        spec.loader = _Loader(spec.loader, hidden, replacement)
        return spec


def install() -> None:
    """Import the modules of `HIDDEN` and `DEFERRED` lean from now on (idempotent;
    before they load)."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
