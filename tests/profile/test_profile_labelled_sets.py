"""The labelled sets and probes load, and their labels name real fields and zones.

A label on a field the profile does not have, or a zone zoneinfo does not know, can
never be matched: the bench would count it as a miss forever and nobody would see why."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import available_timezones

import pytest

from aniso.bench.profile import load
from aniso.profile.model import Profile

DATA = Path(__file__).resolve().parents[1] / "data"
SETS = sorted(DATA.glob("profile_*.jsonl"))
KINDS = {"fact", "update", "mixed", "distractor"}


def test_the_sets_are_found() -> None:
    names = {path.name for path in SETS}
    assert {"profile_statements.jsonl", "profile_fresh_probe.jsonl"} <= names


@pytest.mark.parametrize("path", SETS, ids=lambda path: path.stem)
def test_every_label_names_a_field_and_a_known_zone(path: Path) -> None:
    fields = set(Profile.model_fields)
    zones = available_timezones() | {"Europe/Kiev"}  # the old name, as an alternative
    messages = load(path)
    assert messages
    for message in messages:
        where = f"{path.name} {message.thread}#{message.turn}"
        assert message.kind in KINDS, where
        assert message.text.strip(), where
        for labels in (message.expect, message.absent):
            assert set(labels) <= fields, where
            for label in labels.get("timezone", []):
                if label != "*":
                    assert set(label.split("|")) <= zones, where
