"""Scenario units in worker processes (`aniso scenarios run --jobs N`).

Why processes and the spawn start method: a scenario's work is CPU-bound Python,
llama.cpp and the encoder, so threads would share one interpreter lock; and neither
llama.cpp nor chromadb is safe to fork once loaded, so each worker starts as a fresh
interpreter. Each worker builds its own `Player` once (gateway, judge, encoder cache)
and plays whole units; every unit already plays in its own data dir. Outcomes are put
back in the units' order, so the report is the serial run's, whatever finished first.
"""

from __future__ import annotations

import multiprocessing
import shutil
import signal
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from aniso.core.interrupts import interrupts_held
from aniso.core.settings import Settings
from aniso.scenarios.report import Outcome
from aniso.scenarios.runner import Player, Unit, unit_label
from aniso.scenarios.suite import ScenarioError, Suite
from aniso.scenarios.variants import RecordingGateway

_player: Player | None = None
"""The worker's player, built once by `_start` (one per process, never shared)."""


def _start(
    suites: Sequence[Suite],
    settings: Settings,
    replies: bool,
    judge_model: str | None,
    scratch_root: Path,
) -> None:
    global _player
    # Ctrl-C is the parent's to handle (it stops the workers): a worker interrupted
    # while it waits for work would print a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    judge = RecordingGateway(settings, model=judge_model) if judge_model else None
    _player = Player.create(
        suites, settings, judge=judge, replies=replies, scratch_root=scratch_root
    )


def _play(unit: Unit) -> Outcome:
    assert _player is not None, "the worker was not started"
    return _player.play(unit)


def play_in_processes(
    units: Sequence[Unit],
    suites: Sequence[Suite],
    settings: Settings,
    *,
    jobs: int,
    replies: bool,
    judge_model: str | None,
    on_done: Callable[[str], None] | None = None,
) -> list[Outcome]:
    """Every unit's outcome, in the order of `units`; `on_done` as each one finishes.

    The first failure stops the run: units not started are cancelled and the error
    is raised as the serial run would raise it. The workers' data dirs sit in one
    scratch folder of this process, deleted at the end whatever happened to them:
    `history` keeps what the user said verbatim there."""
    scratch_root: Path | None = None
    pool: ProcessPoolExecutor | None = None
    outcomes: list[Outcome | None] = [None] * len(units)
    try:
        # Making the folder and starting the workers (on submit) must not be cut in
        # half, or a folder or a worker escapes the cleanup below.
        with interrupts_held():
            scratch_root = Path(tempfile.mkdtemp(prefix="aniso-scenarios-"))
            pool = ProcessPoolExecutor(
                max_workers=min(jobs, len(units)),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start,
                initargs=(list(suites), settings, replies, judge_model, scratch_root),
            )
            pending: dict[Future[Outcome], int] = {
                pool.submit(_play, unit): index for index, unit in enumerate(units)
            }
        for future in as_completed(pending):
            index = pending[future]
            outcomes[index] = future.result()
            if on_done is not None:
                on_done(unit_label(suites, units[index]))
    except BrokenProcessPool:
        raise ScenarioError(
            "a scenario worker process died (out of memory or killed); run again with fewer --jobs"
        ) from None
    except BaseException:
        if pool is not None:
            with interrupts_held():
                _stop_workers(pool)
        raise
    finally:
        with interrupts_held():
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
            if scratch_root is not None:
                shutil.rmtree(scratch_root, ignore_errors=True)
    return [outcome for outcome in outcomes if outcome is not None]


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the workers now instead of after their current unit (which, with replies,
    can take minutes). The executor has no public way to do it before Python 3.14."""
    processes = list(getattr(pool, "_processes", {}).values())
    for process in processes:
        process.terminate()
    for process in processes:
        process.join()
