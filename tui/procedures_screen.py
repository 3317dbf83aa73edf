"""The procedures view: accepted answers kept for reuse, with their uses and weights.

`p` pins or unpins the highlighted procedure (a pinned one is reused first), `f`
forgets it after a confirmation. Rejected answers are listed too, marked: they are
kept only so that they are never offered again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from aniso.tui.dialogs import ConfirmScreen


def procedure_label(procedure: Any) -> Text:
    """Kind, uses and weight, marks, the request, then the steps."""
    label = Text()
    label.append(procedure.kind, style="bold")
    label.append(f"  uses {procedure.uses}, weight {procedure.weight:.2f}", style="dim")
    if procedure.pinned:
        label.append("  pinned", style="bold cyan")
    if procedure.rejected:
        label.append("  rejected: never reused", style="bold red")
    label.append(f"\n  {procedure.title[:100]}")
    for step in procedure.steps[:6]:
        label.append(f"\n    - {step}", style="dim")
    return label


class ProceduresScreen(Screen[None]):
    """Lists procedures; pin and forget go through the app's workers."""

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("p", "pin", "Pin / unpin"),
        Binding("f", "forget", "Forget"),
    ]

    DEFAULT_CSS = """
    ProceduresScreen > Vertical { padding: 0 2; }
    ProceduresScreen .title { text-style: bold; margin: 1 0; }
    ProceduresScreen OptionList { height: 1fr; }
    """

    def __init__(self, procedures: Sequence[Any]) -> None:
        super().__init__()
        self.procedures = list(procedures)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Procedures: answers you accepted, reused and adapted", classes="title")
            yield OptionList(id="procedures")
        yield Footer()

    def on_mount(self) -> None:
        self.show(self.procedures)

    def show(self, procedures: Sequence[Any]) -> None:
        self.procedures = list(procedures)
        if not self.is_attached:
            return
        options = self.query_one("#procedures", OptionList)
        highlighted = options.highlighted or 0
        options.clear_options()
        if not self.procedures:
            options.add_option(Option(Text("no procedures yet", style="dim"), disabled=True))
        for procedure in self.procedures:
            options.add_option(Option(procedure_label(procedure), id=str(procedure.id)))
        if self.procedures:
            options.highlighted = min(highlighted, len(self.procedures) - 1)
        options.focus()

    @property
    def current(self) -> Any | None:
        index = self.query_one("#procedures", OptionList).highlighted
        if index is None or not self.procedures:
            return None
        return self.procedures[min(index, len(self.procedures) - 1)]

    def _run(self, job: Any) -> None:
        app: Any = self.app
        app.background(job, self.show, what="procedures")

    def action_pin(self) -> None:
        chosen = self.current
        if chosen is not None:
            backend: Any = self.app.backend  # type: ignore[attr-defined]
            self._run(lambda: backend.pin_procedure(chosen.id, not chosen.pinned))

    def action_forget(self) -> None:
        chosen = self.current
        if chosen is None:
            return
        backend: Any = self.app.backend  # type: ignore[attr-defined]

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._run(lambda: backend.forget_procedure(chosen.id))

        self.app.push_screen(ConfirmScreen(f"Forget the {chosen.kind} procedure?"), confirmed)
