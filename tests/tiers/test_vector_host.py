"""The vector index served from a child process (`vector_host`): the same behaviour as
the index opened in process, the same one-owner rule, and no hang or orphan when either
side goes away."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from vector_cases import MINUS_X, X, check_round_trip, fill, open_folder

from aniso.core.errors import StoreError
from aniso.tiers.index import vector_host


@pytest.fixture
def hosted(tmp_path: Path):
    index = vector_host.start(tmp_path / "vectors")
    yield index
    index.close()


def test_round_trip_matches_the_in_process_index(hosted: vector_host.HostedIndex) -> None:
    warnings: list[str] = []
    assert hosted.open(on_warning=warnings.append) is hosted
    assert (hosted.rebuilt, warnings) == (False, [])
    check_round_trip(hosted)


def test_what_the_child_wrote_is_on_disk_after_close(tmp_path: Path) -> None:
    hosted = vector_host.start(tmp_path / "vectors")
    fill(hosted)
    hosted.close()  # waits for the child to leave the folder

    again = open_folder(tmp_path / "vectors")  # would raise if the folder were still claimed
    try:
        assert again.ids() == {"x", "diag", "y", "-x"}
        assert again.query(np.array(MINUS_X), 1)[0][0] == "-x"
    finally:
        again.close()


def test_misuse_is_a_value_error_and_the_child_goes_on(hosted: vector_host.HostedIndex) -> None:
    with pytest.raises(ValueError, match="one vector row"):
        hosted.upsert(["a", "b"], np.array([X]), [{}, {}])
    with pytest.raises(ValueError, match="non-zero"):
        hosted.upsert(["a"], np.zeros((1, 3)), [{}])
    fill(hosted)
    assert hosted.count() == 4


def test_a_folder_another_process_owns_is_a_store_error(tmp_path: Path) -> None:
    owner = open_folder(tmp_path / "vectors")
    hosted = vector_host.start(tmp_path / "vectors")
    try:
        with pytest.raises(StoreError, match="in use by another Aniso process"):
            hosted.open()
        with pytest.raises(StoreError, match="in use by another Aniso process"):
            hosted.count()  # it stays failed, with the same reason, and never hangs
    finally:
        hosted.close()
        owner.close()


def test_a_broken_folder_is_rebuilt_and_said(tmp_path: Path) -> None:
    folder = tmp_path / "vectors"
    first = open_folder(folder)
    fill(first)
    first.close()
    (folder / "chroma.sqlite3").write_bytes(os.urandom(64 * 1024))

    hosted = vector_host.start(folder)
    try:
        warnings: list[str] = []
        hosted.open(on_warning=warnings.append)
        assert hosted.rebuilt is True
        assert len(warnings) == 1 and "rebuilding it from memory" in warnings[0]
        assert hosted.count() == 0
    finally:
        hosted.close()


def test_a_child_that_dies_is_a_store_error(hosted: vector_host.HostedIndex) -> None:
    fill(hosted)
    process = hosted._process
    assert process is not None
    process.kill()
    process.wait()
    with pytest.raises(StoreError, match="vector index process ended"):
        hosted.query(np.array(X), 1)
    hosted.close()  # closing a dead child is quiet


def test_ctrl_c_is_left_to_the_parent(hosted: vector_host.HostedIndex) -> None:
    fill(hosted)
    process = hosted._process
    assert process is not None
    os.kill(process.pid, signal.SIGINT)
    assert hosted.count() == 4  # still serving


def test_a_parent_that_exits_leaves_no_child_and_frees_the_folder(tmp_path: Path) -> None:
    """No close, no atexit (`os._exit`): the child sees its parent gone and leaves."""
    folder = tmp_path / "vectors"
    script = textwrap.dedent(
        f"""
        import os, sys
        import numpy as np
        from aniso.tiers.index import vector_host
        hosted = vector_host.start({str(folder)!r})
        hosted.upsert(["x"], np.array([[1.0, 0.0, 0.0]]), [{{}}])
        print(hosted._process.pid, flush=True)
        os._exit(0)
        """
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    child = int(done.stdout.strip())
    _wait_gone(child)
    again = open_folder(folder)
    try:
        assert again.ids() == {"x"}
    finally:
        again.close()


def _wait_gone(pid: int, timeout: float = 60.0) -> None:
    """The orphaned child is reaped by init; poll its /proc entry (no sleep-based guess)."""
    import time

    deadline = time.monotonic() + timeout
    while Path(f"/proc/{pid}").exists() and _state(pid) != "Z":
        if time.monotonic() > deadline:
            pytest.fail(f"the vector index process {pid} outlived its parent")
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "gone"
