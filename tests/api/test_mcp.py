"""`aniso mcp` driven by the official SDK's own client session over stdio."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from aniso.core.settings import load_settings

pytestmark = pytest.mark.anyio
ANISO = str(Path(sys.executable).with_name("aniso"))
CARD = "4111 1111 1111 1111"
EMAIL = "zoe.qzv@example.org"
TOOLS = {
    "recall",
    "remember",
    "profile",
    "profile_set",
    "profile_unset",
    "profile_undo",
    "forget",
    "digest",
    "unpack",
    "threads",
    "procedures",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def with_session(body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    params = StdioServerParameters(command=ANISO, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await body(session)


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    text = result.content[0].text  # type: ignore[union-attr]
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def every_byte(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.rglob("*")) if p.is_file())


@pytest.mark.erasure
async def test_a_client_remembers_recalls_reads_the_profile_and_forgets(data_dir: Path) -> None:
    async def body(session: ClientSession) -> None:
        listed = {tool.name for tool in (await session.list_tools()).tools}
        assert TOOLS <= listed
        stored = await call(
            session, "remember", text="I'm vegetarian and I love the Qzvmarker bakery"
        )
        assert stored["episode_id"] > 0
        carded = await call(
            session, "remember", text=f"My Qzvmarker card is {CARD}, mail me at {EMAIL}"
        )
        assert carded["withheld"] and CARD not in carded["stored"]
        items = (await call(session, "recall", query="Qzvmarker card bakery"))["items"]
        texts = " ".join(item["text"] for item in items)
        assert "bakery" in texts and "[CREDIT_CARD]" in texts
        assert CARD not in texts and EMAIL not in texts
        assert {item["tier"] for item in items} == {"hot"} and items[0]["form"] == "full"
        assert "vegetarian" in json.dumps(await call(session, "profile"))
        resource = await session.read_resource("aniso://profile")
        assert "vegetarian" in resource.contents[0].text  # type: ignore[union-attr]
        preview = await call(session, "forget", search="Qzvmarker")
        assert preview["preview"] is True and len(preview["matches"]) >= 2
        assert b"Qzvmarker" in every_byte(data_dir), "a preview erases nothing"
        receipt = await call(session, "forget", search="Qzvmarker", confirm=True)
        assert receipt["verified"] is True and receipt["episodes"] == 2
        assert (await call(session, "recall", query="Qzvmarker bakery"))["items"] == []

    await with_session(body)
    raw = every_byte(data_dir)
    assert b"Qzvmarker" not in raw and b"qzvmarker" not in raw.lower()
    assert CARD.encode() not in raw and CARD.replace(" ", "").encode() not in raw
    assert EMAIL.encode() not in raw


async def test_a_client_reads_open_threads_and_procedures(data_dir: Path) -> None:
    async def body(session: ClientSession) -> None:
        assert await call(session, "threads") == [] and await call(session, "procedures") == []
        await call(session, "remember", text="The boiler doesn't work: the pressure drops")
        [thread] = await call(session, "threads")
        assert "boiler" in thread["label"] and 24 <= thread["tau_hours"] <= 168
        assert thread["brief"], "a new thread gets its brief at once"

    await with_session(body)


async def test_bad_input_is_a_tool_error_not_a_crash(data_dir: Path) -> None:
    async def body(session: ClientSession) -> None:
        empty = await session.call_tool("remember", {"text": "   "})
        assert empty.is_error and "empty" in empty.content[0].text.lower()  # type: ignore[union-attr]
        assert (await call(session, "recall", query="anything at all"))["items"] == []

    await with_session(body)


async def test_the_server_beside_the_tui_loses_no_write(data_dir: Path, llm) -> None:  # type: ignore[no-untyped-def]
    """The TUI's backend owns the vector index: the server recalls lexically, both
    write, every message lands once and the doctor is clean afterwards."""
    from helpers import run_cli

    from aniso.tui.backend import Backend

    tui = Backend(load_settings({"model": "fake/x"}))
    tui.send("My sister Qzvapp lives in Porto")  # the TUI now owns the vector index
    assert tui.services().controller.memory.dense.index is not None

    async def body(session: ClientSession) -> None:
        await call(session, "remember", text="My brother Qzvmcp lives in Lyon")
        found = await call(session, "recall", query="Qzvapp Porto")
        assert any("Qzvapp" in item["text"] for item in found["items"]), "the TUI's write"
        assert any("lexical" in warning for warning in found["warnings"]), found["warnings"]

    await with_session(body)
    tui.send("And Qzvapp has a cat")
    services = tui.services()
    found = services.memory.recall("Qzvmcp Lyon", now=services.clock())
    assert any("Qzvmcp" in item.text for item in found.items), "the server's write is seen"
    texts = [r[0] for r in services.db.execute("SELECT user_text FROM episodes ORDER BY id")]
    assert sum("Qzvmcp" in t for t in texts) == 1 and sum("Qzvapp" in t for t in texts) == 2
    tui.stop()
    doctor = run_cli("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr


@pytest.mark.allow_hosts(["127.0.0.1"])
async def test_streamable_http_on_loopback(data_dir: Path) -> None:
    import socket
    import subprocess
    import time

    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [ANISO, "mcp", "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the HTTP server never listened"
                time.sleep(0.2)
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            assert TOOLS <= {tool.name for tool in (await session.list_tools()).tools}
            stored = await call(session, "remember", text="I like green tea in the Qzvhttp cafe")
            assert stored["episode_id"] > 0
            assert "Qzvhttp" in json.dumps(await call(session, "recall", query="Qzvhttp cafe"))
    finally:
        server.terminate()
        server.wait(timeout=60)
