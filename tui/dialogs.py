"""Small modal dialogs: confirm an irreversible action, or ask for one line of text."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

DIALOG_CSS = """
ModalScreen { align: center middle; }
ModalScreen > Vertical {
    width: 80; max-width: 90%; height: auto; max-height: 80%;
    border: thick $primary; background: $surface; padding: 1 2;
}
ModalScreen .question { text-style: bold; margin-bottom: 1; }
ModalScreen VerticalScroll { height: auto; max-height: 20; }
ModalScreen Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
ModalScreen Button { margin-left: 2; }
"""


class ConfirmScreen(ModalScreen[bool]):
    """Yes or no, with an optional preview of what the action will touch."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, detail: str = "", *, yes: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, classes="question")
            if self.detail:
                with VerticalScroll():
                    yield Static(self.detail, markup=False, id="detail")
            with Horizontal():
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button("Cancel (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class PromptScreen(ModalScreen[str | None]):
    """One line of text (a path, a search, a model); Escape cancels."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, *, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, classes="question")
            yield Input(value=self.value, placeholder=self.placeholder, id="answer")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
