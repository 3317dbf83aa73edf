"""The memory panel: what is kept in each tier, and what was recalled for the last answer.

Each recalled item shows its tier badge, age and tokens. Warm items are marked
incomplete and cold ones as a gist, so the user can see why some things are remembered
less well; outdated ones (superseded by the profile) are marked too. Keys act on the
highlighted item: u unpacks it deeply, p pins it, c clears its markers (important, open
problem), f forgets it after a confirmation.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from aniso.tiers.model import MemoryItem
from aniso.tui.backend import TierCounts

BADGE_STYLE = {
    "hot": "bold white on red",
    "warm": "bold black on yellow",
    "cold": "bold white on blue",
}
FORM_NOTE = {"incomplete": "incomplete", "gist": "gist"}


def age(at: datetime, now: datetime) -> str:
    """A short age: 5m, 3h, 12d, 4mo, 2y."""
    seconds = max(0.0, (now - at).total_seconds())
    for unit, size in (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds // 60)}m"


def item_label(item: MemoryItem, now: datetime, *, pinned: bool = False) -> Text:
    """Badge, age, tokens and marks on the first line; the text (trimmed) below."""
    label = Text()
    label.append(f" {item.tier.upper()} ", style=BADGE_STYLE.get(item.tier, "reverse"))
    label.append(f" {age(item.at, now)} · {item.tokens} tok · block {item.block_id}")
    if item.form in FORM_NOTE:
        label.append(f" · {FORM_NOTE[item.form]}", style="italic yellow")
    if item.outdated:
        label.append(" · outdated", style="bold magenta")
    if pinned:
        label.append(" · pinned", style="bold green")
    text = " ".join(item.text.split())
    label.append("\n" + (text if len(text) <= 140 else text[:137] + "..."), style="dim")
    return label


def counts_line(counts: TierCounts) -> Text:
    line = Text()
    for tier, count in (("hot", counts.hot), ("warm", counts.warm), ("cold", counts.cold)):
        line.append(f" {tier} ", style=BADGE_STYLE[tier])
        line.append(f" {count}  ")
    line.append(f"archive {counts.archive}", style="bold")
    return line


class MemoryPanel(Vertical):
    """Tier counts and the recalled items, with unpack / pin / forget on a key."""

    class Act(Message):
        """The user asked for `action` ("unpack", "pin", "clear", "forget") on `item`."""

        def __init__(self, action: str, item: MemoryItem) -> None:
            super().__init__()
            self.action = action
            self.item = item

    BINDINGS = [
        Binding("u", "act('unpack')", "Unpack"),
        Binding("p", "act('pin')", "Pin"),
        Binding("c", "act('clear')", "Clear markers"),
        Binding("f", "act('forget')", "Forget"),
    ]

    DEFAULT_CSS = """
    MemoryPanel { width: 56; border-left: solid $primary; padding: 0 1; }
    MemoryPanel > .title { text-style: bold; margin-top: 1; }
    MemoryPanel > OptionList { height: 1fr; border: none; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.items: list[MemoryItem] = []

    def compose(self) -> ComposeResult:
        yield Static("Memory", classes="title")
        yield Static(counts_line(TierCounts()), id="counts")
        yield Static("Recalled for this answer", classes="title")
        yield OptionList(id="recalled")

    def show_counts(self, counts: TierCounts) -> None:
        self.query_one("#counts", Static).update(counts_line(counts))

    def show_items(
        self, items: list[MemoryItem], now: datetime, *, pinned: set[int] | None = None
    ) -> None:
        self.items = list(items)
        options = self.query_one("#recalled", OptionList)
        options.clear_options()
        if not items:
            options.add_option(Option(Text("nothing recalled", style="dim"), disabled=True))
            return
        for index, item in enumerate(items):
            options.add_option(
                Option(
                    item_label(item, now, pinned=item.block_id in (pinned or set())), id=str(index)
                )
            )
        options.highlighted = 0

    @property
    def current(self) -> MemoryItem | None:
        index = self.query_one("#recalled", OptionList).highlighted
        if index is None or not self.items or index >= len(self.items):
            return None
        return self.items[index]

    def action_act(self, action: str) -> None:
        item = self.current
        if item is None:
            self.notify("no memory selected", severity="warning")
            return
        self.post_message(self.Act(action, item))
