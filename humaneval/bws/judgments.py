"""Best–worst judgments in a CSV file: a header naming ``item``, ``annotator``, ``versions``, ``best``, ``worst``.

One judgment a row: ``versions`` is the tuple shown (its versions separated by ``|``),
``best`` and ``worst`` two different members of it. Other columns are ignored and the
columns may come in any order. Blank rows are skipped.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import HumanEvalInputError, read_text
from ..ratings_csv import header_positions

COLUMNS = ("item", "annotator", "versions", "best", "worst")
SEPARATOR = "|"


@dataclass(frozen=True)
class Judgment:
    """One annotator's choice of the best and the worst version of one tuple."""

    item: str
    annotator: str
    versions: tuple[str, ...]
    best: str
    worst: str
    line: int | None = None  # where it was read, for messages


def check_judgment(judgment: Judgment) -> str | None:
    """What is wrong with a judgment, or None."""
    versions = judgment.versions
    if len(versions) < 2:
        return f"a tuple needs at least two versions, found {len(versions)}"
    if any(not v for v in versions):
        return "versions has an empty entry"
    repeated = sorted({v for v in versions if versions.count(v) > 1})
    if repeated:
        return f"version {repeated[0]!r} appears twice in the tuple"
    if judgment.best not in versions:
        return f"best {judgment.best!r} is not one of the tuple's versions ({SEPARATOR.join(versions)})"
    if judgment.worst not in versions:
        return f"worst {judgment.worst!r} is not one of the tuple's versions ({SEPARATOR.join(versions)})"
    if judgment.best == judgment.worst:
        return f"best and worst are the same version {judgment.best!r}"
    return None


def check_judgments(judgments: Sequence[Judgment], path: str | None = None) -> None:
    """Raise :class:`HumanEvalInputError` at the first bad judgment (or when there is none)."""
    if not judgments:
        raise HumanEvalInputError("no judgments", path)
    for judgment in judgments:
        problem = check_judgment(judgment)
        if problem:
            raise HumanEvalInputError(problem, path, judgment.line)


def read_judgments(path: str | Path) -> list[Judgment]:
    """Read and check a judgments CSV; :class:`HumanEvalInputError` names the file and the line."""
    name = str(path)
    text = read_text(path)
    if not text.strip():
        raise HumanEvalInputError(f"empty file (expected a header line: {','.join(COLUMNS)})", name)
    reader = csv.reader(io.StringIO(text, newline=""))
    judgments: list[Judgment] = []
    try:
        where = header_positions(reader, COLUMNS, name)
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if len(row) <= max(where):
                raise HumanEvalInputError(f"expected at least {max(where) + 1} columns, found {len(row)}",
                                          name, reader.line_num)
            item, annotator, versions, best, worst = (row[i].strip() for i in where)
            for column, cell in zip(COLUMNS, (item, annotator, versions, best, worst)):
                if not cell:
                    raise HumanEvalInputError(f"empty {column}", name, reader.line_num)
            judgment = Judgment(item, annotator, tuple(v.strip() for v in versions.split(SEPARATOR)),
                                best, worst, reader.line_num)
            problem = check_judgment(judgment)
            if problem:
                raise HumanEvalInputError(problem, name, reader.line_num)
            judgments.append(judgment)
    except csv.Error as exc:
        raise HumanEvalInputError(f"malformed CSV: {exc}", name, reader.line_num) from None
    if not judgments:
        raise HumanEvalInputError("no judgments: the file has a header but no rows", name)
    return judgments
