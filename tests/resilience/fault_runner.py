"""Run the real `aniso` CLI with the faulty provider installed: `FAULT_SCRIPT` holds
the script as a JSON list, e.g. `["429", "429", "500"]`; use `--model faulty/model`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from faults import FaultyLLM, install

    install(FaultyLLM().then(*json.loads(os.environ.get("FAULT_SCRIPT", "[]"))))
    from aniso.cli import main

    sys.argv = ["aniso", *sys.argv[1:]]
    main()
