"""The run's report: JSON for scripts, a Markdown table for people, a PNG bar chart.

Each metric of a variant is the mean over the scenarios where it applied; `n`
says over how many. The chart is drawn like the paper's Figure 2: metrics on the
x axis, one bar per variant (see `chart`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from aniso.scenarios.chart import draw_chart

METRICS = (
    "privacy_leak",
    "stale_memory",
    "update_handling",
    "pref_match",
    "consistency",
    "format",
    "format_prompt",
    "expect",
    "judge_personalisation",
    "judge_pref",
    "judge_update",
    "judge_privacy",
    "judge_stale",
)


@dataclass
class Outcome:
    """One scenario under one variant."""

    suite: str
    scenario: str
    variant: str
    checks: dict[str, dict] = field(default_factory=dict)
    judge: dict | None = None
    turns: list[dict] = field(default_factory=list)


@dataclass
class Report:
    model: str
    judge_model: str | None
    variants: list[str]
    suites: list[str]
    outcomes: list[Outcome] = field(default_factory=list)

    def summary(self) -> dict[str, dict[str, dict[str, float]]]:
        """variant → metric → {"mean", "n"}."""
        table: dict[str, dict[str, dict[str, float]]] = {}
        for variant in self.variants:
            row: dict[str, dict[str, float]] = {}
            for metric in METRICS:
                scores = [s for s in self._scores(variant, metric) if s is not None]
                if scores:
                    row[metric] = {"mean": round(sum(scores) / len(scores), 3), "n": len(scores)}
            table[variant] = row
        return table

    def _scores(self, variant: str, metric: str) -> list[float | None]:
        found = []
        for outcome in self.outcomes:
            if outcome.variant != variant:
                continue
            if metric in outcome.checks:
                found.append(outcome.checks[metric]["score"])
            elif outcome.judge and metric in outcome.judge.get("scores", {}):
                found.append(outcome.judge["scores"][metric])
        return found

    def as_dict(self) -> dict:
        return {
            "model": self.model,
            "judge_model": self.judge_model,
            "variants": self.variants,
            "suites": self.suites,
            "summary": self.summary(),
            "outcomes": [asdict(o) for o in self.outcomes],
        }

    def used_metrics(self) -> list[str]:
        summary = self.summary()
        return [m for m in METRICS if any(m in row for row in summary.values())]

    def markdown(self) -> str:
        summary = self.summary()
        metrics = self.used_metrics()
        lines = [
            f"# Scenario report ({', '.join(self.suites)})",
            "",
            f"Reply model: `{self.model}`; judge: `{self.judge_model or 'none'}`. "
            "Each cell: mean score in [0, 1] (scenarios where the check applied).",
            "",
            "| variant | " + " | ".join(metrics) + " |",
            "|---|" + "---|" * len(metrics),
        ]
        for variant, row in summary.items():
            cells = [
                f"{row[m]['mean']:.2f} ({int(row[m]['n'])})" if m in row else "–" for m in metrics
            ]
            lines.append(f"| {variant} | " + " | ".join(cells) + " |")
        lines += ["", "## Failures and judge reasons", ""]
        for outcome in self.outcomes:
            notes = [
                f"{name}: {'; '.join(result['reasons'][:3])}"
                for name, result in outcome.checks.items()
                if result["score"] is not None and result["score"] < 1 and result["reasons"]
            ]
            if outcome.judge:
                judged = outcome.judge.get("error") or outcome.judge.get("reasons")
                if judged:
                    notes.append(f"judge: {judged}")
            if notes:
                lines.append(f"- **{outcome.scenario} / {outcome.variant}**: " + " | ".join(notes))
        return "\n".join(lines) + "\n"

    def write(self, out_dir: Path) -> dict[str, str]:
        out_dir.mkdir(parents=True, exist_ok=True)
        paths = {
            "json": out_dir / "report.json",
            "markdown": out_dir / "report.md",
            "chart": out_dir / "report.png",
        }
        paths["json"].write_text(
            json.dumps(self.as_dict(), ensure_ascii=False, indent=2), encoding="utf-8"
        )
        paths["markdown"].write_text(self.markdown(), encoding="utf-8")
        draw_chart(self, paths["chart"])
        return {kind: str(path) for kind, path in paths.items()}
