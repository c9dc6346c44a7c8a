"""Reading a judge's items from JSON Lines, with the file and line named in every error.

One object a line: ``{"id", "dimension", "source", "translation", "requirement"}``
plus optional ``"reference"`` and ``"context"``. Blank lines are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import HumanEvalInputError, read_text

DIMENSIONS = ("idiom", "ambiguity", "terminology", "tense", "zero_pronoun", "cultural_safety")
REQUIRED = ("id", "dimension", "source", "translation", "requirement")
OPTIONAL = ("reference", "context")


def check_item(obj: Any, path: str | None = None, line: int | None = None) -> dict[str, Any]:
    """One item, checked: required text fields present, ``dimension`` known; unknown fields rejected."""
    if not isinstance(obj, dict):
        raise HumanEvalInputError(f"expected a JSON object, found {type(obj).__name__}", path, line)
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        raise HumanEvalInputError(f"missing field(s): {', '.join(missing)}", path, line)
    unknown = sorted(set(obj) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise HumanEvalInputError(f"unknown field(s): {', '.join(unknown)} (allowed: "
                                  f"{', '.join(REQUIRED + OPTIONAL)})", path, line)
    item: dict[str, Any] = {}
    if isinstance(obj["id"], bool) or not isinstance(obj["id"], (str, int)) or str(obj["id"]).strip() == "":
        raise HumanEvalInputError('"id" must be a non-empty string or an integer', path, line)
    item["id"] = str(obj["id"])
    for key in REQUIRED[1:] + OPTIONAL:
        value = obj.get(key)
        if key in OPTIONAL and value is None:
            continue
        if not isinstance(value, str):
            raise HumanEvalInputError(f'"{key}" must be a string', path, line)
        if key in REQUIRED and not value.strip():
            raise HumanEvalInputError(f'"{key}" is empty', path, line)
        item[key] = value
    if item["dimension"] not in DIMENSIONS:
        raise HumanEvalInputError(f'"dimension" must be one of {", ".join(DIMENSIONS)}, '
                                  f'not {item["dimension"]!r}', path, line)
    return item


def jsonl_values(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of each non-blank line; invalid JSON names the file and the line."""
    for line_no, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield line_no, json.loads(line)
        except ValueError as exc:
            raise HumanEvalInputError(f"not valid JSON: {exc}", str(path), line_no) from None


def read_items(path: str) -> list[dict[str, Any]]:
    """All items of a JSON Lines file; ids must be unique. Raises HumanEvalInputError naming the line."""
    items: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for line_no, obj in jsonl_values(path):
        item = check_item(obj, path, line_no)
        if item["id"] in seen:
            raise HumanEvalInputError(f'duplicate id {item["id"]!r} (first on line {seen[item["id"]]})',
                                      path, line_no)
        seen[item["id"]] = line_no
        items.append(item)
    if not items:
        raise HumanEvalInputError("no items in the file", path)
    return items
