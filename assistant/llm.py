"""The LLM gateway: every completion, local or remote, goes through litellm.

It owns the cross-cutting concerns once: lazy import (litellm takes seconds to
import), the offline price map, the embedded provider's registration, timeouts,
retries with backoff before the first token, and turning provider exceptions into
one-line `ModelError`/`ConfigError` messages a user can act on.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from aniso.errors import ConfigError, ModelError
from aniso.settings import EMBEDDED_MODEL, Settings

Message = dict[str, str]


@cache
def litellm_module() -> Any:
    """Import litellm once, offline: no price-map fetch, no telemetry."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    import litellm

    from aniso import embedded

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.drop_params = True
    embedded.register(litellm)
    return litellm


def _transient_types(litellm: Any) -> tuple[type[BaseException], ...]:
    names = [
        "RateLimitError",
        "APIConnectionError",
        "Timeout",
        "InternalServerError",
        "ServiceUnavailableError",
    ]
    return tuple(getattr(litellm.exceptions, name) for name in names)


def describe_failure(error: BaseException) -> str:
    """A one-line cause for a provider exception, without its traceback or request dump."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    for prefix in ("litellm.", "Exception - "):
        text = text.replace(prefix, "")
    return f"{type(error).__name__}: {text[:300]}"


@dataclass(frozen=True)
class CompletionRequest:
    messages: list[Message]
    max_tokens: int
    temperature: float = 0.3
    response_format: dict[str, Any] | None = None


class LLMGateway:
    """Completions through litellm with a bounded number of retries.

    `sleep` is injectable so tests of the backoff do not wait.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        model: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        extra_args: dict[str, Any] | None = None,
    ) -> None:
        self.model = model or settings.model
        self.timeout = settings.llm_timeout_s
        self.retries = settings.llm_retries
        self.reply_max_tokens = settings.reply_max_tokens
        self._sleep = sleep
        self._extra_args = dict(extra_args or {})

    @property
    def is_local(self) -> bool:
        """True when text never leaves this machine (embedded model or Ollama)."""
        return self.model == EMBEDDED_MODEL or self.model.startswith(("ollama/", "ollama_chat/"))

    def check_model(self) -> None:
        """Fail early, as a ConfigError, when litellm cannot route the model string."""
        litellm = litellm_module()
        litellm.utils.custom_llm_setup()
        try:
            litellm.get_llm_provider(self.model)
        except Exception as error:  # litellm raises its own BadRequestError here
            raise ConfigError(
                f"unknown model {self.model!r}: {describe_failure(error)}; "
                "use a litellm model string such as gpt-4o-mini or ollama/llama3.2"
            ) from None

    def stream(self, request: CompletionRequest) -> Iterator[str]:
        """Yield reply text as it arrives.

        Opening the stream and reading its first chunk are retried together, since
        providers often fail only once iteration starts; after the first piece has
        reached the user a failure is final (a retry would repeat text).
        """
        litellm = litellm_module()
        self.check_model()

        def open_stream() -> tuple[Any, Iterator[Any]]:
            chunks = iter(self._call(litellm, request, stream=True))
            return next(chunks, None), chunks

        first, rest = self._with_retries(open_stream)
        try:
            for chunk in itertools.chain([first] if first is not None else [], rest):
                piece = chunk.choices[0].delta.content if chunk.choices else None
                if piece:
                    yield piece
        except ModelError:
            raise
        except Exception as error:
            raise ModelError(f"the reply stream broke off: {describe_failure(error)}") from None

    def complete(self, request: CompletionRequest) -> str:
        """The whole reply at once (extraction, summaries, judging)."""
        litellm = litellm_module()
        self.check_model()
        response = self._with_retries(lambda: self._call(litellm, request, stream=False))
        content = response.choices[0].message.content
        return content or ""

    def _call(self, litellm: Any, request: CompletionRequest, *, stream: bool) -> Any:
        args: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "timeout": self.timeout,
            "stream": stream,
            **self._extra_args,
        }
        if request.response_format is not None:
            args["response_format"] = request.response_format
        return litellm.completion(**args)

    def _with_retries(self, call: Callable[[], Any]) -> Any:
        litellm = litellm_module()
        transient = _transient_types(litellm)
        delay = 0.5
        for attempt in range(self.retries + 1):
            try:
                return call()
            except (ModelError, ConfigError):
                raise
            except transient as error:
                if attempt == self.retries:
                    raise ModelError(
                        f"model {self.model} failed after {attempt + 1} attempts: "
                        f"{describe_failure(error)}"
                    ) from None
                self._sleep(delay)
                delay = min(delay * 2, 8.0)
            except Exception as error:
                raise ModelError(f"model {self.model} failed: {describe_failure(error)}") from None
        raise AssertionError("unreachable")
