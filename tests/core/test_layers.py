"""The layering rule of the code (LAYOUT.md), read from the source with `ast`.

Nothing is imported: every `import` statement in the product is resolved to the
package it belongs to, lazy imports inside functions and imports under
`TYPE_CHECKING` included, and checked against what that package may import.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from conftest import REPO

# Where each package's source lives (pyproject's package-dir).
ROOTS = {
    "aniso": "assistant",
    "aniso.tiers": "tiers",
    "aniso.profile": "profile",
    "aniso.privacy": "privacy",
    "aniso.tui": "tui",
    "aniso.scenarios": "scenarios",
}
SUBPACKAGES = ("core", "llm", "data", "cli", "bench")
INTERFACES = ("api",)  # the Python API and the MCP server, beside the TUI
DOMAIN = {"tiers", "profile", "privacy", "llm"}
# What each layer may import besides itself, cumulatively as LAYOUT.md's table says.
ALLOWED: dict[str, set[str]] = {"core": set()}
for layer in DOMAIN:
    ALLOWED[layer] = {"core"}
ALLOWED["app"] = {"core", *DOMAIN}
ALLOWED["data"] = ALLOWED["app"] | {"app"}
ALLOWED["tui"] = ALLOWED["data"] | {"data"}
ALLOWED["scenarios"] = ALLOWED["data"] | {"data"}
ALLOWED["api"] = ALLOWED["data"] | {"data"}
ALLOWED["bench"] = ALLOWED["tui"] | {"tui", "scenarios"}
ALLOWED["cli"] = ALLOWED["bench"] | {"bench", "api"}
# The package itself (`aniso/__init__.py`) is the public facade: `aniso.open` reaches
# the API lazily, and every layer may read `aniso.__version__` from it.
ALLOWED["facade"] = set(ALLOWED["cli"]) | {"cli"}
# Heavy libraries stay inside their named adapters (module-name prefixes).
ADAPTERS = {
    "litellm": ("aniso.llm",),
    "chromadb": ("aniso.tiers.index.vectors",),
    # The custom recognizers subclass presidio's: they are part of its adapter.
    "presidio_analyzer": ("aniso.privacy.engine", "aniso.privacy.recognizers"),
    "textual": ("aniso.tui",),
    "mcp": ("aniso.api.mcp",),
    "click": ("aniso.cli", "aniso.bench"),
    # Textual draws with rich, so the TUI uses it too.
    "rich": ("aniso.cli", "aniso.bench", "aniso.tui"),
}
MAX_APP_MODULES = 14


def modules() -> Iterator[tuple[str, Path]]:
    """(dotted module name, file) for every product module."""
    for package, folder in ROOTS.items():
        base = REPO / folder
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if package == "aniso" and parts and f"aniso.{parts[0]}" in ROOTS:
                continue  # never happens: the other roots are separate folders
            yield ".".join([package, *parts]), path


def layer(module: str) -> str | None:
    """The layer a module of aniso belongs to; None for anything outside aniso."""
    parts = module.split(".")
    if parts[0] != "aniso":
        return None
    if len(parts) == 1:
        return "facade"
    head = parts[1]
    if head == "__version__":
        return "version"
    if head in SUBPACKAGES or head in INTERFACES or head in DOMAIN or head in ("tui", "scenarios"):
        return head
    return "app"


def imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """Every imported module name, with its line: `from aniso import x` is `aniso.x`."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from P import x` depends on P.x: a submodule, or else (an attribute) P.
            for alias in node.names:
                yield node.lineno, f"{target}.{alias.name}"


def known(name: str, names: set[str]) -> str:
    """`aniso.tiers.memory.TieredMemory` -> `aniso.tiers.memory`: the longest module prefix."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in names:
            return ".".join(parts[:n])
    return name


def violations() -> list[str]:
    found = []
    table = dict(modules())
    names = set(table)
    for module, path in table.items():
        mine = layer(module)
        assert mine is not None
        for line, raw in imports(module, path):
            target = raw if raw == "aniso.__version__" else known(raw, names)
            theirs = layer(target)
            if theirs in (None, "version") or theirs == mine or theirs in ALLOWED[mine]:
                continue
            found.append(f"{path.relative_to(REPO)}:{line} {mine} -> {theirs} ({target})")
    return sorted(set(found))


def adapter_violations() -> list[str]:
    found = []
    for module, path in modules():
        for line, raw in imports(module, path):
            library = raw.split(".")[0]
            homes = ADAPTERS.get(library)
            if homes and not any(module == h or module.startswith(h + ".") for h in homes):
                found.append(f"{path.relative_to(REPO)}:{line} imports {library}")
    return sorted(set(found))


def test_every_import_follows_the_layering_rule() -> None:
    assert violations() == []


def test_heavy_libraries_stay_inside_their_adapters() -> None:
    assert adapter_violations() == []


def test_the_application_root_is_small_and_benchmarks_live_in_bench() -> None:
    app = [p.name for p in (REPO / "assistant").glob("*.py")]
    assert len(app) <= MAX_APP_MODULES, sorted(app)
    for sub in SUBPACKAGES:
        assert (REPO / "assistant" / sub / "__init__.py").is_file(), sub
    strays = [
        str(path.relative_to(REPO))
        for _, path in modules()
        if "bench" in path.name and path.parent != REPO / "assistant" / "bench"
    ]
    assert strays == []


def test_the_checker_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    """The rule must be able to fail: a lazy import inside a function counts."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from aniso.cli import main\n"
        "def f():\n    from aniso import services\n",
        encoding="utf-8",
    )
    seen = [name for _, name in imports("aniso.core.probe", source)]
    assert "aniso.cli.main" in seen and "aniso.services" in seen
    assert layer("aniso.services") == "app" and "app" not in ALLOWED["core"]
    assert layer("aniso.__version__") == "version" and layer("aniso") == "facade"
