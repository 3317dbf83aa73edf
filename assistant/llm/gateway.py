"""The LLM gateway: every completion goes through here; configured models through litellm.

It owns the cross-cutting concerns once: lazy import (litellm takes seconds to
import), the offline price map, timeouts, retries with backoff before the first
token, and turning provider exceptions into one-line `ModelError`/`ConfigError`
messages a user can act on. The embedded default model runs in this process and is
called directly (`aniso.llm.embedded`): it has no network to retry, and importing
litellm for it would cost more than its whole first token.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from aniso.core import timings
from aniso.core.errors import ConfigError, ModelError
from aniso.core.ports import CompletionRequest
from aniso.core.settings import EMBEDDED_MODEL, Settings


@cache
def litellm_module() -> Any:
    """Import litellm once, offline: no price-map fetch, no telemetry."""
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    with timings.span("imports"):
        import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.drop_params = True
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


SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
MIN_SECRET_CHARS = 8


def secret_values() -> list[str]:
    """Values of environment variables that name a secret (`OPENAI_API_KEY`,
    `ANISO_..._TOKEN`): provider errors sometimes quote the key they were given."""
    return sorted(
        {
            value
            for name, value in os.environ.items()
            if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_CHARS
        },
        key=len,
        reverse=True,
    )


def scrub_secrets(text: str) -> str:
    """`text` with every secret environment value replaced by `[secret]`."""
    for value in secret_values():
        text = text.replace(value, "[secret]")
    return text


def describe_failure(error: BaseException) -> str:
    """A one-line cause for a provider exception, without its traceback, its request
    dump or any API key it quotes: the line is shown, logged and stored."""
    # litellm wraps a stream's failure in MidStreamFallbackError; the cause is inside.
    while isinstance(getattr(error, "original_exception", None), BaseException):
        error = error.original_exception  # type: ignore[attr-defined]
    name = type(error).__name__
    text = str(error).strip().splitlines()[0] if str(error).strip() else name
    for prefix in ("litellm.", "Exception - "):
        text = text.replace(prefix, "")
    text = text.split(" Original exception: ")[0]
    while text.startswith(f"{name}: "):  # litellm repeats the type in its messages
        text = text[len(name) + 2 :]
    return scrub_secrets(f"{name}: {text[:300]}")


MIN_ATTEMPT_TIMEOUT_S = 1.0
"""An attempt started near the end of the budget still gets this long to answer."""


class LLMGateway:
    """Completions through litellm, retried with backoff within a bounded total time.

    A transient failure (rate limit, timeout, 5xx, refused connection) is retried at
    most `llm_retries` times, and never past `llm_budget_s`: each backoff sleep is cut
    to what is left of the budget and each attempt's timeout too (an attempt that
    starts at the very end still gets `MIN_ATTEMPT_TIMEOUT_S`), so a request takes at
    most about the budget plus one attempt. `sleep` and `monotonic` are injectable so
    tests of the backoff neither wait nor depend on the machine's speed; `attempts`
    counts the calls made by the last request.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        model: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
        extra_args: dict[str, Any] | None = None,
    ) -> None:
        self.model = model or settings.model
        self.timeout = settings.llm_timeout_s
        self.retries = settings.llm_retries
        self.budget = settings.llm_budget_s
        self.attempts = 0
        self._monotonic = monotonic
        self._deadline: float | None = None
        self.reply_max_tokens = settings.reply_max_tokens
        self._sleep = sleep
        self._extra_args = dict(extra_args or {})

    @property
    def is_local(self) -> bool:
        """True when text never leaves this machine (embedded model or Ollama)."""
        return self.model == EMBEDDED_MODEL or self.model.startswith(("ollama/", "ollama_chat/"))

    @property
    def is_embedded(self) -> bool:
        """True for the bundled model, which runs in-process without litellm."""
        return self.model == EMBEDDED_MODEL

    def check_model(self) -> None:
        """Fail early, as a ConfigError, when litellm cannot route the model string
        (or, for the embedded model, when its weights are not installed)."""
        if self.is_embedded:
            from aniso.llm.embedded import gguf_path

            gguf_path()
            return
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
        if self.is_embedded:
            from aniso.llm.embedded import generate

            yield from generate(
                request.messages, max_tokens=request.max_tokens, temperature=request.temperature
            )
            return
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
        if self.is_embedded:
            return "".join(self.stream(request))
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
            "timeout": self._attempt_timeout(),
            "stream": stream,
            **self._extra_args,
        }
        if request.response_format is not None:
            args["response_format"] = request.response_format
        return litellm.completion(**args)

    def _attempt_timeout(self) -> float:
        """The per-call timeout, cut to what is left of the request's budget."""
        if self._deadline is None:
            return self.timeout
        left = self._deadline - self._monotonic()
        return max(MIN_ATTEMPT_TIMEOUT_S, min(self.timeout, left))

    def _with_retries(self, call: Callable[[], Any]) -> Any:
        litellm = litellm_module()
        transient = _transient_types(litellm)
        delay = 0.5
        self.attempts = 0
        self._deadline = self._monotonic() + self.budget
        try:
            while True:
                self.attempts += 1
                try:
                    return call()
                except (ModelError, ConfigError):
                    raise
                except transient as error:
                    left = self._deadline - self._monotonic()
                    if self.attempts > self.retries or left <= 0:
                        raise ModelError(
                            f"model {self.model} failed after {self.attempts} "
                            f"attempt{'s' if self.attempts > 1 else ''}: "
                            f"{describe_failure(error)}; "
                            "check that the model is reachable, or try again later"
                        ) from None
                    self._sleep(min(delay, left))
                    delay = min(delay * 2, 8.0)
                except Exception as error:
                    raise ModelError(
                        f"model {self.model} failed: {describe_failure(error)}"
                    ) from None
        finally:
            self._deadline = None
