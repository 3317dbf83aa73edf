"""Hypothesis strategies for export documents: valid memories with every tier populated."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from aniso.tiers.model import TIERS

TEXT = st.text(
    alphabet=st.sampled_from(list("abcdefghij klmnopqrstuvwxyz,.!?АБВгдеёжз-'\"\\\n")),
    max_size=40,
)
WHEN = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)
FLOAT = st.floats(min_value=0, max_value=1, allow_nan=False)


@st.composite
def memories(draw: st.DrawFn) -> dict:
    """A valid export document with at least one block in every tier."""
    tiers = list(TIERS) + draw(st.lists(st.sampled_from(TIERS), max_size=3))
    next_episode = iter(range(1, 10_000))

    def episode() -> dict:
        return {
            "id": next(next_episode),
            "session": draw(st.sampled_from(["s1", "s2"])),
            "at": draw(WHEN).isoformat(),
            "user_text": draw(TEXT),
            "reply": draw(st.none() | TEXT),
            "status": draw(st.sampled_from(["pending", "answered", "failed"])),
            "error": None,
            "tokens": draw(st.integers(0, 500)),
            "pii_types": draw(st.lists(st.sampled_from(["PHONE", "EMAIL"]), unique=True)),
            "salience": draw(FLOAT),
            "ref": None,
            "origin_id": None,
        }

    blocks = {tier: [] for tier in TIERS}
    for block_id, tier in enumerate(tiers, start=1):
        created = draw(WHEN)
        blocks[tier].append(
            {
                "id": block_id,
                "tier": tier,
                "status": draw(st.sampled_from(["active", "restored"])),
                "created": created.isoformat(),
                "last_access": (created + timedelta(days=1)).isoformat(),
                "last_episode_at": created.isoformat(),
                "access_count": draw(st.integers(0, 9)),
                "size": draw(st.integers(0, 30)),
                "markers": {k: draw(st.booleans()) for k in ("important", "open", "pinned")},
                "summary": "" if tier == "hot" else draw(TEXT),
                "keywords": draw(st.lists(TEXT.filter(str.strip), max_size=3)),
                "anchors": draw(st.lists(TEXT.filter(str.strip), max_size=2)),
                "pointers": draw(st.lists(st.integers(1, len(tiers)), max_size=3)),
                "kept_share": draw(FLOAT),
                "restored_from": None,
                "version": draw(st.integers(0, 5)),
                "centroid": None,
                "terms": sorted(set(draw(st.lists(st.sampled_from(["yoga", "porto"]))))),
                "episodes": [episode() for _ in range(draw(st.integers(0, 3)))],
                "archive": [
                    {
                        "archived_at": draw(WHEN).isoformat(),
                        "status": "archived",
                        "episode": episode(),
                    }
                    for _ in range(draw(st.integers(0 if tier == "hot" else 1, 2)))
                ],
            }
        )
    pairs = draw(
        st.lists(
            st.tuples(st.integers(1, len(tiers)), st.integers(1, len(tiers))).filter(
                lambda p: p[0] < p[1]
            ),
            unique=True,
            max_size=4,
        )
    )
    return {
        "format": "aniso-export",
        "schema_version": 1,
        "profile": [
            {
                "id": i,
                "field": draw(st.sampled_from(["name", "likes", "diet"])),
                "value": {"value": v, "said": v, "evidence": draw(TEXT)},
                "since": draw(WHEN).isoformat(),
                "source_episode": None,
                "source": draw(st.sampled_from(["rules", "hand", "import"])),
                "ended": None,
                "ended_by_episode": None,
                "ended_reason": None,
            }
            for i, v in enumerate(draw(st.lists(TEXT, max_size=3)), start=1)
        ],
        "tiers": blocks,
        "loose_episodes": [episode() for _ in range(draw(st.integers(0, 1)))],
        "links": [
            {
                "a": a,
                "b": b,
                "weight": draw(FLOAT),
                "uses": 0,
                "reason": "terms",
                "updated": draw(WHEN).isoformat(),
            }
            for a, b in pairs
        ],
        "tier_events": [
            {
                "id": 1,
                "at": draw(WHEN).isoformat(),
                "block_id": 1,
                "kind": "migrate",
                "from_tier": "hot",
                "to_tier": "warm",
                "detail": {"archived": 2},
            }
        ],
    }


def sample_document() -> dict:
    """A fixed, valid document: one block per tier, archives, a link, an event, a profile."""
    at = "2026-01-05T19:00:00+00:00"

    def episode(number: int, text: str) -> dict:
        return {
            "id": number,
            "session": "s1",
            "at": at,
            "user_text": text,
            "reply": "Noted.",
            "status": "answered",
            "error": None,
            "tokens": 9,
            "pii_types": [],
            "salience": 0.5,
            "ref": None,
            "origin_id": None,
        }

    def block(number: int, tier: str, summary: str) -> dict:
        archived = (
            []
            if tier == "hot"
            else [
                {"archived_at": at, "status": "archived", "episode": episode(10 + number, summary)}
            ]
        )
        return {
            "id": number,
            "tier": tier,
            "status": "active",
            "created": at,
            "last_access": at,
            "last_episode_at": at,
            "access_count": 1,
            "size": 2,
            "markers": {"important": False, "open": False, "pinned": False},
            "summary": "" if tier == "hot" else summary,
            "keywords": ["yoga"],
            "anchors": ["Lisbon"],
            "pointers": [],
            "kept_share": 0.5,
            "restored_from": None,
            "version": 1,
            "centroid": None,
            "terms": ["yoga"],
            "episodes": [episode(number, f"{summary} in full")],
            "archive": archived,
        }

    return {
        "format": "aniso-export",
        "schema_version": 1,
        "profile": [
            {
                "id": 1,
                "field": "likes",
                "value": {"value": "tea", "said": "tea", "evidence": ""},
                "since": at,
                "source_episode": 1,
                "source": "rules",
                "ended": None,
                "ended_by_episode": None,
                "ended_reason": None,
            }
        ],
        "tiers": {
            "hot": [block(1, "hot", "Yoga in Lisbon")],
            "warm": [block(2, "warm", "A trip to Porto")],
            "cold": [block(3, "cold", "That was about a bicycle")],
        },
        "loose_episodes": [],
        "links": [{"a": 1, "b": 2, "weight": 0.5, "uses": 0, "reason": "time", "updated": at}],
        "tier_events": [
            {
                "id": 1,
                "at": at,
                "block_id": 3,
                "kind": "migrate",
                "from_tier": "hot",
                "to_tier": "cold",
                "detail": {"archived": 1},
            }
        ],
    }
