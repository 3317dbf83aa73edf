"""Train the profile gate (`aniso.profile.gate`) on the train part of the labelled set.

    .venv/bin/python scripts/train_profile_gate.py [--data FILE] [--out FILE] [--cv-report]

Two logistic models, both L2-regularised and fitted with numpy:

1. **The message model** reads a whole message and answers: does it say nothing about the
   user's standing preferences (a distractor)? Every train message is an example, so it
   sees ten times the data the proposal model sees, and it reads across sentences
   ("my coworker is vegan. She says..."). Its out-of-fold probability becomes a feature
   of every proposal of that message.
2. **The proposal model** scores each op the finders proposed (`understand.candidates`),
   labelled from the message's labels: positive when it starts a value the message
   `expect`s or removes one it says must be `absent`; negative when the message is a
   distractor or the value must be absent; otherwise a weak negative (weight 0.5), since
   a labeller can forget a fact.

Folds are threads (a thread never straddles folds). The regularisation and the
thresholds are chosen by 5-fold cross-validation: the best F-beta (beta 0.75: a wrong
change costs the user more than a missed one) among the settings whose distractor
messages change the profile at most FALSE_UPDATES of the time. The held-out figure is
`aniso bench profile` on the test part, which this script never reads.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "profile_statements.jsonl"
OUT = ROOT / "profile" / "data" / "gate.json"
L2 = 0.1
"""Fixed, not searched. Searching (0.03, 0.1, 0.3, 1.0) on the same folds chose 1.0 for
one set of proposals and 0.1 for a nearly equal one, and in nested cross-validation the
choice changed from fold to fold (1.0, 0.1, 1.0, 0.3, 0.3) and cost recall (0.578
against 0.612 with 0.1 fixed). 0.1 was the best fixed value in nested CV with both the
old features and the new."""
MESSAGE_L2 = 0.1
THRESHOLDS = tuple(round(0.2 + 0.05 * i, 2) for i in range(13))
FOLDS = 5
FIELD_MIN = 40
"""A field needs this many proposals in the train part to get a threshold of its own."""
MIN_COUNT = 2
BETA = 0.75
FALSE_UPDATES = 0.02
"""At most this share of the train part's distractor messages may change the profile in
cross-validation. It sits under the 3% target because thresholds chosen on the same
out-of-fold scores they are judged by read optimistic: with a threshold per field, the
test part ran one to two points above this estimate (1.1-1.8 points in the last four
gates), so 0.025 leaves the target to chance. At 0.025 the search also raised the rule
tables' threshold to its cap (0.5), and a MemPersonal constraint ("избегай молочных
перекусов", 0.48) was lost; at 0.02 nested CV reads 0.683 captured, 0.928 kept out and
1.8% false updates (DESIGN-NOTES.md, the profile extractor)."""
RULES_MAX = 0.45
"""The rule tables' proposals pass from this probability at the latest: their patterns
are precise, and the bundled MemPersonal scenarios (requests that carry constraints:
"составь рутину, у меня есть время 06:30-08:30") depend on them. 0.45 is the cut the
search chose on its own before the batch of things said in passing (en13/ru13/uk13);
with that batch it rose to the old cap, 0.5, and "Добавь короткую медитацию и избегай
молочных перекусов" (0.47) was lost. Nested CV reads the two caps alike: 0.7239 /
0.848 / 0.923 / 2.72% at 0.45, 0.7226 / 0.851 / 0.923 / 2.65% at 0.5."""
NOTE_MAX = 0.5
"""A standing note (a clause with "always", "никогда", "no emojis": `slots.notes`, origin
"notes") passes once the gate finds it more likely right than wrong, whatever the notes
field's cut. Such a statement is to be kept in the user's words, never dropped (a wrong
one costs one undo and changes no typed field), and the per-field search had left notes
at the global cut, 0.8, which let through 36 of the 119 right notes out of fold. Not
searched: 0.5 is where a note is likelier right than wrong, and the notes field is left
out of the per-field search (`by_field`), so one-off orders ("request") keep the global
cut. Nested CV 0.7271 / 0.850 / 0.923 / 2.65% -> 0.7322 / 0.846 / 0.925 / 2.95%, notes
captured 0.41 -> 0.49 (DESIGN-NOTES.md, standing notes)."""
REMOVE_MAX = 0.15
"""A removal passes unless the gate is sure it is wrong: removing what the profile does
not hold changes nothing, so a removal can only act on what the user is talking about,
and "острая еда больше не подходит" must never lose to a threshold tuned for adds. Nested
CV on the train part, captured / precision / kept out / false updates: 0.35 gave 0.7331
/ 0.8425 / 0.9246 / 2.95%, 0.25 0.7325 / 0.8427 / 0.9254 / 2.87%, 0.15 and 0.1 both
0.7322 / 0.8436 / 0.927 / 2.87%: the highest value of the plateau is kept."""


@dataclass
class Example:
    """One proposal of one train message, as the proposal model sees it."""

    thread: str
    message: int
    features: list[str]
    label: float
    weight: float
    distractor: str
    """The distractor message's key, or "" when the message is not a distractor."""


def train_messages(path: Path) -> list:  # type: ignore[type-arg]
    from aniso.bench.profile import load

    return [m for m in load(path) if m.split == "train"]


def examples(messages: list) -> list[Example]:  # type: ignore[type-arg]
    from aniso.bench.profile import matches
    from aniso.profile.understand import candidates

    found = []
    states = held_before(messages)
    for index, message in enumerate(messages):
        for candidate in candidates(message.text):
            op = candidate.op
            expect = message.expect.get(op.field, [])
            absent = message.absent.get(op.field, [])
            if op.kind == "remove":
                right = message.kind != "distractor" and any(
                    label == "*" or matches(label, op.value) for label in absent
                )
                wrong = message.kind == "distractor"
            else:
                right = any(matches(label, op.value) for label in expect)
                wrong = message.kind == "distractor" or any(
                    label != "*" and matches(label, op.value) for label in absent
                )
            label, weight = (1.0, 1.0) if right else (0.0, 2.0 if wrong else 0.5)
            key = f"{message.thread}#{message.turn}" if message.kind == "distractor" else ""
            features = candidate.features(held=states[index])
            found.append(Example(message.thread, index, features, label, weight, key))
    return found


def held_before(messages: list) -> list[dict[str, list[str]]]:  # type: ignore[type-arg]
    """The profile each message meets, replayed from the labels of the thread so far: the
    values stated (a label's first alternative) less those said to be wrong. The
    extractor at run time meets the profile it built itself, which misses some of these;
    the labels are what the gate should learn an update from."""
    from aniso.bench.profile import matches
    from aniso.profile.model import is_list_field

    states: list[dict[str, list[str]]] = []
    state: dict[str, list[str]] = {}
    thread = None
    for message in messages:
        if message.thread != thread:
            state, thread = {}, message.thread
        states.append({k: list(v) for k, v in state.items() if v})
        for name, labels in message.expect.items():
            values = [label.split("|")[0].strip() for label in labels if label != "*"]
            kept = state.get(name, []) if is_list_field(name) else []
            state[name] = list(dict.fromkeys(kept + values)) if is_list_field(name) else values[-1:]
        for name, labels in message.absent.items():
            state[name] = [
                v
                for v in state.get(name, [])
                if not any(matches(label, v) for label in labels if label != "*")
                and not ("*" in labels and not message.expect.get(name))
            ]
    return states


def fit(rows: Rows, y: np.ndarray, w: np.ndarray, l2: float, steps: int = 400) -> np.ndarray:
    """Weights (bias last) by gradient descent with Adam over a sparse matrix: a proposal
    has a few dozen features out of thousands, so products are sums over its own."""
    theta = np.zeros(rows.width)
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    total = w.sum()
    for step in range(1, steps + 1):
        p = 1 / (1 + np.exp(-np.clip(rows.dot(theta), -30, 30)))
        grad = rows.t_dot((p - y) * w) / total + l2 * np.r_[theta[:-1], 0.0] / len(y) * 10
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        theta -= 0.1 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return theta


def named(feature: str) -> tuple[str, float]:
    """A feature's name and value: "name=value" carries a value (the message model's
    log-odds), any other name is 1."""
    name, _, value = feature.partition("=")
    return name, float(value) if value else 1.0


def vocabulary(rows: list[list[str]]) -> dict[str, int]:
    counts = Counter(named(feature)[0] for features in rows for feature in set(features))
    kept = sorted(name for name, count in counts.items() if count >= MIN_COUNT)
    return {name: j for j, name in enumerate(kept)}


@dataclass
class Rows:
    """A sparse matrix with a bias column last, as coordinate lists."""

    row: np.ndarray
    column: np.ndarray
    value: np.ndarray
    height: int
    width: int

    def dot(self, theta: np.ndarray) -> np.ndarray:
        return np.bincount(self.row, weights=theta[self.column] * self.value, minlength=self.height)

    def t_dot(self, r: np.ndarray) -> np.ndarray:
        return np.bincount(self.column, weights=r[self.row] * self.value, minlength=self.width)


def matrix(rows: list[list[str]], vocab: dict[str, int]) -> Rows:
    row, column, value = [], [], []
    for i, features in enumerate(rows):
        found = {vocab[n]: x for n, x in map(named, features) if n in vocab}
        found[len(vocab)] = 1.0
        for j, x in sorted(found.items()):
            row.append(i)
            column.append(j)
            value.append(x)
    return Rows(
        np.array(row, dtype=np.int64),
        np.array(column, dtype=np.int64),
        np.array(value, dtype=np.float64),
        len(rows),
        len(vocab) + 1,
    )


def predict(theta: np.ndarray, rows: list[list[str]], vocab: dict[str, int]) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(matrix(rows, vocab).dot(theta), -30, 30)))


def fitted(
    rows: list[list[str]], y: np.ndarray, w: np.ndarray, l2: float
) -> tuple[np.ndarray, dict[str, int]]:
    vocab = vocabulary(rows)
    return fit(matrix(rows, vocab), y, w, l2), vocab


def out_of_fold(
    rows: list[list[str]], y: np.ndarray, w: np.ndarray, fold: np.ndarray, l2: float
) -> np.ndarray:
    """Each row's probability from a model trained on the other folds (of those present)."""
    predictions = np.zeros(len(y))
    for k in sorted(set(fold.tolist())):
        train, held = fold != k, fold == k
        picked = [rows[i] for i in np.flatnonzero(train)]
        theta, vocab = fitted(picked, y[train], w[train], l2)
        predictions[held] = predict(theta, [rows[i] for i in np.flatnonzero(held)], vocab)
    return predictions


def score(y: np.ndarray, w: np.ndarray, p: np.ndarray, threshold: np.ndarray | float) -> float:
    """F-beta, false accepts weighted by how wrong they are."""
    accept = p >= threshold
    tp = float((accept & (y == 1)).sum())
    fp = float(w[accept & (y == 0)].sum())
    fn = float((~accept & (y == 1)).sum())
    beta2 = BETA**2
    return (1 + beta2) * tp / ((1 + beta2) * tp + beta2 * fn + fp) if tp else 0.0


def fold_of(thread: str) -> int:
    """The fold of a thread. The train/test split already takes `crc32 % 5` (a thread is
    in the test part when it is below 2), so the train part only ever has three of its
    values: the folds use the hash's next digit in base 5, which the split leaves free."""
    return zlib.crc32(thread.encode()) // 5 % FOLDS


@dataclass
class Choice:
    l2: float
    threshold: float
    rules_threshold: float
    fbeta: float
    false_updates: float
    field_thresholds: dict[str, float] = field(default_factory=dict)


def _capped(cut: np.ndarray, removal: np.ndarray, standing: np.ndarray) -> np.ndarray:
    """The cuts under the caps that hold whatever the search chose, as `gate.Model.cut`
    applies them: a removal's (`REMOVE_MAX`) and a standing note's (`NOTE_MAX`)."""
    cut = np.where(removal, np.minimum(cut, REMOVE_MAX), cut)
    return np.where(standing, np.minimum(cut, NOTE_MAX), cut)


def choose(
    found: list[Example], predictions_by_l2: dict[float, np.ndarray], distractors: int
) -> Choice:
    y = np.array([e.label for e in found])
    w = np.array([e.weight for e in found])
    keys = np.array([e.distractor for e in found])
    # The rule tables' proposals may pass at another threshold than the finders'.
    ruled = np.array(["o:rules" in e.features for e in found])
    removal = np.array(["k:remove" in e.features for e in found])
    standing = np.array(["o:notes" in e.features for e in found])
    results = []
    for l2, predictions in predictions_by_l2.items():
        for threshold in THRESHOLDS:
            for rules_threshold in (t for t in THRESHOLDS if t <= min(threshold, RULES_MAX)):
                cut = _capped(np.where(ruled, rules_threshold, threshold), removal, standing)
                changed = len(set(keys[(predictions >= cut) & (keys != "")]))
                results.append(
                    Choice(
                        l2,
                        threshold,
                        rules_threshold,
                        score(y, w, predictions, cut),
                        changed / max(1, distractors),
                    )
                )
    # The best F-beta among the settings within the false-update budget; the safest if
    # none is.
    allowed = [c for c in results if c.false_updates <= FALSE_UPDATES]
    if allowed:
        best = max(allowed, key=lambda c: c.fbeta)
    else:
        best = min(results, key=lambda c: c.false_updates)
    return by_field(found, predictions_by_l2[best.l2], distractors, best)


def by_field(
    found: list[Example], predictions: np.ndarray, distractors: int, choice: Choice
) -> Choice:
    """The finders' threshold per field, by steepest ascent from the global one: each
    step moves the one field to the threshold that most raises cross-validated F-beta
    while the distractor budget still holds. A place after "live in" is surer evidence than a
    liked food, and one threshold for both costs recall in one and false updates in the
    other."""
    y = np.array([e.label for e in found])
    w = np.array([e.weight for e in found])
    keys = np.array([e.distractor for e in found])
    ruled = np.array(["o:rules" in e.features for e in found])
    removal = np.array(["k:remove" in e.features for e in found])
    standing = np.array(["o:notes" in e.features for e in found])
    fields = np.array([next(f[2:] for f in e.features if f.startswith("f:")) for e in found])
    chosen: dict[str, float] = {}

    def evaluate(thresholds: dict[str, float]) -> tuple[float, float]:
        cut = np.array([thresholds.get(f, choice.threshold) for f in fields])
        cut = _capped(np.where(ruled, choice.rules_threshold, cut), removal, standing)
        changed = len(set(keys[(predictions >= cut) & (keys != "")]))
        return score(y, w, predictions, cut), changed / max(1, distractors)

    best, spent = evaluate(chosen)
    # Notes are left at the global cut: a standing note has its own (`NOTE_MAX`), and a
    # one-off order ("request") is to keep the cut it had, not the one the search would
    # lower for the standing notes' sake.
    names = [
        str(n)
        for n in sorted(set(fields[~ruled]))
        if (fields == n).sum() >= FIELD_MIN and n != "notes"
    ]
    while True:  # steepest ascent: the one move that gains most, until none gains
        moves = []
        for name in names:
            for threshold in THRESHOLDS:
                trial = {**chosen, name: threshold}
                fbeta, false_updates = evaluate(trial)
                if fbeta > best + 1e-9 and false_updates <= max(FALSE_UPDATES, spent):
                    moves.append((fbeta, -false_updates, name, threshold))
        if not moves:
            break
        fbeta, negative, name, threshold = max(moves)
        chosen, best, spent = {**chosen, name: threshold}, fbeta, -negative
    return Choice(
        choice.l2, choice.threshold, choice.rules_threshold, best, spent,
        {k: v for k, v in sorted(chosen.items()) if v != choice.threshold},
    )  # fmt: skip


def with_message(found: list[Example], message_p: np.ndarray) -> list[list[str]]:
    from aniso.profile import gate

    rows = []
    for example in found:
        field = next(f[2:] for f in example.features if f.startswith("f:"))
        if "o:rules" in example.features:  # as `understand.Candidate.features` does
            rows.append(example.features)
            continue
        rows.append(
            example.features + gate.message_features(float(message_p[example.message]), field)
        )
    return rows


@dataclass
class Trained:
    """Both models and the thresholds, chosen on one set of train messages."""

    choice: Choice
    theta: np.ndarray
    vocab: dict[str, int]
    message_theta: np.ndarray
    message_vocab: dict[str, int]

    def model(self):  # type: ignore[no-untyped-def]
        from aniso.profile import gate

        return gate.Model(
            weights={n: float(self.theta[j]) for n, j in self.vocab.items()},
            bias=float(self.theta[-1]),
            threshold=self.choice.threshold,
            rules_threshold=self.choice.rules_threshold,
            remove_threshold=REMOVE_MAX,
            note_threshold=NOTE_MAX,
            field_thresholds=self.choice.field_thresholds,
            message_weights={
                n: float(self.message_theta[j]) for n, j in self.message_vocab.items()
            },
            message_bias=float(self.message_theta[-1]),
        )


def train(messages: list, found: list[Example]) -> Trained:  # type: ignore[type-arg]
    """Everything chosen from `messages` alone (`found` are their proposals): the message
    model's out-of-fold verdicts, the proposal model's out-of-fold scores, the thresholds
    on those, then both models fitted on all of them."""
    from aniso.profile import gate

    # 1. The message model, and its out-of-fold probability for every message.
    message_rows = [gate.message_words(m.text) for m in messages]
    message_y = np.array([1.0 if m.kind == "distractor" else 0.0 for m in messages])
    message_w = np.ones(len(messages))
    message_fold = np.array([fold_of(m.thread) for m in messages])
    message_p = out_of_fold(message_rows, message_y, message_w, message_fold, MESSAGE_L2)
    # 2. The proposal model over proposal features plus the message's probability.
    rows = with_message(found, message_p)
    y = np.array([e.label for e in found])
    w = np.array([e.weight for e in found])
    fold = np.array([fold_of(e.thread) for e in found])
    predictions = {L2: out_of_fold(rows, y, w, fold, L2)}
    distractors = sum(m.kind == "distractor" for m in messages)
    choice = choose(found, predictions, distractors)
    message_theta, message_vocab = fitted(message_rows, message_y, message_w, MESSAGE_L2)
    theta, vocab = fitted(rows, y, w, choice.l2)
    return Trained(choice, theta, vocab, message_theta, message_vocab)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--cv-report",
        action="store_true",
        help="Also score the whole extractor on each fold with models and thresholds chosen "
        "without it (nested): the figures to develop against, since the test part must "
        "stay unseen.",
    )
    args = parser.parse_args()
    messages = train_messages(args.data)
    found = examples(messages)
    if not found:
        print(f"no train messages in {args.data}", file=sys.stderr)
        return 1
    if args.cv_report:
        cross_validate(messages, found)
    trained = train(messages, found)
    choice, theta = trained.choice, trained.theta
    model = {
        "about": "profile gate: two logistic models (scripts/train_profile_gate.py)",
        "l2": choice.l2,
        "threshold": choice.threshold,
        "rules_threshold": choice.rules_threshold,
        "remove_threshold": REMOVE_MAX,
        "note_threshold": NOTE_MAX,
        "field_thresholds": choice.field_thresholds,
        "cv_fbeta": round(choice.fbeta, 4),
        "cv_false_updates": round(choice.false_updates, 4),
        "examples": len(found),
        "positives": int(sum(e.label for e in found)),
        "messages": len(messages),
        "bias": round(float(theta[-1]), 4),
        "weights": _rounded(theta, trained.vocab),
        "message": {
            "bias": round(float(trained.message_theta[-1]), 4),
            "weights": _rounded(trained.message_theta, trained.message_vocab),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(
        f"{len(messages)} train messages, {len(found)} proposals ({model['positives']} right); "
        f"l2 {choice.l2}, chose threshold {choice.threshold} (rules {choice.rules_threshold}; "
        f"by field {choice.field_thresholds}) by "
        f"{FOLDS}-fold CV over threads (F{BETA} {choice.fbeta:.3f}, distractors changing the "
        f"profile {choice.false_updates:.3f}); {len(model['weights'])} + "
        f"{len(model['message']['weights'])} weights -> {args.out}"
    )
    return 0


def _rounded(theta: np.ndarray, vocab: dict[str, int]) -> dict[str, float]:
    kept = {name: round(float(theta[j]), 4) for name, j in vocab.items() if abs(theta[j]) >= 1e-3}
    return dict(sorted(kept.items()))


def cross_validate(messages: list, found: list[Example]) -> None:  # type: ignore[type-arg]
    """Print the bench figures of the train part, each fold judged by models *and
    thresholds* chosen on the other four (nested: thresholds picked on the scores they
    are judged by read optimistic), and keep the out-of-fold misses in
    /tmp/cv_misses.json to read."""
    from aniso.bench.profile import Report, evaluate
    from aniso.profile import gate

    total = Report()
    original = gate.load
    try:
        for k in range(FOLDS):
            kept = [i for i, m in enumerate(messages) if fold_of(m.thread) != k]
            index = {old: new for new, old in enumerate(kept)}
            inner = [
                Example(e.thread, index[e.message], e.features, e.label, e.weight, e.distractor)
                for e in found
                if e.message in index
            ]
            trained = train([messages[i] for i in kept], inner)
            model = trained.model()
            gate.load = lambda model=model: model  # type: ignore[assignment]
            held = [m for m in messages if fold_of(m.thread) == k]
            _add(total, evaluate(held))
            print(f"  fold {k}: threshold {trained.choice.threshold}", file=sys.stderr)
    finally:
        gate.load = original  # type: ignore[assignment]
    print("cross-validated (nested) on the train part:", json.dumps(total.overall.figures()))
    for name, slices in (
        ("lang", total.by_lang),
        ("field", total.by_field),
        ("kind", total.by_kind),
    ):
        for key, tally in sorted(slices.items()):
            print(f"  {name} {key}:", json.dumps(tally.figures()))
    misses = Path(os.environ.get("CV_MISSES", "/tmp/cv_misses.json"))
    misses.write_text(json.dumps(total.misses, ensure_ascii=False, indent=1))


def _add(total, part) -> None:  # type: ignore[no-untyped-def]
    for name in vars(part.overall):
        setattr(total.overall, name, getattr(total.overall, name) + getattr(part.overall, name))
    for slices in ("by_lang", "by_field", "by_kind"):
        for key, tally in getattr(part, slices).items():
            into = getattr(total, slices)[key]
            for name in vars(tally):
                setattr(into, name, getattr(into, name) + getattr(tally, name))
    total.misses += part.misses


if __name__ == "__main__":
    sys.exit(main())
