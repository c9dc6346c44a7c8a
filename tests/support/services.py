"""Skips for what a test needs from outside Python: a server, a browser, a tool.

On a laptop such a test skips with the reason; ``.ci/run`` sets ENFACE_STRICT_SERVICES=1,
which turns those skips into failures.
"""

from __future__ import annotations

import os

import pytest


def require_service(available: bool, reason: str) -> None:
    """Skip (or fail, in CI) when a server or tool the test needs is missing."""
    if available:
        return
    if os.environ.get("ENFACE_STRICT_SERVICES") == "1":
        pytest.fail(f"{reason} (ENFACE_STRICT_SERVICES=1: CI must provide it)")
    pytest.skip(reason)
