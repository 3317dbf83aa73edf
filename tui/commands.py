"""Command palette entries (Ctrl+P): every action of the app, by name."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider

COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("Memory panel", "toggle_memory", "Show or hide tier counts and recalled memories (F2)"),
    ("Profile", "profile", "Every profile field with its history; edit or remove (F3)"),
    (
        "Procedures",
        "procedures",
        "Accepted answers kept for reuse, with uses and weights; pin or forget (F10)",
    ),
    ("Export", "export", "Export everything to a file you choose (F6)"),
    (
        "Forget by search",
        "forget_search",
        "Preview the memories matching a search, then erase (F7)",
    ),
    ("Compact now", "compact", "Run the compactor now instead of tonight (F5)"),
    ("Temporary chat", "toggle_temporary", "A chat that neither reads nor writes memory (F4)"),
    ("Switch model", "switch_model", "Use another litellm model from the next message on (F8)"),
    (
        "Undo profile change",
        "undo_profile",
        "Take back the last profile change learned from a message (F9)",
    ),
    ("Cancel reply", "cancel", "Stop the reply being generated (Esc)"),
)


class AnisoCommands(Provider):
    """Offers the app's actions in the command palette."""

    async def discover(self) -> Hits:
        for name, action, help_text in COMMANDS:
            yield DiscoveryHit(name, self._runner(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action, help_text in COMMANDS:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._runner(action), help=help_text)

    def _runner(self, action: str):  # type: ignore[no-untyped-def]
        async def run() -> None:
            await self.app.run_action(action)

        return run
