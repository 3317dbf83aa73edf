"""The status bar: model (local or remote), data dir, next compaction, privacy, mode,
and the last profile change (learned or undone)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from rich.text import Text
from textual.widgets import Static

TRIAGE_SHOWN = 0.05
"""The triage weight from which recall is no longer plain similarity (ALPHA_FLOOR)."""


@dataclass(frozen=True)
class Status:
    model: str
    local: bool
    data_dir: str
    next_compaction: datetime | None = None
    redacted: list[str] = field(default_factory=list)
    temporary: bool = False
    busy: str = ""
    profile: str = ""
    """The last profile change: "Noted: diet → vegetarian (F9 undoes)", or an undo's result."""
    triage: float = 0.0
    """Busy-day triage weight α after the last turn; shown once triage is on."""


def render_status(status: Status) -> Text:
    line = Text()
    line.append(f" {status.model} ", style="bold")
    line.append(
        "local" if status.local else "remote",
        style="green" if status.local else "bold yellow",
    )
    line.append(f" │ {status.data_dir}")
    if status.next_compaction is not None:
        line.append(f" │ compaction {status.next_compaction:%Y-%m-%d %H:%M} UTC")
    if status.temporary:
        line.append(" │ ")
        line.append("TEMPORARY: nothing is remembered", style="bold black on yellow")
    if status.redacted:
        line.append(" │ ")
        kinds = ", ".join(k.lower().replace("_", " ") for k in status.redacted)
        line.append(f"redacted: {kinds}", style="bold black on magenta")
    if status.profile:
        line.append(" │ ")
        line.append(status.profile, style="bold cyan")
    if status.triage >= TRIAGE_SHOWN:
        line.append(" │ ")
        line.append(f"busy day: triage α {status.triage:.2f}", style="bold black on cyan")
    if status.busy:
        line.append(f" │ {status.busy}", style="italic")
    return line


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text; }
    """

    def show(self, status: Status) -> None:
        self.update(render_status(status))
