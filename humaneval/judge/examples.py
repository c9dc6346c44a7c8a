"""Scored examples for the prompts (DITING's "gold annotations to refer"): a JSON Lines file.

One example a line: ``{"dimension", "source", "translation", "sp", "g_1", "g_2"}`` plus optional
``"comment"``. An item's prompt shows the examples of its own dimension. The file is
``examples.jsonl`` in a prompts folder, or ``--examples FILE`` on the command line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import HumanEvalInputError
from .items import DIMENSIONS, jsonl_values

EXAMPLES_FILE = "examples.jsonl"
FIELDS = ("dimension", "source", "translation", "sp", "g_1", "g_2")


def read_examples(path: str | Path) -> dict[str, list[dict[str, Any]]]:
    """{dimension: [example, ...]}; HumanEvalInputError names the line of a bad example."""
    name = str(path)
    out: dict[str, list[dict[str, Any]]] = {}
    for line_no, obj in jsonl_values(path):
        if not isinstance(obj, dict):
            raise HumanEvalInputError("expected a JSON object", name, line_no)
        missing = [k for k in FIELDS if k not in obj]
        if missing:
            raise HumanEvalInputError(f"missing field(s): {', '.join(missing)}", name, line_no)
        if obj["dimension"] not in DIMENSIONS:
            raise HumanEvalInputError(f'"dimension" must be one of {", ".join(DIMENSIONS)}', name, line_no)
        for key in ("sp", "g_1", "g_2"):
            if isinstance(obj[key], bool) or obj[key] not in (0, 1, 2):
                raise HumanEvalInputError(f'"{key}" must be 0, 1 or 2', name, line_no)
        for key in ("source", "translation", "comment"):
            if key in obj and not isinstance(obj[key], str):
                raise HumanEvalInputError(f'"{key}" must be a string', name, line_no)
        out.setdefault(obj["dimension"], []).append({k: obj[k] for k in (*FIELDS, "comment") if k in obj})
    return out
