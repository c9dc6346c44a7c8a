"""Reading the input files: text, JSON, numbers and system names, with errors that name the file."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from .errors import MetaInputError


def read_text(path: str | Path) -> str:
    p = Path(path)
    if not p.is_file():
        raise MetaInputError("no such file", path)
    try:
        return p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise MetaInputError("not UTF-8 text", path) from None


def read_json(path: str | Path) -> Any:
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise MetaInputError(f"invalid JSON ({exc})", path) from None


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def system_name(name: str) -> str:
    """A scored submission's name: the final path component without extension."""
    return Path(str(name).rstrip("/\\")).stem or str(name)
