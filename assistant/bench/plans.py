"""Query plans of the statements one operation runs, for `aniso bench scale`.

Latency at one size says little about the next; a plan does. A `SCAN` of a big
table on the write path makes every write O(N) in the size of memory, so the
bench traces every statement a call runs on our connection and asks SQLite how it
executes each one. FTS5's own statements on its shadow tables show up in the trace
as `-- ...` lines; they are keyed lookups inside FTS5 and are reported as such.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass

BIG_TABLES = ("episodes", "blocks", "links", "block_terms", "archive")
SMALL_TABLES = ("outbox", "meta", "compaction_runs", "profile_values", "_sqlite_migrations")
FTS_TABLES = ("episode_fts", "block_fts")
EXPLAINED = ("SELECT", "UPDATE", "DELETE", "WITH", "INSERT")
_LITERAL = re.compile(r"x'[0-9a-fA-F]*'|'(?:[^']|'')*'|\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b")
_SCAN = re.compile(r"^SCAN (\w+)(.*)$")
_SEARCH = re.compile(r"^SEARCH (\w+)(.*)$")


@dataclass(frozen=True)
class Plan:
    sql: str
    """The statement with literals replaced by `?` (one entry per distinct shape)."""
    calls: int
    plan: list[str]
    full_scans: list[str]
    """Big tables this statement reads in full: O(N) per call."""
    note: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def shape(sql: str) -> str:
    """The statement without its values, so repeated calls collapse into one."""
    return " ".join(_LITERAL.sub("?", sql).split())


@contextmanager
def traced(conn: sqlite3.Connection) -> Iterator[list[str]]:
    """Collect every statement run on `conn` inside the block (values expanded)."""
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


def _plan_lines(conn: sqlite3.Connection, sql: str) -> list[str]:
    text = sql[2:].strip() if sql.startswith("--") else sql
    params = [None] * text.count("?") if sql.startswith("--") else []
    try:
        rows = conn.execute(f"EXPLAIN QUERY PLAN {text}", params).fetchall()
    except sqlite3.Error as error:
        return [f"(not explainable: {error})"]
    return [row[-1] for row in rows]


def judge(lines: list[str], sql: str = "") -> tuple[list[str], str]:
    """Which big tables a plan scans (in full, or in index order), and notes on the rest.

    A `SCAN` over an index still walks it from one end; with a LIMIT it may stop
    early, which the note says, but how early depends on the data, so it is flagged.
    """
    full: list[str] = []
    notes: list[str] = []
    limited = " LIMIT " in f" {sql.upper()} "
    for line in lines:
        match = _SCAN.match(line.strip())
        if match is None:
            continue
        table, rest = match.group(1), match.group(2)
        if table in FTS_TABLES or "VIRTUAL TABLE" in rest:
            notes.append(f"{table}: FTS5 virtual table, keyed by rowid or MATCH")
        elif table in BIG_TABLES:
            full.append(table)
            how = f"scan{rest}" if rest else "full table scan"
            stop = ", may stop early at its LIMIT" if limited else ""
            notes.append(f"{table}: {how}{stop}: O(N)")
        elif table in SMALL_TABLES:
            notes.append(f"{table}: small table, a scan is fine")
        else:
            notes.append(f"{table}: scan{rest}")
    if any("TEMP B-TREE FOR ORDER BY" in line for line in lines):
        for line in lines:
            match = _SEARCH.match(line.strip())
            if match and match.group(1) in BIG_TABLES and "PRIMARY KEY (rowid" not in line:
                notes.append(f"{match.group(1)}: sorts every row matching{match.group(2)}")
    return full, "; ".join(dict.fromkeys(notes))


def explain(conn: sqlite3.Connection, statements: list[str]) -> list[Plan]:
    """One plan per distinct statement shape, in order of first execution."""
    firsts: dict[str, str] = {}
    calls: dict[str, int] = {}
    for sql in statements:
        key = shape(sql)
        firsts.setdefault(key, sql)
        calls[key] = calls.get(key, 0) + 1
    plans: list[Plan] = []
    for key, sql in firsts.items():
        head = sql.lstrip("- ").split(None, 1)[0].upper() if sql.strip("- ") else ""
        if head not in EXPLAINED:
            continue
        if head == "INSERT" and not sql.startswith("--") and "SELECT" not in sql.upper():
            plans.append(Plan(key, calls[key], [], [], "plain insert, no read"))
            continue
        lines = _plan_lines(conn, sql)
        full, note = judge(lines, sql)
        if sql.startswith("--"):
            note = "; ".join(filter(None, ["FTS5 internal statement", note]))
        plans.append(Plan(key, calls[key], lines, full, note))
    return plans


def capture(conn: sqlite3.Connection, operation: Callable[[], object]) -> list[Plan]:
    """Run `operation` once with tracing on and explain what it executed."""
    with traced(conn) as statements:
        operation()
    return explain(conn, statements)
