"""The profile view: every field, its current value and its history.

Superseded values are struck through with the dates they held, so the user can
audit what the assistant believes and why. `e` sets the highlighted field (for a
list field: adds an item), `d` removes its value (or one item) after a confirmation.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from aniso.profile.model import FIELDS, ProfileValue, is_list_field
from aniso.tui.dialogs import ConfirmScreen, PromptScreen


def field_label(name: str, rows: Sequence[ProfileValue]) -> Text:
    """The field name, its current value(s), then superseded values struck through."""
    label = Text()
    label.append(f"{name}", style="bold")
    label.append("  (list)" if is_list_field(name) else "", style="dim")
    current = [row for row in rows if row.ended is None]
    ended = [row for row in rows if row.ended is not None]
    if not rows:
        label.append("\n  not set", style="dim")
    for row in current:
        said = f'  "{row.said}"' if row.said and row.said != row.value else ""
        label.append(f"\n  {row.value}", style="bold green")
        label.append(f"{said}  since {row.since:%Y-%m-%d}, {row.source}", style="dim")
    for row in ended:
        label.append("\n  ")
        label.append(row.value, style="strike dim")
        assert row.ended is not None
        reason = f": {row.ended_reason}" if row.ended_reason else ""
        label.append(f"  {row.since:%Y-%m-%d} → {row.ended:%Y-%m-%d}{reason}", style="dim")
    return label


class ProfileScreen(Screen[None]):
    """Shows the profile with history; edits go through the app (they need workers)."""

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("e", "edit", "Set / add"),
        Binding("d", "remove", "Remove"),
    ]

    DEFAULT_CSS = """
    ProfileScreen > Vertical { padding: 0 2; }
    ProfileScreen .title { text-style: bold; margin: 1 0; }
    ProfileScreen OptionList { height: 1fr; }
    """

    def __init__(self, rows: Sequence[ProfileValue]) -> None:
        super().__init__()
        self.rows = list(rows)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Profile: what Aniso knows about you, and since when", classes="title")
            yield OptionList(id="fields")
        yield Footer()

    def on_mount(self) -> None:
        self.show(self.rows)

    def show(self, rows: Sequence[ProfileValue]) -> None:
        self.rows = list(rows)
        if not self.is_attached:
            return  # closed while the rows were loading
        options = self.query_one("#fields", OptionList)
        highlighted = options.highlighted or 0
        options.clear_options()
        for name in FIELDS:
            options.add_option(
                Option(field_label(name, [r for r in self.rows if r.field == name]), id=name)
            )
        options.highlighted = min(highlighted, len(FIELDS) - 1)
        options.focus()

    @property
    def field_name(self) -> str:
        index = self.query_one("#fields", OptionList).highlighted or 0
        return FIELDS[index]

    # Edits run in the app's workers (`background`): the core is synchronous.

    def _reload(self, notes: list[str]) -> None:
        self.notify("\n".join(notes) or "no change")
        app = self.app
        app.background(app.backend.profile_history, self.show, what="profile")  # type: ignore[attr-defined]

    def _run(self, job: object) -> None:
        self.app.background(job, self._reload, what="profile")  # type: ignore[attr-defined]

    def action_edit(self) -> None:
        name = self.field_name
        backend = self.app.backend  # type: ignore[attr-defined]

        def chosen(value: str | None) -> None:
            if value is not None and value.strip():
                self._run(lambda: backend.profile_set(name, value))

        self.app.push_screen(PromptScreen(f"New value for {name}:"), chosen)

    def action_remove(self) -> None:
        name = self.field_name
        backend = self.app.backend  # type: ignore[attr-defined]

        def confirmed(yes: bool | None, item: str | None = None) -> None:
            if yes:
                self._run(lambda: backend.profile_unset(name, item))

        if not is_list_field(name):
            self.app.push_screen(ConfirmScreen(f"Remove the value of {name}?"), confirmed)
            return

        def chosen(item: str | None) -> None:
            if item is None:
                return
            what = item.strip() or None
            question = f"Remove {what!r} from {name}?" if what else f"Empty {name}?"
            self.app.push_screen(ConfirmScreen(question), lambda yes: confirmed(yes, what))

        self.app.push_screen(PromptScreen(f"Item to remove from {name} (empty: all):"), chosen)
