"""`aniso mcp`: serve the memory to other assistants over the Model Context Protocol."""

from __future__ import annotations

from typing import Any

import click


@click.command("mcp")
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP on 127.0.0.1.")
@click.option("--port", default=8765, show_default=True, help="The HTTP port (with --http).")
@click.pass_context
def mcp(ctx: click.Context, http: bool, port: int) -> None:
    """Serve the memory over MCP (stdio by default), for Claude Desktop, IDE agents
    and other MCP clients: recall, remember, profile, forget, digest and unpack."""
    from aniso.api import Memory
    from aniso.api.mcp import serve

    root: Any = ctx.find_root().obj
    memory = Memory(root.services())
    try:
        serve(memory, http=http, port=port)
    finally:
        memory.close()
