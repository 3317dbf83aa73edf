"""Fixtures of the resilience suite; the top-level fixtures (isolated data dir, clock,
scripted LLM) apply here too."""

from __future__ import annotations

import pytest
from resilience.faults import FaultyLLM, install


@pytest.fixture
def faulty() -> FaultyLLM:
    """The fault-injecting provider, registered as `faulty/...`, with an empty script."""
    return install(FaultyLLM())
