"""The real embedded model as a new process would find it, and its reply to a prompt
evaluated in one go: what the prompt-cache and prompt-ahead tests compare against."""

from __future__ import annotations

from typing import Any

from aniso.llm import embedded


def fresh_model() -> Any:
    """The process's model, emptied: as a new process would start."""
    llama = embedded.load_model()
    llama.reset()
    return llama


def whole_reply(messages: list[dict[str, Any]]) -> str:
    """The greedy reply with the prompt evaluated in one go: no cache, nothing ahead."""
    llama = fresh_model()
    stream = llama.create_chat_completion(
        messages=messages, stream=True, max_tokens=24, temperature=0.0, top_p=0.9,
        repeat_penalty=1.15,
    )  # fmt: skip
    return "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in stream)
