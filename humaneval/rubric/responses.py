"""Rubric responses on plain files: CSV or JSON Lines, one response (a rater's scores of one item) a row.

Fields: ``document``, ``segment``, ``system``, ``rater``, ``dimension``, ``sp``, ``g_1``, ``g_2``;
optional ``item`` (default ``document:segment:dimension:system``), ``refusal`` (empty/null,
``justified`` or ``unjustified``) and ``comment``. A CSV names them in its header (other columns
are ignored). Every row is checked against the rubric's rules (:func:`~humaneval.rubric.rules.check_scores`);
errors name the file and the line.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from ..errors import HumanEvalInputError, read_text
from .model import CRITERION_KEYS, Rubric, load_rubric
from .rules import check_scores

REQUIRED = ("document", "segment", "system", "rater", "dimension", *CRITERION_KEYS)
OPTIONAL = ("item", "refusal", "comment")


_WHOLE = re.compile(r"-?[0-9]{1,18}")


def _int(value: Any) -> Any:
    """CSV cells are text: "2" is 2 (ASCII digits only: "²" is a digit to str.isdigit, not to int); anything
    else is left for the rules to refuse."""
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        return int(value.strip())
    return value


def _row(raw: dict[str, Any], rubric: Rubric, name: str, line: int) -> dict[str, Any]:
    missing = [k for k in REQUIRED if raw.get(k) in (None, "")]
    if missing:
        raise HumanEvalInputError(f"missing {', '.join(missing)}", name, line)
    response = {k: _int(raw[k]) for k in CRITERION_KEYS}
    response["refusal"] = raw.get("refusal") or None
    response["comment"] = raw.get("comment") or ""
    errors = check_scores(str(raw["dimension"]), response, rubric)
    if errors:
        raise HumanEvalInputError("; ".join(errors), name, line)
    segment = _int(raw["segment"])
    if not isinstance(segment, int) or isinstance(segment, bool) or segment < 1:
        raise HumanEvalInputError(f"segment must be a whole number from 1, not {raw['segment']!r}", name, line)
    row = {k: str(raw[k]) for k in ("document", "system", "rater", "dimension")}
    row.update(response, segment=segment)
    row["item"] = str(raw.get("item") or f"{row['document']}:{segment}:{row['dimension']}:{row['system']}")
    return row


def read_responses(path: str | Path, rubric: Rubric | None = None) -> list[dict[str, Any]]:
    """The checked response rows of a ``.csv`` or ``.jsonl`` file; a rater scoring an item twice is an error."""
    rubric = rubric or load_rubric()
    name = str(path)
    text = read_text(path)
    if not text.strip():
        raise HumanEvalInputError("empty file", name)
    rows = []
    if name.lower().endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in reader.fieldnames or []]
        missing = [k for k in REQUIRED if k not in header]
        if missing:
            raise HumanEvalInputError(f"the header lacks {', '.join(missing)} (found: {','.join(header)})", name, 1)
        try:
            for raw in reader:
                clean = {(k or "").strip(): (v or "").strip() for k, v in raw.items() if isinstance(v, str)}
                if any(clean.values()):
                    rows.append((_row(clean, rubric, name, reader.line_num), reader.line_num))
        except csv.Error as exc:
            raise HumanEvalInputError(f"malformed CSV: {exc}", name, reader.line_num) from None
    else:
        for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise HumanEvalInputError(f"not valid JSON: {exc.msg} (column {exc.colno})", name, number) from None
            if not isinstance(raw, dict):
                raise HumanEvalInputError("a line is one JSON object", name, number)
            rows.append((_row(raw, rubric, name, number), number))
    if not rows:
        raise HumanEvalInputError("no responses in the file", name)
    seen: dict[tuple[str, str], int] = {}
    for row, line in rows:
        key = (row["item"], row["rater"])
        if key in seen:
            raise HumanEvalInputError(f"rater {row['rater']!r} already scored item {row['item']!r} on line "
                                      f"{seen[key]}", name, line)
        seen[key] = line
    return [row for row, _ in rows]
