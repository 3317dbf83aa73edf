"""Run the real `aniso` CLI with the scripted LLM and the cheap hashed embedding.

`python cheap_cli.py TESTS_DIR ARGS...`: like `tests/cli_runner.py --fake-llm`, plus
the `hashemb/...` embedding provider of `load_helpers`, so a CLI process opens the
same store the stress writers fill (a store's vectors must come from one model).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main() -> None:
    tests_dir, *cli_args = sys.argv[1:]
    sys.path.insert(0, tests_dir)
    sys.path.insert(0, str(Path(__file__).parent))
    from fakes import ScriptedLLM, install
    from load_helpers import CHEAP_MODEL, install_cheap_embeddings

    install(ScriptedLLM(default="Noted."))
    install_cheap_embeddings()
    os.environ["ANISO_EMBEDDING"] = CHEAP_MODEL
    os.environ["ANISO_MODEL"] = "fake/x"
    from aniso.cli import main as aniso_main

    sys.argv = ["aniso", *cli_args]
    aniso_main()


if __name__ == "__main__":
    main()
