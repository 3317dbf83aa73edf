"""The chat pane: streamed Markdown replies, input history, cancel, errors in the app."""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

import pytest
from fakes import ScriptedLLM
from tui_helpers import SIZE, make_app, say, settle, transcript, wait_until

from aniso.core.clock import SimulatedClock
from aniso.core.errors import ModelError, StoreError
from aniso.tui.chat import ChatMessage, Composer
from aniso.tui.status import StatusBar

pytestmark = pytest.mark.anyio
REPLY = "Here are your options:\n\n| day | plan |\n|---|---|\n| Mon | rest |\n\n- one\n- two"


async def test_a_message_gets_a_streamed_markdown_reply(
    llm: ScriptedLLM, clock: SimulatedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm.reply(REPLY)
    pieces: list[str] = []
    original = ChatMessage.append

    async def spy(self: ChatMessage, piece: str) -> None:
        pieces.append(piece)
        await original(self, piece)

    monkeypatch.setattr(ChatMessage, "append", spy)
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "plan my week")
        assert transcript(app) == [("user", "plan my week"), ("assistant", REPLY)]
        assert len(pieces) > 3 and "".join(pieces) == REPLY, "the reply arrives in pieces"
        reply = app.query(ChatMessage).last()
        assert reply.body.query("MarkdownTable"), "tables render as Markdown tables"
        assert reply.body.query("MarkdownBulletList"), "lists render as Markdown lists"
    (call,) = llm.calls
    assert call.stream and call.messages[-1] == {"role": "user", "content": "plan my week"}
    stored = app.backend.services().db.execute("SELECT user_text, reply FROM episodes").fetchall()
    assert stored == [("plan my week", REPLY)]


async def test_composer_keeps_history_and_accepts_several_lines(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "first")
        await say(pilot, "second")
        composer = app.query_one(Composer)
        await pilot.press("up")
        assert composer.text == "second"
        await pilot.press("up")
        assert composer.text == "first"
        await pilot.press("down", "down")
        assert composer.text == ""
        await pilot.press("l", "i", "n", "e", "ctrl+j", "t", "w", "o", "enter")
        await wait_until(pilot, lambda: len(transcript(app)) == 6)
        await settle(pilot)
        assert transcript(app)[4] == ("user", "line\ntwo")
    assert [c.messages[-1]["content"] for c in llm.calls] == ["first", "second", "line\ntwo"]


async def test_escape_cancels_a_reply_and_the_app_stays_responsive(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    app = make_app(clock)
    started = threading.Event()
    seen_cancel: list[bool] = []

    def slow_send(text, *, on_token=None, cancelled=None):  # type: ignore[no-untyped-def]
        from aniso.chat import Reply
        from aniso.tui.backend import Turn

        on_token("thinking")
        started.set()
        while not cancelled():
            threading.Event().wait(0.01)
        seen_cancel.append(True)
        return Turn(reply=Reply(text="thinking", episode_id=1))

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.backend.send = slow_send  # type: ignore[method-assign]
        await pilot.press("h", "i", "enter")
        await wait_until(pilot, started.is_set)
        assert app.generating
        await pilot.press("f2")  # the UI still answers keys while the model generates
        assert not app.query_one("#memory").display
        await pilot.press("f2", "escape")
        await wait_until(pilot, lambda: not app.generating)
        await settle(pilot)
        assert seen_cancel == [True]
        assert transcript(app)[-1] == ("notice", "reply stopped")


async def test_a_failing_llm_is_shown_in_the_app(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    llm.reply(RuntimeError("connection refused"), RuntimeError("connection refused"))
    llm.reply(RuntimeError("connection refused"))
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "are you there?")
        (user, error) = transcript(app)
        assert user == ("user", "are you there?")
        assert error[0] == "error" and "your message was stored" in error[1]
        assert "connection refused" in error[1]
        assert app.is_running
        llm.reply("Back again.")
        await say(pilot, "and now?")
        assert transcript(app)[-1] == ("assistant", "Back again.")
    rows = app.backend.services().db.execute("SELECT user_text, status FROM episodes").fetchall()
    assert rows == [("are you there?", "failed"), ("and now?", "answered")]


@pytest.mark.parametrize(
    "error",
    [StoreError("the database is busy or locked; try again"), OSError(28, "No space left")],
)
async def test_store_failures_are_shown_not_raised(
    llm: ScriptedLLM, clock: SimulatedClock, error: Exception
) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        def broken(*args: object, **kwargs: object) -> None:
            raise error

        app.backend.send = broken  # type: ignore[method-assign]
        await say(pilot, "hello")
        kind, text = transcript(app)[-1]
        assert kind == "error" and text.startswith("chat: ")
        assert ("locked" in text) if isinstance(error, StoreError) else ("No space left" in text)
        assert not app.generating and app.is_running


async def test_status_bar_shows_model_data_dir_compaction_and_redaction(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "my card is 4111 1111 1111 1111, keep it")
        status = str(app.query_one(StatusBar).render())
        assert "fake/x remote" in status
        assert str(app.backend.settings.data_dir) in status
        assert "compaction 2026-01-06 03:30 UTC" in status
        assert "redacted: credit card" in status
        notices = [text for kind, text in transcript(app) if kind == "notice"]
        assert notices == ["I did not store the card number you sent."]
        await say(pilot, "thanks")
        assert "redacted" not in str(app.query_one(StatusBar).render())
    assert "4111" not in llm.calls[0].messages[-1]["content"] or app.backend.is_local


async def test_temporary_chat_neither_reads_nor_writes_memory(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "I keep bees on my balcony")
        await pilot.press("f4")
        await settle(pilot)
        assert "TEMPORARY" in str(app.query_one(StatusBar).render())
        await say(pilot, "what do I keep on my balcony? bees?")
        await pilot.press("f4")
        await settle(pilot)
        assert "TEMPORARY" not in str(app.query_one(StatusBar).render())
    db = app.backend.services().db
    assert [r[0] for r in db.execute("SELECT user_text FROM episodes")] == [
        "I keep bees on my balcony"
    ]
    assert "bees on my balcony" not in llm.calls[1].messages[0]["content"]


async def test_switching_the_model(llm: ScriptedLLM, clock: SimulatedClock) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.run_action("switch_model")
        await pilot.pause()
        app.screen.query_one("Input").value = "fake/other"
        await pilot.press("enter")
        await settle(pilot)
        assert app.backend.model == "fake/other"
        assert "fake/other remote" in str(app.query_one(StatusBar).render())
        await say(pilot, "hello")
    assert llm.calls[-1].model.endswith("other")


async def test_an_unknown_model_is_refused_in_the_app(clock: SimulatedClock) -> None:
    app = make_app(clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.run_action("switch_model")
        await pilot.pause()
        app.screen.query_one("Input").value = "no-such-provider/zzz"
        await pilot.press("enter")
        await settle(pilot)
        assert app.backend.model == "fake/x"
        kind, text = transcript(app)[-1]
        assert kind == "error" and "unknown model 'no-such-provider/zzz'" in text


def test_model_error_text_is_one_line() -> None:
    from aniso.tui.app import describe

    assert describe(ModelError("model x failed: Timeout")) == "model x failed: Timeout"
    assert describe(ValueError("bad\nvalue")) == "ValueError: bad value"


async def test_first_session_of_the_day_opens_with_the_digest(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    """What is still open is the app's first message of a new day, and only once."""
    from datetime import timedelta

    from aniso.core.settings import load_settings
    from aniso.services import build

    earlier = build(load_settings({"model": "fake/x"}), clock=clock)
    earlier.assistant.send("The boiler doesn't work again, I need to fix it before Friday")
    clock.advance(timedelta(days=1))
    for expected in (True, False):  # the same day again: no second digest
        app = make_app(clock)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            digests = [m for m in app.query(ChatMessage) if m.has_class("digest")]
            assert bool(digests) is expected
            if expected:
                assert "Still open:" in digests[0].text and "boiler" in digests[0].text


def vector_folder_is_free(data_dir: Path) -> bool:
    """Whether another owner could take the embedded vector index's folder lock now."""
    fd = os.open(data_dir / "chroma.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


async def test_a_temporary_chat_releases_the_vector_index(
    llm: ScriptedLLM, clock: SimulatedClock
) -> None:
    """Switching to a temporary chat closes the memory it set aside, so another Aniso
    process (a CLI command, the compactor) owns the vector index while it lasts."""
    app = make_app(clock)
    data_dir = app.backend.settings.data_dir
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, "I keep bees on my balcony")
        assert not vector_folder_is_free(data_dir)
        await pilot.press("f4")
        await settle(pilot)
        await wait_until(pilot, lambda: vector_folder_is_free(data_dir))
        await say(pilot, "a question I do not want remembered")
        assert vector_folder_is_free(data_dir)
        await pilot.press("f4")
        await settle(pilot)
        await say(pilot, "what do I keep on my balcony?")
        assert not vector_folder_is_free(data_dir)
    db = app.backend.services().db
    assert [r[0] for r in db.execute("SELECT user_text FROM episodes")] == [
        "I keep bees on my balcony",
        "what do I keep on my balcony?",
    ]
