"""What every part of the campaign core shares: refusals, field checks, the WMT groups."""

from __future__ import annotations

import re
from typing import Any

from ...services import ServiceError

ELIGIBLE_STATES = ("valid", "scoring", "scored")
MAX_REDUNDANCY = 20
MAX_SEED = 2**31 - 1              # a campaign's seed is stored in an integer column
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
GROUPS = [("baseline", "Baselines"), ("primary-constrained", "Primary (constrained)"),
          ("primary-unconstrained", "Primary (unconstrained) ⋆"), ("contrastive", "Contrastive")]


def bad(code: str, message: str, status: int = 400, **details: Any) -> ServiceError:
    return ServiceError(code, message, status, details)


def whole_number(value: Any, field: str, lo: int, hi: int) -> int:
    """A form or CLI value as an int in [lo, hi], or a 400 naming the field."""
    try:
        n = int(str(value).strip())   # (int() refuses "²" and more than 4,300 digits: both are a 400 here)
    except (TypeError, ValueError):
        raise bad("invalid_field", f"{field} must be a whole number between {lo} and {hi}", field=field) from None
    if not lo <= n <= hi:
        raise bad("invalid_field", f"{field} must be between {lo} and {hi}", field=field)
    return n


def number(value: Any, field: str, lo: float, hi: float) -> float:
    """A form or CLI value as a float in [lo, hi] ("10%" is 0.1), or a 400 naming the field."""
    try:
        text = str(value).strip()
        x = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except (TypeError, ValueError):
        raise bad("invalid_field", f"{field} must be a number", field=field) from None
    if not lo <= x <= hi or x != x:
        raise bad("invalid_field", f"{field} must be between {lo} and {hi}", field=field)
    return x


def str_field(body: dict, name: str, *, required: bool = True, max_len: int = 200) -> str:
    """A string field of a JSON body, or a 400 naming it."""
    value = body.get(name, None)
    if value is None:
        if required:
            raise bad("invalid_field", f"{name} is required", field=name)
        return ""
    if not isinstance(value, str):
        raise bad("invalid_field", f"{name} must be a string", field=name)
    if len(value) > max_len:
        raise bad("invalid_field", f"{name} is longer than {max_len} characters", field=name)
    return value


def int_field(body: dict, name: str) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad("invalid_field", f"{name} must be an integer", field=name)
    return value


def fmt_ms(ms: int | None) -> str:
    if not ms:
        return "0:00"
    s = int(ms // 1000)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
