"""Gist first, deep on a signal, across processes: the CLI session of DESIGN §3 on
simulated time, one `aniso` process per command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import run_cli

DAY0 = "2026-01-05T10:00:00"
YOGA = [
    "My yoga studio is Lotus Flow on Rua Augusta in Lisbon",
    "Lotus Flow yoga classes start at 7 am on Tuesdays with Marta",
    "Marta says Lotus Flow will open a second yoga room in Lisbon in spring",
]
OTHER = [
    ("2026-01-08T18:00:00", "I need to repaint the kitchen cabinets this weekend"),
    ("2026-01-08T18:05:00", "Which paint works best on old oak cabinets"),
    ("2026-01-20T09:00:00", "My sister Ana is visiting in February"),
]
COMPACT_AT = ["2026-02-10T03:00:00", "2026-05-01T03:00:00", "2026-07-24T03:00:00"]  # day 200
LATER = "2026-07-24T12:00:00"
PASSING = "I walked past Lotus Flow yoga in Lisbon today"


def aniso(*args: str, now: str) -> subprocess.CompletedProcess[bytes]:
    result = run_cli("--now", now, "--model", "fake/x", *args, fake_reply="noted")
    assert result.returncode == 0, result.stderr.decode()
    return result


def blocks(now: str) -> tuple[dict, list[dict]]:
    """The yoga block (the first one) and the restored copies, from `memory list`."""
    listed = json.loads(aniso("memory", "list", "--json", now=now).stdout)["blocks"]
    first = next(block for block in listed if block["id"] == 1)
    return first, [block for block in listed if block["restored_from"] is not None]


def talk_then_compact() -> None:
    for minute, text in enumerate(YOGA):
        aniso("ask", text, now=f"2026-01-05T10:0{minute}:00")
    for at, text in OTHER:
        aniso("ask", text, now=at)
    for at in COMPACT_AT:
        aniso("compact", now=at)


@pytest.mark.parametrize(
    "follow_up",
    ["Tell me more about the Lotus Flow yoga classes", "tell me more about that"],
)
def test_an_old_topic_is_a_gist_until_the_user_asks_for_more(
    data_dir: Path, follow_up: str
) -> None:
    talk_then_compact()
    recalled = json.loads(aniso("memory", "recall", "--json", "yoga studio", now=LATER).stdout)
    gists = [item for item in recalled["items"] if item["block_id"] == 1]
    assert [item["form"] for item in gists] == ["gist"], recalled["items"]
    assert "Lotus Flow" in gists[0]["text"], "the capsule names its anchors"
    assert blocks(LATER)[0]["tier"] == "cold", "recall shows the gist and moves nothing"

    aniso("ask", PASSING, now=LATER)
    yoga, copies = blocks(LATER)
    assert (yoga["tier"], yoga["status"], copies) == ("cold", "active", []), "a mention"

    aniso("ask", follow_up, now="2026-07-24T12:03:00")
    yoga, copies = blocks(LATER)
    assert yoga["status"] == "restored"
    assert [(c["tier"], c["restored_from"], c["restored_from_tier"]) for c in copies] == [
        ("hot", 1, "cold")
    ]
    assert copies[0]["episodes"] == len(YOGA)
