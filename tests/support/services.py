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


def require_module(name: str, reason: str):
    """The module ``name``, imported; when it is missing, skip, or fail under ENFACE_STRICT_SERVICES=1.

    Use this, not ``pytest.importorskip``, for a reference library that CI installs (irrCAC): a
    plain importorskip would let a CI without it stay green."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as exc:
        require_service(False, f"{reason} ({exc})")
