"""Read a large JSON document piece by piece, so an import never holds the whole file.

The standard library parses a whole document at once: a 100k-episode export became a
1.37 GB peak. This reader walks the containers the caller asks to walk (objects key
by key, arrays element by element) and hands every other value to `json`'s own
decoder (`raw_decode`, in C) over a window of the file. So it accepts exactly what
`json.loads` accepts, whatever the layout (one record per line, pretty-printed, all
on one line), and holds only the value being read: one block or one episode.

Errors carry the line and column in the whole file, as `json.loads` would report
them, so "truncated or edited?" points at the right place.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

CHUNK = 1 << 20
"""Characters read at a time; a value longer than the window doubles the read."""
WHITESPACE = " \t\n\r"
_DECODER = json.JSONDecoder()
_TAIL = 8
"""An error this close to the window's end may just be a value cut by the window."""


class JsonSyntaxError(ValueError):
    """Not valid JSON; `line` and `column` are 1-based positions in the whole file."""

    def __init__(self, msg: str, line: int, column: int) -> None:
        super().__init__(f"{msg}: line {line} column {column}")
        self.msg = msg
        self.line = line
        self.column = column


class JsonReader:
    """A cursor over a text stream that reads JSON tokens and whole values."""

    def __init__(self, handle: IO[str], chunk: int = CHUNK) -> None:
        self._handle = handle
        self._chunk = chunk
        self._buffer = ""
        self._pos = 0
        self._eof = False
        self._line = 1
        """The line on which `_buffer[0]` stands."""
        self._line_start = 0
        """Offset (may be negative) in `_buffer` of the character after the last newline."""

    def _fill(self, want: int) -> bool:
        """Drop what was read, add at least `want` characters; False at the end of the file."""
        if self._eof:
            return False
        done = self._buffer[: self._pos]
        newlines = done.count("\n")
        if newlines:
            self._line += newlines
            self._line_start = done.rfind("\n") + 1
        self._line_start -= self._pos
        text = self._handle.read(max(want, self._chunk))
        if not text:
            self._eof = True
        self._buffer = self._buffer[self._pos :] + text
        self._pos = 0
        return bool(text)

    def error(self, msg: str, pos: int | None = None) -> JsonSyntaxError:
        """A syntax error at `pos` in the window (default: the cursor)."""
        at = self._pos if pos is None else pos
        before = self._buffer[:at]
        newlines = before.count("\n")
        if newlines:
            column = at - before.rfind("\n")
        else:
            column = at - self._line_start + 1
        return JsonSyntaxError(msg, self._line + newlines, column)

    def peek(self) -> str | None:
        """The next character that is not whitespace (not consumed); None at the end."""
        while True:
            buffer, pos = self._buffer, self._pos
            while pos < len(buffer) and buffer[pos] in WHITESPACE:
                pos += 1
            self._pos = pos
            if pos < len(buffer):
                return buffer[pos]
            if not self._fill(self._chunk):
                return None

    def take(self, allowed: str, msg: str) -> str:
        """Consume the next character, which must be one of `allowed`."""
        char = self.peek()
        if char is None or char not in allowed:
            raise self.error(msg)
        self._pos += 1
        return char

    def value(self) -> Any:
        """Decode the next whole value (a record, a string, a number...)."""
        if self.peek() is None:
            raise self.error("Expecting value")
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buffer, self._pos)
            except json.JSONDecodeError as error:
                if self._eof or not self._cut(error):
                    raise self.error(error.msg, error.pos) from None
                self._fill(len(self._buffer) - self._pos)
                continue
            except RecursionError:
                raise self.error("JSON nested too deeply") from None
            if not self._eof and self._may_go_on(end):
                self._fill(len(self._buffer) - self._pos)
                continue
            self._pos = end
            return value

    def _may_go_on(self, end: int) -> bool:
        """Whether a number ending at `end` may go on in the next read ("1" of "12",
        "0" of "0.5", "1" of "1e+5")."""
        if len(self._buffer) - end > 2:
            return False
        return all(char in ".eE+-" for char in self._buffer[end:])

    def _cut(self, error: json.JSONDecodeError) -> bool:
        """Whether the error may come from the window ending inside the value."""
        return error.msg.startswith("Unterminated string") or error.pos >= len(self._buffer) - _TAIL

    def members(self) -> Iterator[str]:
        """The keys of the object at the cursor; the caller reads each value in turn."""
        self.take("{", "Expecting value")
        if self.peek() == "}":
            self._pos += 1
            return
        while True:
            if self.peek() != '"':
                raise self.error("Expecting property name enclosed in double quotes")
            key = self.value()
            self.take(":", "Expecting ':' delimiter")
            yield key
            if self.take(",}", "Expecting ',' delimiter") == "}":
                return

    def elements(self) -> Iterator[None]:
        """Stops at each element of the array at the cursor; the caller reads it."""
        self.take("[", "Expecting value")
        if self.peek() == "]":
            self._pos += 1
            return
        while True:
            yield None
            if self.take(",]", "Expecting ',' delimiter") == "]":
                return

    def end(self) -> None:
        """Only whitespace may follow the document."""
        if self.peek() is not None:
            raise self.error("Extra data")
