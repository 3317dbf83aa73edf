"""The run's report: JSON for scripts, a Markdown table for people, a PNG bar chart.

Each metric of a variant is the mean over the scenarios where it applied; `n`
says over how many. A check that applied but was not run (a reply check under
`--replies off`) is counted apart as `not_run`, beside the mean of the rest, or with a
mean of None when none ran: a summary with unrun checks must never read as all
passed. The chart is drawn like the paper's Figure 2: metrics on the
x axis, one bar per variant (see `chart`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from aniso.scenarios.chart import draw_chart
from aniso.scenarios.checks import NOT_RUN

METRICS = (
    "privacy_leak",
    "stale_memory",
    "update_handling",
    "pref_match",
    "consistency",
    "format",
    "format_prompt",
    "expect",
    "correction",
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


Cell = dict[str, float | int | None]


@dataclass
class Report:
    model: str
    judge_model: str | None
    variants: list[str]
    suites: list[str]
    outcomes: list[Outcome] = field(default_factory=list)
    replies: bool = True

    def summary(self) -> dict[str, dict[str, Cell]]:
        """variant → metric → {"mean", "n"}, plus "not_run" when some checks were not run."""
        table: dict[str, dict[str, Cell]] = {}
        for variant in self.variants:
            row: dict[str, Cell] = {}
            for metric in METRICS:
                found = self._scores(variant, metric)
                scores = [s for s in found if s is not None and s is not NOT_RUN]
                skipped = sum(s is NOT_RUN for s in found)
                cell: Cell = {}
                if scores:
                    cell = {"mean": round(sum(scores) / len(scores), 3), "n": len(scores)}
                if skipped:
                    cell = {"mean": None, "n": 0, **cell, "not_run": skipped}
                if cell:
                    row[metric] = cell
            table[variant] = row
        return table

    def _scores(self, variant: str, metric: str) -> list[object]:
        """Each applicable score, None where the check did not apply, NOT_RUN where it
        applied but was not run."""
        found: list[object] = []
        for outcome in self.outcomes:
            if outcome.variant != variant:
                continue
            if metric in outcome.checks:
                check = outcome.checks[metric]
                found.append(NOT_RUN if check.get("status") == NOT_RUN else check["score"])
            elif outcome.judge and metric in outcome.judge.get("scores", {}):
                found.append(outcome.judge["scores"][metric])
        return found

    def not_run(self) -> int:
        """How many checks applied but were not run, over every outcome."""
        return sum(
            check.get("status") == NOT_RUN
            for outcome in self.outcomes
            for check in outcome.checks.values()
        )

    def as_dict(self) -> dict:
        return {
            "model": self.model,
            "judge_model": self.judge_model,
            "variants": self.variants,
            "suites": self.suites,
            "replies": "on" if self.replies else "off",
            "not_run": self.not_run(),
            "summary": self.summary(),
            "outcomes": [asdict(o) for o in self.outcomes],
        }

    def used_metrics(self) -> list[str]:
        summary = self.summary()
        return [m for m in METRICS if any(m in row for row in summary.values())]

    def markdown(self) -> str:
        summary = self.summary()
        metrics = self.used_metrics()
        model = f"`{self.model}`" if self.replies else "none (replies off)"
        lines = [
            f"# Scenario report ({', '.join(self.suites)})",
            "",
            f"Reply model: {model}; judge: `{self.judge_model or 'none'}`. "
            "Each cell: mean score in [0, 1] (scenarios where the check applied).",
            "",
        ]
        if self.not_run():
            lines += [f"**{not_run_notice(self.not_run())}**", ""]
        lines += [
            "| variant | " + " | ".join(metrics) + " |",
            "|---|" + "---|" * len(metrics),
        ]
        for variant, row in summary.items():
            cells = [markdown_cell(row.get(m)) for m in metrics]
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


def not_run_notice(count: int) -> str:
    return (
        f"NOT RUN: {count} check(s) that need a reply (replies were off); "
        "they are neither passed nor failed."
    )


def markdown_cell(cell: Cell | None) -> str:
    if cell is None:
        return "–"
    text = "" if cell["mean"] is None else f"{cell['mean']:.2f} ({int(cell['n'] or 0)})"
    if cell.get("not_run"):
        text = f"{text}, " if text else ""
        text += f"not run ({cell['not_run']})"
    return text
