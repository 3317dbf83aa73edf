"""`aniso mcp`: the memory as a Model Context Protocol server, for other assistants.

Built on the official `mcp` SDK (its `MCPServer`), on stdio by default or streamable
HTTP on 127.0.0.1. Each tool is one call of `aniso.api.Memory`, so an MCP client
stores and recalls exactly as the chat does. The tools run one at a time on a single
worker thread: the memory's SQLite connection and vector index belong to one
thread, and the event loop stays free to answer the client meanwhile.

What a client sees is what memory keeps, which is already redacted (a card number
or a passport became a placeholder before it was first written); an MCP client is
usually a remote model, and no raw copy exists to hand it.

Two processes on one data dir (the TUI open while an MCP client works): the first
to open the embedded vector index owns it; the other recalls lexically and says so
in `recall`'s warnings, and its index writes wait in the SQLite outbox, which the
owner replays. Every message lands in SQLite, the one source of truth.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aniso import __version__
from aniso.api import Memory
from aniso.core.errors import AnisoError

Call = Callable[[Callable[[], Any]], Awaitable[Any]]
INSTRUCTIONS = (
    "Aniso is the user's own long-term memory. Call `recall` before answering anything "
    "that may depend on what the user said before, and `remember` for what they tell "
    "you about themselves or ask you to keep. `profile` holds hard preferences (diet, "
    "tone, format, language, timezone) that win over older memories."
)


def build_server(memory: Memory) -> Any:
    """An MCPServer whose tools and resources call `memory`."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="aniso", version=__version__, instructions=INSTRUCTIONS)
    call = _one_thread()
    _add_reading_tools(server, memory, call)
    _add_writing_tools(server, memory, call)
    _add_resources(server, memory, call)
    return server


def _add_reading_tools(server: Any, memory: Memory, call: Call) -> None:
    @server.tool(
        description="Memories relevant to a query, best first, as the assistant would be "
        "given them: each with its tier (hot, warm, cold), form (full; incomplete for warm; "
        "gist for a cold capsule), age in days and provenance (block and episode), within a "
        "token budget; warnings say when recall is lexical only."
    )
    async def recall(query: str, budget_tokens: int | None = None) -> str:
        return _json(await call(lambda: memory.recall_report(query, budget_tokens=budget_tokens)))

    @server.tool(
        description="The user's current profile: diet, avoid, tone, format, language, "
        "timezone, name, interests and notes, each with what was said."
    )
    async def profile() -> str:
        return _json(await call(memory.profile))

    @server.tool(
        description="What is still open, what changed in the profile since the last "
        "session, and which memories moved between tiers (Markdown)."
    )
    async def digest() -> str:
        return str(await call(memory.digest))

    @server.tool(
        description="Restore an old (warm or cold) memory block into full detail, by its "
        "block id from `recall`."
    )
    async def unpack(block_id: int) -> str:
        return _json(await call(lambda: memory.unpack(block_id)))


def _add_writing_tools(server: Any, memory: Memory, call: Call) -> None:
    @server.tool(
        description="Store something the user said, exactly as a chat message is stored: "
        "sensitive data (cards, passports, secrets) is redacted first, profile facts are "
        "learned from it, and it joins the hot tier."
    )
    async def remember(text: str) -> str:
        return _json(await call(lambda: memory.remember(text)))

    @server.tool(description="Set a profile field by hand (for a list field, add the value).")
    async def profile_set(field: str, value: str) -> str:
        return _json(await call(lambda: memory.profile_set(field, value)))

    @server.tool(description="Remove a profile field, or one value of a list field.")
    async def profile_unset(field: str, value: str | None = None) -> str:
        return _json(await call(lambda: memory.profile_unset(field, value)))

    @server.tool(
        description="Open problems the user has not resolved, most urgent first, each with "
        "a brief in words of what moved since the user last looked at it."
    )
    async def threads() -> str:
        return _json(await call(memory.threads))

    @server.tool(
        description="Answers the user accepted (meal plans, packing lists, workouts, "
        "checklists), kept as steps for reuse, with their uses and weights; rejected ones "
        "are listed last and never reused."
    )
    async def procedures() -> str:
        return _json(await call(memory.procedures))

    @server.tool(
        description="Undo the profile changes learned from the last message that changed "
        "the profile (values it set end, values it ended hold again); call again to go one "
        "message further back."
    )
    async def profile_undo() -> str:
        return _json(await call(memory.profile_undo))

    @server.tool(
        description="Forget what mentions `search`. Without confirm it only previews the "
        "matches; with confirm=true it erases them everywhere and returns the receipt, "
        "which says verified only when no byte of them is left on disk."
    )
    async def forget(search: str, confirm: bool = False) -> str:
        return _json(await call(lambda: memory.forget(search, confirm=confirm)))


def _add_resources(server: Any, memory: Memory, call: Call) -> None:
    @server.resource(
        "aniso://profile",
        name="profile",
        mime_type="application/json",
        description="The user's current profile.",
    )
    async def profile_resource() -> str:
        return _json(await call(memory.profile))

    @server.resource(
        "aniso://digest",
        name="digest",
        mime_type="text/markdown",
        description="What is open and what changed.",
    )
    async def digest_resource() -> str:
        return str(await call(memory.digest))


def _one_thread() -> Call:
    """`call(fn)`: run one memory call on the memory's own thread. Bad input and a
    broken store are failures the client can act on: one line, as a tool error,
    never a traceback; anything else the SDK reports as a crash."""
    from mcp.server.mcpserver.exceptions import ToolError

    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="aniso-memory")

    async def call(fn: Callable[[], Any]) -> Any:
        try:
            return await asyncio.get_running_loop().run_in_executor(worker, fn)
        except AnisoError as error:
            raise ToolError(str(error)) from None

    return call


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)


def serve(memory: Memory, *, http: bool = False, port: int = 8765) -> None:
    """Serve until the client hangs up (stdio) or the process is stopped (HTTP)."""
    server = build_server(memory)
    if http:
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run("stdio")
