"""A real Chroma server for tests, on 127.0.0.1 only, started and stopped by a fixture.

Tests that use it must carry `@pytest.mark.allow_hosts(["127.0.0.1"])`: the suite
runs with sockets disabled, and that marker (pytest-socket) lets this test, and the
fixture set up for it, open sockets that connect to loopback and nowhere else.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

HOST = "127.0.0.1"
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0


def _chroma_command() -> list[str]:
    """The `chroma` CLI of the interpreter running the tests, not whatever is on PATH."""
    beside = Path(sys.executable).with_name("chroma")
    return [str(beside)] if beside.exists() else [shutil.which("chroma") or "chroma"]


def free_port() -> int:
    """A port nobody listens on now (the server may still lose a race for it; rare)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _answers(url: str) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy for loopback
    try:
        with opener.open(f"{url}/api/v2/heartbeat", timeout=1) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


class ChromaServer:
    """One `chroma run` subprocess; `stop()` may be called early (then it is a no-op)."""

    def __init__(self, data: Path, log: Path, *, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://{HOST}:{self.port}"
        self._log_path = log
        # The Rust server sends no product telemetry and exports traces only when its
        # config asks; this flag is for any Python part of chromadb it may start.
        env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
        env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
        with log.open("wb") as sink:
            self._process = subprocess.Popen(
                [*_chroma_command(), "run", "--host", HOST, "--port", str(self.port)]
                + ["--path", str(data)],
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"chroma server exited early: {self._log_tail()}")
            if _answers(self.url):
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"chroma server did not answer in {timeout:.0f} s: {self._log_tail()}")

    def stop(self) -> None:
        if self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(STOP_TIMEOUT_S)

    def _log_tail(self) -> str:
        text = self._log_path.read_text(errors="replace") if self._log_path.exists() else ""
        return text[-2000:]


@contextmanager
def running_chroma(base: Path, *, port: int | None = None) -> Iterator[ChromaServer]:
    """Start a server with its data under `base` (on `port`, else a free one); it is
    stopped however the block ends."""
    base.mkdir(parents=True, exist_ok=True)
    server = ChromaServer(base / "data", base / "server.log", port=port)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """One server shared by a module's tests; each test should use its own collection."""
    with running_chroma(tmp_path_factory.mktemp("chroma-server")) as server:
        yield server
