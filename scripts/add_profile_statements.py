"""Append a new batch of labelled messages to the profile set, split by the set's rule.

    .venv/bin/python scripts/add_profile_statements.py BATCH.jsonl [...] [--data FILE]

Each message gets its part (`aniso.bench.profile.split_of`, a hash of the thread id)
before anyone reads the batch, so the test part of a new batch is as unseen as the old
one. A batch that does not parse, reuses a thread id already in the set, or has keys
the set does not know is refused whole, and the set is left as it was.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "profile_statements.jsonl"
KEYS = {"thread", "turn", "lang", "split", "kind", "text", "expect", "absent", "why"}


def main() -> int:
    from aniso.bench.profile import KINDS, load, split_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("batches", nargs="+", type=Path)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    held = {m.thread for m in load(args.data)}
    lines: list[str] = []
    for batch in args.batches:
        for number, line in enumerate(batch.read_text("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except ValueError as error:
                print(f"{batch.name} line {number}: {error}", file=sys.stderr)
                return 1
            problem = (
                f"unknown keys {sorted(set(raw) - KEYS)}"
                if set(raw) - KEYS
                else f"thread {raw.get('thread')!r} is already in the set"
                if raw.get("thread") in held
                else f"unknown kind {raw.get('kind')!r}"
                if raw.get("kind") not in KINDS
                else ""
            )
            if problem:
                print(f"{batch.name} line {number}: {problem}", file=sys.stderr)
                return 1
            raw["split"] = split_of(str(raw["thread"]))
            lines.append(json.dumps(raw, ensure_ascii=False))
    with args.data.open("a", encoding="utf-8") as out:
        out.write("".join(line + "\n" for line in lines))
    load(args.data)  # the enlarged set must still parse as the bench reads it
    test = sum(json.loads(line)["split"] == "test" for line in lines)
    print(f"appended {len(lines)} messages ({len(lines) - test} train, {test} test)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
