"""`aniso.Assistant`: one user message in, one streamed reply out, memory kept.

The TUI and the CLI are thin layers over this class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from aniso.controller import MemoryController
from aniso.errors import AnisoError
from aniso.llm import CompletionRequest, LLMGateway
from aniso.prompt import MemoryItem


@dataclass(frozen=True)
class Reply:
    """What one turn produced. `error` is a one-line cause when the model failed;
    the user's message is stored either way (`episode_id`)."""

    text: str
    episode_id: int
    recalled: list[MemoryItem] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    error: str | None = None


class Assistant:
    """The chat loop: observe → recall → assemble → reply (streamed) → remember."""

    def __init__(self, controller: MemoryController, gateway: LLMGateway) -> None:
        self.controller = controller
        self.gateway = gateway

    def send(
        self,
        text: str,
        *,
        on_token: Callable[[str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Reply:
        """Answer one message. InputError is raised before anything is stored;
        model failures come back as `Reply.error` after the message is stored."""
        observation = self.controller.observe(text)
        recalled = self.controller.recall(
            observation.stored_text, current_episode=observation.episode_id
        )
        messages = self.controller.assemble(observation, recalled)
        notices = observation.notices + self.controller.warnings
        request = CompletionRequest(messages=messages, max_tokens=self.gateway.reply_max_tokens)
        pieces: list[str] = []
        try:
            for piece in self.gateway.stream(request):
                if cancelled is not None and cancelled():
                    break
                pieces.append(piece)
                if on_token is not None:
                    on_token(piece)
        except AnisoError as error:
            message = str(error)
            self.controller.remember_failure(observation, message)
            return Reply(
                text="".join(pieces),
                episode_id=observation.episode_id,
                recalled=recalled,
                notices=notices,
                error=message,
            )
        reply = "".join(pieces).strip()
        if not reply:
            message = f"model {self.gateway.model} returned an empty reply"
            self.controller.remember_failure(observation, message)
            return Reply(
                text="",
                episode_id=observation.episode_id,
                recalled=recalled,
                notices=notices,
                error=message,
            )
        self.controller.remember_reply(observation, reply)
        return Reply(
            text=reply,
            episode_id=observation.episode_id,
            recalled=recalled,
            notices=notices,
        )
