"""Recall and precision of the guard on the labelled EN/RU/UK set (pytest -s prints it)."""

from __future__ import annotations

from collections import Counter

import pytest

from aniso.bench.evaluate import evaluate, format_report, load, packaged_dataset

DATASET = packaged_dataset()
MUST_RECALL = ("CREDIT_CARD", "RU_PASSPORT", "UA_PASSPORT", "IBAN", "EMAIL", "PHONE")


@pytest.fixture(scope="module")
def report() -> dict:
    result = evaluate(DATASET)
    print("\n" + format_report(result))
    return result


def test_dataset_is_big_varied_and_well_formed() -> None:
    records = load(DATASET)
    assert len(records) >= 300
    assert Counter(r["lang"] for r in records).keys() == {"en", "ru", "uk"}
    kinds = Counter(e["type"] for r in records for e in r["entities"])
    for kind in (*MUST_RECALL, "RU_INN", "RU_SNILS", "UA_ID_CARD", "SECRET"):
        assert kinds[kind] >= 20, kind
    negatives = [r for r in records if not r["entities"]]
    assert len(negatives) >= 100
    for record in records:
        for entity in record["entities"]:
            assert entity["value"] in record["text"], record


@pytest.mark.parametrize("kind", MUST_RECALL)
def test_recall(report: dict, kind: str) -> None:
    row = report["per_type"][kind]
    assert row["recall"] >= 0.98, (kind, row, [m for m in report["misses"] if m["type"] == kind])


def test_overall_precision(report: dict) -> None:
    assert report["precision"] >= 0.95, report["false_positives"]


def test_other_types_are_useful_too(report: dict) -> None:
    for kind in ("RU_INN", "RU_SNILS", "UA_ID_CARD", "SECRET"):
        assert report["per_type"][kind]["recall"] >= 0.9, kind


def test_report_holds_no_values(report: dict) -> None:
    for error in report["misses"] + report["false_positives"]:
        assert set(error) == {"line", "type"}
