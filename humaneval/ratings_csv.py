"""Ratings in a CSV file: a header naming ``item``, ``rater`` and ``value``, then one rating a row.

Other columns are ignored and the columns may come in any order. A rater who
did not rate an item simply has no row for it. Values are numbers for ordinal
scales; for nominal ones (AC1) any label. A repeated (item, rater) row is
accepted when it repeats the same value and refused when it conflicts.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import HumanEvalInputError, read_text

COLUMNS = ("item", "rater", "value")


@dataclass
class Ratings:
    path: str
    table: dict[str, dict[str, Any]]  # item -> rater -> value
    categories: list[Any] | None  # the categories given, converted like the values
    numeric: bool  # values were read as numbers

    @property
    def items(self) -> int:
        return len(self.table)

    @property
    def raters(self) -> int:
        return len({r for row in self.table.values() for r in row})


def parse_number(text: str) -> int | float | None:
    """A finite number (integral ones as int, so 3 and 3.0 are one category), else None."""
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else value


def read_ratings(path: str | Path, numeric: bool = False, categories: Sequence[str] | None = None) -> Ratings:
    """Read and check a ratings CSV; HumanEvalInputError names the file and the line.

    ``numeric``: every value must be a number (AC2). Otherwise values are read
    as numbers when all of them (and all ``categories``) are numbers, so that
    "1" and "1.0" agree, and as labels when not.
    """
    name = str(path)
    text = read_text(path)
    if not text.strip():
        raise HumanEvalInputError("empty file (expected a header line: item,rater,value)", name)
    rows = _rows(text, name)
    as_numbers = numeric or (all(parse_number(v) is not None for _, _, v, _ in rows)
                             and all(parse_number(c) is not None for c in categories or ()))
    cats = None if categories is None else [parse_number(c) if as_numbers else c for c in categories]
    allowed = None if cats is None else set(cats)
    table: dict[str, dict[str, Any]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for item, rater, text_value, line in rows:
        value: Any = parse_number(text_value) if as_numbers else text_value
        if value is None:
            raise HumanEvalInputError(f"value {text_value!r} is not a number (ordinal ratings must be numbers)",
                                      name, line)
        if allowed is not None and value not in allowed:
            raise HumanEvalInputError(f"value {text_value!r} is not one of the categories "
                                      f"{','.join(map(str, categories or ()))}", name, line)
        seen = table.setdefault(item, {})
        if rater in seen and seen[rater] != value:
            raise HumanEvalInputError(f"rater {rater!r} rated item {item!r} {seen[rater]!r} at line "
                                      f"{first_line[(item, rater)]} and {value!r} here", name, line)
        first_line.setdefault((item, rater), line)
        seen[rater] = value
    return Ratings(name, table, cats, as_numbers)



def header_positions(reader, required: tuple[str, ...] | list[str], name: str) -> list[int]:
    """Read the header line of ``reader`` (a csv.reader) and return where each ``required`` column is
    (names compared case-insensitively); a missing or repeated column is an input error naming the line."""
    header = next(reader)
    columns = [h.strip().lower() for h in header]
    missing = [c for c in required if c not in columns]
    if missing:
        raise HumanEvalInputError(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                                  f"(the header must name {', '.join(required)}; found: {','.join(header)})",
                                  name, reader.line_num)
    repeated = [c for c in required if columns.count(c) > 1]
    if repeated:
        raise HumanEvalInputError(f"the header names column {repeated[0]!r} twice", name, reader.line_num)
    return [columns.index(c) for c in required]

def _rows(text: str, name: str) -> list[tuple[str, str, str, int]]:
    """(item, rater, value, line) for every non-blank data row."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        where = header_positions(reader, COLUMNS, name)
        rows = []
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if len(row) <= max(where):
                raise HumanEvalInputError(f"expected at least {max(where) + 1} columns, found {len(row)}",
                                          name, reader.line_num)
            cells = [row[i].strip() for i in where]
            for column, cell in zip(COLUMNS, cells):
                if not cell:
                    raise HumanEvalInputError(f"empty {column} (leave the row out for a missing rating)",
                                              name, reader.line_num)
            rows.append((cells[0], cells[1], cells[2], reader.line_num))
    except csv.Error as exc:
        raise HumanEvalInputError(f"malformed CSV: {exc}", name, reader.line_num) from None
    if not rows:
        raise HumanEvalInputError("no ratings: the file has a header but no rows", name)
    return rows
