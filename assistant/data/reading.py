"""Read an export file record by record, checking each one, for `aniso import`.

A 100k-episode export is hundreds of megabytes; parsed whole it peaked at 1.37 GB. Here
the file streams through `aniso.data.jsonstream`, one record (a block with its
episodes, a profile value, a link...) at a time: pydantic checks each record as it
comes, and the cross-record checks (duplicate ids, blocks filed under the wrong tier,
links to blocks that are not in the file) keep only ids. The first problem is reported
with the file name and its place, e.g. `tiers.hot[3].episodes[0].at`, or the line and
column of a syntax error.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ValidationError

from aniso.core.errors import InputError
from aniso.data.document import (
    FORMAT,
    SCHEMA_VERSION,
    BlockRecord,
    EpisodeRecord,
    ExportDocument,
    LinkRecord,
    ProcedureRecord,
    ProfileValueRecord,
    ThreadRecord,
    TierEventRecord,
)
from aniso.data.jsonstream import JsonReader, JsonSyntaxError
from aniso.tiers.model import TIERS

MAX_FILE_BYTES = 4 * 1024**3


def _where(loc: Iterable[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the top level"


@dataclass(frozen=True)
class ExportFile:
    """An export file read and validated to the end; `write_document` reads it again.

    Nothing of the memory stays in RAM between the two passes, only these counts.
    """

    path: Path
    blocks: dict[str, int]
    episodes: int


Item = tuple[str, str, Any]
"""(section, tier or "", validated record) in file order."""


class _Utf8:
    """A binary file read as UTF-8 text, naming the byte where the decoding fails."""

    def __init__(self, raw: IO[bytes], name: str) -> None:
        self._raw = raw
        self._name = name
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._read = 0

    def read(self, size: int) -> str:
        while True:
            data = self._raw.read(size)
            pending = len(self._decoder.getstate()[0])
            try:
                text = self._decoder.decode(data, final=not data)
            except UnicodeDecodeError as error:
                raise InputError(
                    f"cannot import {self._name}: not UTF-8 text "
                    f"(byte {self._read - pending + error.start}); is it an Aniso export?"
                ) from None
            self._read += len(data)
            if text or not data:
                return text


class _Checks:
    """Every check of an export, run record by record as the file streams past.

    Per record: the schema (pydantic) and the tier it is filed under. Across records,
    with only ids kept: duplicate ids, and links that join blocks not in the file
    (checked at the end, since a file may list links before blocks). The rest of the
    document (format, version, the sections being there) is checked as a skeleton
    whose record lists are empty.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.blocks: dict[str, int] = {tier: 0 for tier in TIERS}
        self.episodes = 0
        self._ids: dict[str, set[int]] = {
            k: set()
            for k in ("block", "episode", "profile value", "tier event", "thread", "procedure")
        }
        self._pairs: set[tuple[int, int]] = set()
        self._links: list[tuple[int, int, int]] = []
        self._threads: list[tuple[int, int]] = []

    def fail(self, problem: str) -> InputError:
        return InputError(f"cannot import {self.name}: {problem}")

    def head(self, head: dict[str, Any], *, final: bool) -> None:
        """Format first, then version, as soon as the file has told them."""
        if "format" not in head and not final:
            return
        if head.get("format") != FORMAT:
            raise self.fail(f'not an Aniso export (no "format": "{FORMAT}")')
        if "schema_version" not in head and not final:
            return
        version = head.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise self.fail("schema_version must be a positive integer")
        if version > SCHEMA_VERSION:
            raise self.fail(
                f"it was written by a newer Aniso (schema version {version}; "
                f"this one reads up to {SCHEMA_VERSION}); upgrade Aniso first"
            )

    def valid(self, model: type[BaseModel], raw: Any, where: tuple[str | int, ...]) -> Any:
        try:
            return model.model_validate(raw)
        except ValidationError as error:
            raise self._invalid(error, where) from None

    def _invalid(self, error: ValidationError, where: tuple[str | int, ...]) -> InputError:
        first = error.errors()[0]
        more = error.error_count() - 1
        tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        return self.fail(f"at {_where((*where, *first['loc']))}: {first['msg']}{tail}")

    def _unique(self, what: str, value: int) -> None:
        seen = self._ids[what]
        if value in seen:
            raise self.fail(f"duplicate {what} id {value}")
        seen.add(value)

    def record(self, section: str, tier: str, index: int, raw: Any) -> Any:
        """Validate one record and check it against those before it."""
        if section == "tiers":
            block: BlockRecord = self.valid(BlockRecord, raw, ("tiers", tier, index))
            if block.tier != tier:
                raise self.fail(
                    f"at tiers.{tier}[{index}]: a {block.tier} block is filed under {tier}"
                )
            self._unique("block", block.id)
            for episode in block.episodes:
                self._unique("episode", episode.id)
            for item in block.archive:
                self._unique("episode", item.episode.id)
            self.blocks[tier] += 1
            self.episodes += len(block.episodes)
            return block
        record = self.valid(SECTIONS[section], raw, (section, index))
        if section == "loose_episodes":
            self._unique("episode", record.id)
            self.episodes += 1
        elif section == "profile":
            self._unique("profile value", record.id)
        elif section == "tier_events":
            self._unique("tier event", record.id)
        elif section == "procedures":
            self._unique("procedure", record.id)
        elif section == "threads":
            self._unique("thread", record.block_id)
            self._threads.append((index, record.block_id))
        else:
            self._link(index, record)
        return record

    def _link(self, index: int, link: LinkRecord) -> None:
        pair = (link.a, link.b)
        if pair in self._pairs:
            raise self.fail(f"duplicate link {link.a}–{link.b}")
        self._pairs.add(pair)
        if link.a >= link.b:
            raise self.fail(f"at links[{index}]: a link needs a < b, got {link.a} and {link.b}")
        self._links.append((index, link.a, link.b))

    def finish(self, skeleton: dict[str, Any]) -> None:
        """What only the whole file can tell: the document's shape and the links' ends."""
        self.head(skeleton, final=True)
        try:
            ExportDocument.model_validate(skeleton)
        except ValidationError as error:
            raise self._invalid(error, ()) from None
        blocks = self._ids["block"]
        for index, a, b in self._links:
            if a not in blocks or b not in blocks:
                raise self.fail(f"at links[{index}]: it joins a block that is not in the file")
        for index, block_id in self._threads:
            if block_id not in blocks:
                raise self.fail(f"at threads[{index}]: its block is not in the file")


SECTIONS: dict[str, type[BaseModel]] = {
    "profile": ProfileValueRecord,
    "loose_episodes": EpisodeRecord,
    "links": LinkRecord,
    "tier_events": TierEventRecord,
    "threads": ThreadRecord,
    "procedures": ProcedureRecord,
}
"""The top-level lists read record by record; `tiers` holds three more."""


def _walk(reader: JsonReader, checks: _Checks) -> Iterator[Item]:
    """Validated records in file order; the rest of the document becomes a skeleton."""
    if reader.peek() != "{":
        reader.value()  # a syntax error first, as a whole-file parse would report it
        reader.end()
        checks.head({}, final=True)
    skeleton: dict[str, Any] = {}
    for key in reader.members():
        if key == "tiers" and reader.peek() == "{":
            tiers: dict[str, Any] = {}
            for tier in reader.members():
                if tier in TIERS and reader.peek() == "[":
                    for index, _ in enumerate(reader.elements()):
                        yield "tiers", tier, checks.record("tiers", tier, index, reader.value())
                    tiers[tier] = []
                else:
                    tiers[tier] = reader.value()
            skeleton[key] = tiers
        elif key in SECTIONS and reader.peek() == "[":
            for index, _ in enumerate(reader.elements()):
                yield key, "", checks.record(key, "", index, reader.value())
            skeleton[key] = []
        else:
            skeleton[key] = reader.value()
            checks.head(skeleton, final=False)
    reader.end()
    checks.finish(skeleton)


def items(path: Path, checks: _Checks | None = None) -> Iterator[Item]:
    """Stream the file's validated records; InputError names the file and the place."""
    name = str(path)
    checks = checks or _Checks(name)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"cannot import {name}: {size} bytes is larger than an export can be")
        raw = path.open("rb")
    except OSError as error:
        raise InputError(f"cannot import {name}: {error.strerror or error}") from None
    with raw:
        try:
            yield from _walk(JsonReader(_Utf8(raw, name)), checks)
        except JsonSyntaxError as error:
            raise InputError(
                f"cannot import {name}: not valid JSON at line {error.line} column "
                f"{error.column}: {error.msg} (truncated or edited?)"
            ) from None
        except OSError as error:
            raise InputError(f"cannot import {name}: {error.strerror or error}") from None


def read_document(path: Path) -> ExportFile:
    """Validate an export file to its end, holding one record at a time.

    InputError names the file and the place, e.g. `tiers.hot[3].episodes[0].at`.
    """
    checks = _Checks(str(path))
    for _ in items(path, checks):
        pass
    return ExportFile(path=path, blocks=dict(checks.blocks), episodes=checks.episodes)
