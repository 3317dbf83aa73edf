#!/usr/bin/env python3
"""Choose a recall parameter by leave-one-out over LoCoMo-format conversations.

    .venv/bin/python scripts/sweep_recall.py NEIGHBOURS_FROM=0,1,2,3 \
        /work/shared/locomo/26.json /work/shared/locomo/30.json tests/data/locomo/*.json
    .venv/bin/python scripts/sweep_recall.py --tiers QUOTES_PER_BLOCK=0,1,2,3 ...

Each conversation is replayed once (with nightly compaction under `--tiers`) into a
base data dir; every value is then scored on a fresh copy of it, so a sweep costs one
replay, not one per value. A value is a module constant of `aniso.tiers.memory`.

For each fold the value is chosen on every conversation but one (the best mean of
recall@10 and recall within 1,000 tokens, ties to the value listed first) and scored
on the one left out: the gap between the two is what tuning would not carry over.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from aniso.bench import locomo
from aniso.core.settings import load_settings
from aniso.services import build
from aniso.tiers import memory as memory_module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("setting", help="NAME=v1,v2,... (a constant of aniso.tiers.memory)")
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--tiers", action="store_true")
    parser.add_argument(
        "--ablate",
        action="store_true",
        help="SETTING is NAME=v,NAME2=v2: score the defaults, then each one changed alone",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        configs = _configs(args.setting, ablate=args.ablate)
    except (AttributeError, ValueError) as error:
        print(f"sweep: {error}", file=sys.stderr)
        return 2
    labels = [_label(config) for config in configs]
    defaults = {name: getattr(memory_module, name) for config in configs for name in config}
    conversations = [locomo.load(path) for path in args.paths]
    table: dict[str, dict[str, dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="aniso-sweep-") as scratch:
        for conversation in conversations:
            base = Path(scratch) / conversation.name
            now = conversation.end + timedelta(days=1)
            services = build(load_settings({"data_dir": str(base)}))
            locomo._prepare(conversation, services, now=now, tiers=args.tiers)
            services.close()
            table[conversation.name] = {}
            for label, config in zip(labels, configs, strict=True):
                for name, value in {**defaults, **config}.items():
                    setattr(memory_module, name, value)
                copy = Path(scratch) / f"{conversation.name}-copy"
                shutil.copytree(base, copy)
                services = build(load_settings({"data_dir": str(copy)}))
                scores = locomo.Scores()
                recall = locomo.recaller(services, now=now, tiers=args.tiers, state={})
                locomo.score_conversation(
                    conversation, recall, scores, after_reply=services.memory.dense.push_held
                )
                services.close()
                shutil.rmtree(copy)
                categories = scores.report()["categories"]
                table[conversation.name][label] = {
                    "r10": categories["all"]["recall@10"],
                    "r1000": categories["all"]["recall@1000tok"],
                    "by_category": {
                        locomo.CATEGORY_NAMES.get(c, c): (v["recall@10"], v["recall@1000tok"])
                        for c, v in categories.items()
                        if c != "all"
                    },
                }
                print(conversation.name, label, table[conversation.name][label], flush=True)
    report: dict[str, Any] = {"setting": args.setting, "values": labels, "table": table}
    report["by_category"] = _by_category(table, labels)
    if not args.ablate:
        report["folds"] = _folds(table, labels)
    print(json.dumps(report, indent=2) if args.json else _text(report))
    return 0


def _configs(setting: str, *, ablate: bool) -> list[dict[str, object]]:
    if ablate:
        configs: list[dict[str, object]] = [{}]
        for part in setting.split(","):
            name, _, raw = part.partition("=")
            configs.append({name: _parse(_kind(name), raw)})
        return configs
    name, _, raw = setting.partition("=")
    return [{name: _parse(_kind(name), v)} for v in raw.split(",")]


def _kind(name: str) -> type:
    if not hasattr(memory_module, name):
        raise AttributeError(f"aniso.tiers.memory has no constant {name}")
    return type(getattr(memory_module, name))


def _label(config: dict[str, object]) -> str:
    if not config:
        return "defaults"
    return ",".join(f"{name}={value}" for name, value in config.items())


def _by_category(table: dict, labels: list[str]) -> dict[str, dict[str, list[float]]]:
    """Per value, per category: R@10 and R within 1,000 tokens, the mean over the
    conversations (each conversation counts once, whatever its number of questions)."""
    out: dict[str, dict[str, list[float]]] = {}
    for label in labels:
        sums: dict[str, list[float]] = {}
        for name in table:
            for category, pair in table[name][label]["by_category"].items():
                sums.setdefault(category, []).append(pair)
        out[label] = {
            category: [round(statistics.fmean(p[i] for p in pairs), 4) for i in (0, 1)]
            for category, pairs in sorted(sums.items())
        }
    return out


def _parse(kind: type, text: str) -> object:
    if kind is bool:
        return text.strip().lower() in {"1", "true", "yes"}
    return kind(text)


def _folds(table: dict, values: list[str]) -> list[dict]:
    def mean(names: list[str], value: str) -> float:
        return statistics.fmean(
            (table[n][value]["r10"] + table[n][value]["r1000"]) / 2 for n in names
        )

    folds = []
    for left_out in table:
        rest = [n for n in table if n != left_out]
        chosen = max(values, key=lambda v: (mean(rest, v), -values.index(v)))
        folds.append(
            {
                "left_out": left_out,
                "chosen": chosen,
                "tuned": round(mean(rest, chosen), 4),
                "held_out": round(mean([left_out], chosen), 4),
                "held_out_best": max(values, key=lambda v: mean([left_out], v)),
            }
        )
    return folds


def _text(report: dict) -> str:
    lines = [f"{report['setting']}: R@10 / R within 1,000 tokens"]
    for name, row in report["table"].items():
        cells = "  ".join(f"{v}: {c['r10']:.4f}/{c['r1000']:.4f}" for v, c in row.items())
        lines.append(f"  {name:<16} {cells}")
    for label, categories in report["by_category"].items():
        cells = "  ".join(f"{c}: {r10:.4f}/{r1000:.4f}" for c, (r10, r1000) in categories.items())
        lines.append(f"  {label:<28} {cells}")
    for fold in report.get("folds", []):
        lines.append(
            f"  leave out {fold['left_out']:<16} chosen {fold['chosen']:<6} "
            f"tuned {fold['tuned']:.4f}  held out {fold['held_out']:.4f}  "
            f"(best there: {fold['held_out_best']})"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
