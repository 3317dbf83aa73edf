"""The chat pane: a scrolling conversation of Markdown messages and a composer.

Replies stream into a Markdown widget piece by piece. The composer is a text area:
Enter sends, Ctrl+J (or Shift+Enter where the terminal reports it) starts a new
line, and Up/Down on the first/last line walk through earlier messages.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Markdown, Static, TextArea
from textual.widgets.markdown import MarkdownStream

NEWLINE_KEYS = {"ctrl+j", "shift+enter", "alt+enter"}


class ChatMessage(Vertical):
    """One message: a role line, then Markdown (replies stream into it)."""

    DEFAULT_CSS = """
    ChatMessage { height: auto; margin: 0 1 1 1; }
    ChatMessage > .role { color: $text-muted; text-style: bold; }
    ChatMessage.user > .role { color: $accent; }
    ChatMessage.error { border-left: thick $error; padding-left: 1; }
    ChatMessage.notice > Markdown { color: $warning; }
    ChatMessage > Markdown { margin: 0; padding: 0; }
    """

    class Piece(Message):
        """A streamed piece of a reply; posted from the model's thread without waiting."""

        def __init__(self, piece: str) -> None:
            super().__init__()
            self.piece = piece

    class Ended(Message):
        """The reply is complete. Posted through the message's own queue, after every
        piece, so the app sees it only once all pieces are on screen."""

        def __init__(self, target: ChatMessage, turn: object) -> None:
            super().__init__()
            self.target = target
            self.turn = turn

    def __init__(self, role: str, text: str = "", *, kind: str = "") -> None:
        super().__init__(classes=" ".join(c for c in (role, kind) if c))
        self.role = role
        self.text = text
        self.closed = False
        self._stream: MarkdownStream | None = None

    def compose(self) -> ComposeResult:
        label = {"user": "you", "assistant": "aniso"}.get(self.role, self.role)
        yield Static(label, classes="role")
        yield Markdown(self.text)

    @property
    def body(self) -> Markdown:
        return self.query_one(Markdown)

    async def on_chat_message_piece(self, event: Piece) -> None:
        event.stop()
        await self.append(event.piece)

    async def append(self, piece: str) -> None:
        """Add a streamed piece; the stream batches renders when pieces come fast."""
        if self.closed:
            return  # the final text is in place; a late piece must not repeat it
        self.text += piece
        if self._stream is None:
            self._stream = Markdown.get_stream(self.body)
        await self._stream.write(piece)

    async def finish(self) -> None:
        """Flush the stream: every piece is rendered when this returns."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    async def set_text(self, text: str) -> None:
        await self.finish()
        self.closed = True
        self.text = text
        await self.body.update(text)


class Composer(TextArea):
    """Multi-line input with history; Enter sends."""

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    DEFAULT_CSS = """
    Composer { height: auto; min-height: 3; max-height: 10; border: round $primary; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, **kwargs)  # type: ignore[arg-type]
        self.sent: list[str] = []
        self._position: int | None = None
        self._draft = ""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self._submit()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "up" and self.cursor_location[0] == 0 and self.sent:
            event.stop()
            event.prevent_default()
            self._walk(-1)
            return
        if event.key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            if self._position is not None:
                event.stop()
                event.prevent_default()
                self._walk(1)
                return
        await super()._on_key(event)

    def _submit(self) -> None:
        """Offer the text; it stays in place until the app `accept`s it."""
        if self.text.strip():
            self.post_message(self.Submitted(self.text))

    def accept(self) -> None:
        """The message was sent: remember it in the history and clear the input."""
        text = self.text
        if text.strip() and (not self.sent or self.sent[-1] != text):
            self.sent.append(text)
        self._position = None
        self._draft = ""
        self.load_text("")

    def _walk(self, step: int) -> None:
        if self._position is None:
            self._draft = self.text
            self._position = len(self.sent)
        self._position = max(0, min(len(self.sent), self._position + step))
        if self._position == len(self.sent):
            text, self._position = self._draft, None
        else:
            text = self.sent[self._position]
        self.load_text(text)
        self.move_cursor(self.document.end)


class ChatPane(Vertical):
    """The conversation and the composer below it."""

    DEFAULT_CSS = """
    ChatPane { width: 1fr; }
    ChatPane > VerticalScroll { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="messages")
        yield Composer(id="composer")

    @property
    def log(self) -> VerticalScroll:
        return self.query_one("#messages", VerticalScroll)

    async def add(
        self, role: str, text: str = "", *, kind: str = "", before: ChatMessage | None = None
    ) -> ChatMessage:
        message = ChatMessage(role, text, kind=kind)
        await self.log.mount(message, before=before)
        self.log.scroll_end(animate=False)
        return message

    def scroll_down(self) -> None:
        self.log.scroll_end(animate=False)
