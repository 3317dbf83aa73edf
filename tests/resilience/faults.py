"""A fault-injecting LLM, plugged in through the production seam: a litellm custom provider.

Each call to the model `faulty/...` takes the next step of a script: a reply text, or
a fault. The faults are what real providers do to us:

- `timeout`, `429`, `500`, `refused`: the call fails before any text, with the error
  litellm raises for a read timeout, a rate limit, a server error and a refused
  connection;
- `cut`: a stream that sends part of its reply, then drops the connection;
- `malformed`: an answer that is not the JSON the caller asked for;
- `wrong-schema`: valid JSON that does not match the requested schema;
- `auth`: a rejected API key, quoting the key back (as some providers do), read from
  `OPENAI_API_KEY`.

`python -m`-free use in a subprocess: `fault_runner.py` reads the script from the
`FAULT_SCRIPT` environment variable (a JSON list), so `aniso ask` itself can be
tested against every fault.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

PROVIDER = "faulty"
MODEL = f"{PROVIDER}/model"
FAULTS = ("timeout", "429", "500", "refused", "cut", "malformed", "wrong-schema", "auth")
CUT_TEXT = "The first half of a reply that never"
MALFORMED = '{"ops": [{"kind": "set", "field": "diet", "value": '
WRONG_SCHEMA = '{"answer": 42, "ops": "none"}'


@dataclass
class FaultyLLM:
    """Plays its script in order; when the script is exhausted, replies `default`."""

    default: str = "A calm answer."
    script: deque[str] = field(default_factory=deque)
    calls: list[dict[str, Any]] = field(default_factory=list)

    def then(self, *steps: str) -> FaultyLLM:
        self.script.extend(steps)
        return self

    def next_step(self, kwargs: dict[str, Any], *, stream: bool) -> str:
        self.calls.append(
            {
                "stream": stream,
                "messages": [dict(m) for m in kwargs["messages"]],
                "timeout": kwargs.get("timeout"),
            }
        )
        return self.script.popleft() if self.script else self.default

    @property
    def faults_left(self) -> int:
        return sum(1 for step in self.script if step in FAULTS)


def raise_fault(step: str, model: str) -> None:
    """Raise what litellm raises for `step`; return for the steps that are not errors."""
    from litellm import exceptions

    provider = PROVIDER
    if step == "timeout":
        raise exceptions.Timeout(
            "Request timed out after 1.0 s", model=model, llm_provider=provider
        )
    if step == "429":
        raise exceptions.RateLimitError(
            "429 Too Many Requests: rate limit reached", llm_provider=provider, model=model
        )
    if step == "500":
        raise exceptions.InternalServerError(
            "500 Internal Server Error", llm_provider=provider, model=model
        )
    if step == "auth":
        key = os.environ.get("OPENAI_API_KEY", "")
        raise exceptions.AuthenticationError(
            f"401 Incorrect API key provided: {key}", llm_provider=provider, model=model
        )
    if step == "refused":
        raise exceptions.APIConnectionError(
            "[Errno 111] Connection refused", llm_provider=provider, model=model
        )


def _text_of(step: str) -> str:
    if step == "malformed":
        return MALFORMED
    if step == "wrong-schema":
        return WRONG_SCHEMA
    return step


def make_handler(llm: FaultyLLM) -> Any:
    from litellm import CustomLLM
    from litellm.types.utils import GenericStreamingChunk, ModelResponse

    def chunk(text: str, *, last: bool = False) -> GenericStreamingChunk:
        return GenericStreamingChunk(
            text=text,
            is_finished=last,
            finish_reason="stop" if last else "",
            usage=None,
            index=0,
            tool_use=None,
        )

    class Handler(CustomLLM):
        def completion(self, *args: Any, **kwargs: Any) -> ModelResponse:
            step = llm.next_step(kwargs, stream=False)
            raise_fault(step, kwargs.get("model", MODEL))
            if step == "cut":
                raise ConnectionResetError("Connection reset by peer")
            response: ModelResponse = kwargs["model_response"]
            response.choices[0].message.content = _text_of(step)  # type: ignore[union-attr]
            response.created = int(time.time())
            return response

        def streaming(self, *args: Any, **kwargs: Any) -> Iterator[GenericStreamingChunk]:
            step = llm.next_step(kwargs, stream=True)
            raise_fault(step, kwargs.get("model", MODEL))
            if step == "cut":
                yield from _pieces(CUT_TEXT, chunk)
                raise ConnectionResetError("Connection reset by peer")
            yield from _pieces(_text_of(step), chunk)
            yield chunk("", last=True)

    return Handler()


def _pieces(text: str, chunk: Any) -> Iterable[Any]:
    for index in range(0, len(text), 7):
        yield chunk(text[index : index + 7])


def install(llm: FaultyLLM) -> FaultyLLM:
    """Register the faulty provider beside the others (the embedded one, `fake`)."""
    from aniso.llm.gateway import litellm_module

    litellm = litellm_module()
    others = [p for p in litellm.custom_provider_map if p["provider"] != PROVIDER]
    litellm.custom_provider_map = [
        *others,
        {"provider": PROVIDER, "custom_handler": make_handler(llm)},
    ]
    litellm.utils.custom_llm_setup()
    return llm
