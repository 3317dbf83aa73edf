"""A scripted fake LLM, plugged in through the production seam: a litellm custom provider.

Tests queue replies (or exceptions) and read back every request the code made, so the
exact prompt structure can be asserted. Nothing here bypasses litellm.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

PROVIDER = "fake"


@dataclass
class Call:
    model: str
    messages: list[dict[str, Any]]
    stream: bool
    params: dict[str, Any]


@dataclass
class ScriptedLLM:
    """Replies in queue order; when the queue is empty, echoes a default reply."""

    default: str = "OK. Here is a short answer."
    queue: deque[str | BaseException] = field(default_factory=deque)
    calls: list[Call] = field(default_factory=list)

    def reply(self, *items: str | BaseException) -> None:
        self.queue.extend(items)

    def next_item(self) -> str:
        item = self.queue.popleft() if self.queue else self.default
        if isinstance(item, BaseException):
            raise item
        return item

    @property
    def last_messages(self) -> list[dict[str, Any]]:
        return self.calls[-1].messages


def make_handler(script: ScriptedLLM) -> Any:
    from litellm import CustomLLM
    from litellm.types.utils import GenericStreamingChunk, ModelResponse

    class Handler(CustomLLM):
        def _record(self, kwargs: dict[str, Any], stream: bool) -> str:
            script.calls.append(
                Call(
                    model=kwargs.get("model", ""),
                    messages=[dict(m) for m in kwargs["messages"]],
                    stream=stream,
                    params=dict(kwargs.get("optional_params") or {}),
                )
            )
            return script.next_item()

        def completion(self, *args: Any, **kwargs: Any) -> ModelResponse:
            text = self._record(kwargs, stream=False)
            response: ModelResponse = kwargs["model_response"]
            response.choices[0].message.content = text  # type: ignore[union-attr]
            response.created = int(time.time())
            return response

        def streaming(self, *args: Any, **kwargs: Any) -> Iterator[GenericStreamingChunk]:
            text = self._record(kwargs, stream=True)
            for index in range(0, len(text), 7):
                yield GenericStreamingChunk(
                    text=text[index : index + 7],
                    is_finished=False,
                    finish_reason="",
                    usage=None,
                    index=0,
                    tool_use=None,
                )
            yield GenericStreamingChunk(
                text="",
                is_finished=True,
                finish_reason="stop",
                usage=None,
                index=0,
                tool_use=None,
            )

    return Handler()


def register_provider(provider: str, make: Any) -> None:
    """Register a litellm custom provider beside the others (replacing its old self).
    `make()` builds the handler after litellm is imported the product's way (offline)."""
    from aniso.llm.gateway import litellm_module

    litellm = litellm_module()
    handler = make()
    others = [p for p in litellm.custom_provider_map if p["provider"] != provider]
    litellm.custom_provider_map = [*others, {"provider": provider, "custom_handler": handler}]
    litellm.utils.custom_llm_setup()


def install(script: ScriptedLLM) -> None:
    """Register the fake provider alongside the embedded one."""
    register_provider(PROVIDER, lambda: make_handler(script))
