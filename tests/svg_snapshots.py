"""SVG snapshots of TUI screens, compared with committed files.

`app.export_screenshot()` is Textual's own SVG of the screen. A snapshot is the
exact text of that SVG; a mismatch fails and writes the new SVG beside the old one
(`*.new.svg`) for review. After an intended change, rerun with
`ANISO_SNAPSHOT_UPDATE=1` to rewrite the committed files. A missing snapshot fails
too, so CI never passes on a file that was never reviewed.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.app import App
from textual.pilot import Pilot

FOLDER = Path(__file__).parent / "__snapshots__" / "test_tui_snapshots"
UPDATE = "ANISO_SNAPSHOT_UPDATE"
# Read at import: the autouse fixture clears every ANISO_ variable before each test.
UPDATING = bool(os.environ.get(UPDATE))


async def screen_svg(
    app: App, run_before: Callable[[Pilot], Awaitable[None]], *, size: tuple[int, int]
) -> str:
    async with app.run_test(size=size) as pilot:
        await run_before(pilot)
        return app.export_screenshot()


def check(name: str, svg: str) -> None:
    """Assert `svg` equals the committed snapshot `name` (or rewrite it on request)."""
    path = FOLDER / f"{name}.svg"
    fresh = path.with_suffix(".new.svg")
    if UPDATING:
        FOLDER.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        fresh.unlink(missing_ok=True)
        return
    expected = path.read_text(encoding="utf-8") if path.exists() else None
    if svg != expected:
        fresh.write_text(svg, encoding="utf-8")
        hint = "missing" if expected is None else "differs"
        raise AssertionError(
            f"snapshot {name} {hint}: see {fresh}; if intended, rerun with {UPDATE}=1"
        )
    fresh.unlink(missing_ok=True)
