"""Run the real `aniso` CLI in a subprocess, optionally with guards installed first.

`python tests/cli_runner.py [--fake-llm REPLY] [--socket-log FILE] -- ARGS...`
- `--fake-llm` registers the scripted provider `fake/...` (replies with REPLY);
- `--socket-log` records every non-loopback connection attempt to FILE and blocks it,
  which is how tests prove `aniso ask` stays offline.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

LOOPBACK = ("127.", "::1", "localhost")


def _guard_sockets(log: Path) -> None:
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def record(target: object) -> None:
        with log.open("a", encoding="utf-8") as handle:
            handle.write(f"{target!r}\n")

    def connect(self: socket.socket, address: object) -> None:
        host = address[0] if isinstance(address, tuple) else str(address)
        if self.family == socket.AF_UNIX or str(host).startswith(LOOPBACK):
            return real_connect(self, address)
        record(address)
        raise OSError("network access blocked by the test guard")

    def getaddrinfo(host: object, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if host is None or str(host).startswith(LOOPBACK):
            return real_getaddrinfo(host, *args, **kwargs)
        record(("getaddrinfo", host))
        raise socket.gaierror("name resolution blocked by the test guard")

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]


def main() -> None:
    args = sys.argv[1:]
    split = args.index("--")
    options, cli_args = args[:split], args[split + 1 :]
    if "--socket-log" in options:
        _guard_sockets(Path(options[options.index("--socket-log") + 1]))
    if "--fake-llm" in options:
        sys.path.insert(0, str(Path(__file__).parent))
        from fakes import ScriptedLLM, install

        install(ScriptedLLM(default=options[options.index("--fake-llm") + 1]))
    from aniso.cli import main as aniso_main

    sys.argv = ["aniso", *cli_args]
    aniso_main()


if __name__ == "__main__":
    main()
