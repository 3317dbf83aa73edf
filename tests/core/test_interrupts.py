"""`interrupts_held`: a signal during the block arrives after it, never inside it."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from aniso.core.interrupts import interrupts_held


def test_ctrl_c_inside_the_block_is_raised_once_the_block_is_done() -> None:
    steps: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_held():
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("after the signal")  # not cut here
        steps.append("after the block")  # never reached
    assert steps == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_goes_to_the_handler_that_was_in_place() -> None:
    seen: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        with interrupts_held():
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            assert seen == []
        assert seen == [signal.SIGTERM]  # delivered once, after the block
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_quiet_block_changes_nothing() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with interrupts_held():
        pass
    assert signal.getsignal(signal.SIGTERM) is before


def test_off_the_main_thread_the_block_just_runs() -> None:
    ran: list[bool] = []

    def work() -> None:
        with interrupts_held():
            ran.append(True)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert ran == [True]
