"""The server clock of campaigns (stage locks), in one place so that tests can move it."""

from __future__ import annotations

from datetime import datetime

from ..models import utcnow

_offset = None


def now() -> datetime:
    return utcnow() + _offset if _offset is not None else utcnow()


def shift(delta) -> None:
    """Moves the clock by ``delta`` (a timedelta; None puts it back). For tests and demos only."""
    global _offset
    _offset = delta
