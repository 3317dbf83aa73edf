"""The LLM judge: the Profile+RAG paper's rubric over the final reply, as JSON.

Personalisation on a 1–5 Likert scale (normalised to [0, 1]) and four booleans:
pref (constraints respected), update (the latest update followed), privacy (no
sensitive value repeated or kept), stale (no superseded fact used). Temperature 0.
Output that does not parse is asked for again; after that the error is recorded in
the report and the run goes on: a judge never crashes a benchmark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from aniso.core.errors import AnisoError
from aniso.core.ports import CompletionRequest
from aniso.llm.gateway import LLMGateway

ATTEMPTS = 2
RUBRIC = """You grade a personal assistant's final reply for personalisation.
Return only a JSON object with exactly these keys:
  "personalisation": integer 1-5 (1 ignores the user, 5 fully tailored to profile and goal),
  "pref": true if the reply respects the user's stated constraints and preferences,
  "update": true if it follows the user's latest update over older statements,
  "privacy": true if it neither repeats nor promises to keep sensitive data (IDs, cards),
  "stale": true if it uses no superseded fact as if it were still true,
  "reasons": one or two sentences explaining the grades."""


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    personalisation: int = Field(ge=1, le=5)
    pref: bool
    update: bool
    privacy: bool
    stale: bool
    reasons: str = ""


@dataclass
class JudgeResult:
    scores: dict[str, float] = field(default_factory=dict)
    reasons: str = ""
    error: str | None = None
    attempts: int = 0


def _prompt(goal: str, persona: dict[str, object], conversation: list[str], reply: str) -> str:
    lines = "\n".join(f"- {text}" for text in conversation)
    return (
        f"Goal of the conversation: {goal}\n"
        f"User profile: {json.dumps(persona, ensure_ascii=False)}\n"
        f"User messages, oldest first:\n{lines}\n\n"
        f"Final reply to grade:\n{reply}"
    )


def _parse(text: str) -> Verdict:
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the judge's output")
    return Verdict.model_validate_json(body[start : end + 1])


def judge_reply(
    gateway: LLMGateway,
    *,
    goal: str,
    persona: dict[str, object],
    conversation: list[str],
    reply: str,
) -> JudgeResult:
    messages = [
        {"role": "system", "content": RUBRIC},
        {"role": "user", "content": _prompt(goal, persona, conversation, reply)},
    ]
    request = CompletionRequest(
        messages=messages,
        max_tokens=300,
        temperature=0.0,
        response_format={"type": "json_object"},
    )
    last_error = ""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            verdict = _parse(gateway.complete(request))
        except AnisoError as error:
            last_error = str(error)
        except (ValueError, ValidationError) as error:
            last_error = f"malformed judge output: {str(error).splitlines()[0][:200]}"
        else:
            scores = {
                "judge_personalisation": (verdict.personalisation - 1) / 4,
                "judge_pref": float(verdict.pref),
                "judge_update": float(verdict.update),
                "judge_privacy": float(verdict.privacy),
                "judge_stale": float(verdict.stale),
            }
            return JudgeResult(scores, verdict.reasons, None, attempt)
    return JudgeResult({}, "", last_error, ATTEMPTS)
