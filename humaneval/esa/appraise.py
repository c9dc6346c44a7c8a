"""Appraise's score-export CSV of an ESA (or MQM) campaign: reading and writing it.

The file has no header and twelve columns, one annotated segment a row:

    annotator, system, item id, item type (TGT | BAD), source language, target language,
    score (0-100), document id, document flag (True | False), error spans (JSON), start time, end time

The error spans are a JSON list of ``{"start_i", "end_i", "severity", "error_type"}``.
``start_i``/``end_i`` are character offsets into the translation, both inclusive
(Appraise's span editor selects the characters ``start_i <= i <= end_i``), or both the
string ``"missing"`` for the ``[MISSING]`` marker that takes omissions. Appraise
writes the JSON compactly, keys in that order; a few spans in real exports have
no ``error_type`` key, and MQM exports put a ``[category, subcategory]`` list there.
Times are seconds since the epoch.

:func:`write_scores` writes rows back in the same format: what :func:`read_scores`
read comes out byte for byte (the line ends, ``\\n`` or ``\\r\\n``, are kept) as long
as the numbers were written the way Appraise writes them (scores as integers, times
as Python's shortest float repr) and the JSON was compact; a score written ``51.0``
comes back as ``51``, and JSON with spaces comes back compact.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import HumanEvalInputError, read_text

COLUMNS = ("annotator", "system", "item id", "item type", "source language", "target language", "score",
           "document id", "document flag", "error spans", "start time", "end time")
ITEM_TYPES = ("TGT", "BAD")
MISSING = "missing"
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_FLAGS = {"true": True, "false": False}
_SPAN_KEYS = ("start_i", "end_i", "severity", "error_type")


@dataclass(frozen=True)
class ErrorSpan:
    """One marked error. ``start``/``end`` are inclusive character offsets, both None for ``[missing]``."""

    start: int | None
    end: int | None
    severity: str
    error_type: Any = None
    #: whether the JSON had an ``error_type`` key (Appraise omits it on a few spans)
    has_error_type: bool = True
    #: keys beyond the four, kept in order so that writing the span back loses nothing
    extra: tuple[tuple[str, Any], ...] = ()

    @property
    def missing(self) -> bool:
        return self.start is None

    @property
    def length(self) -> int:
        """Characters covered (0 for ``[missing]``)."""
        return 0 if self.start is None or self.end is None else self.end - self.start + 1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"start_i": MISSING if self.start is None else self.start,
                               "end_i": MISSING if self.end is None else self.end,
                               "severity": self.severity}
        if self.has_error_type:
            out["error_type"] = self.error_type
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class ScoreRow:
    """One row of an Appraise score export. ``line`` is where it starts in its file (0 when built in code)."""

    annotator: str
    system: str
    item: str
    item_type: str
    source_language: str
    target_language: str
    score: float
    document: str
    document_flag: bool
    spans: tuple[ErrorSpan, ...]
    start_time: float
    end_time: float
    line: int = field(default=0, compare=False)

    @property
    def is_bad(self) -> bool:
        return self.item_type == "BAD"

    @property
    def is_tutorial(self) -> bool:
        return "tutorial" in self.system or "tutorial" in self.document

    @property
    def is_duplicate(self) -> bool:
        return "#duplicate" in self.document

    @property
    def counts(self) -> bool:
        """Whether the row counts at all: not a tutorial item, not a ``#duplicate`` document."""
        return not (self.is_tutorial or self.is_duplicate)

    @property
    def seconds(self) -> float:
        return self.end_time - self.start_time

    def cells(self) -> list[str]:
        """The twelve cells as Appraise writes them."""
        return [self.annotator, self.system, self.item, self.item_type, self.source_language,
                self.target_language, format_number(self.score), self.document, str(self.document_flag),
                json.dumps([s.to_json() for s in self.spans], separators=(",", ":"), ensure_ascii=False),
                repr(float(self.start_time)), repr(float(self.end_time))]


@dataclass
class ScoreFile:
    """The rows of one export, and its line end (kept for writing it back)."""

    path: str
    rows: list[ScoreRow]
    newline: str = "\n"


def format_number(value: float) -> str:
    """A score as Appraise writes it: ``51`` for integral values, else Python's repr."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _number(text: str, what: str, where: tuple[str, int]) -> float:
    value = float(text) if _NUMBER.fullmatch(text.strip()) else math.nan
    if not math.isfinite(value):
        raise HumanEvalInputError(f"the {what} must be a number, not {text!r}", *where)
    return value


def _offset(value: Any, key: str, n: int, where: tuple[str, int]) -> int | None:
    if value == MISSING:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HumanEvalInputError(f'error span {n}: "{key}" must be a character offset (a whole number, '
                                  f'0 or more) or "missing", not {json.dumps(value, ensure_ascii=False)}', *where)
    return value


def parse_spans(text: str, where: tuple[str, int] = ("", 0)) -> tuple[ErrorSpan, ...]:
    """The error-spans cell: a JSON list of span objects (see the module's doc)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HumanEvalInputError(f"the error spans are not JSON ({exc.msg} at character {exc.pos + 1}): "
                                  f"{text[:80]!r}", *where) from None
    if not isinstance(data, list):
        raise HumanEvalInputError("the error spans must be a JSON list of span objects", *where)
    spans = []
    for n, obj in enumerate(data, 1):
        if not isinstance(obj, dict):
            raise HumanEvalInputError(f"error span {n} is not an object", *where)
        for key in ("start_i", "end_i", "severity"):
            if key not in obj:
                raise HumanEvalInputError(f'error span {n} has no "{key}"', *where)
        start = _offset(obj["start_i"], "start_i", n, where)
        end = _offset(obj["end_i"], "end_i", n, where)
        if (start is None) != (end is None):
            raise HumanEvalInputError(f'error span {n}: "start_i" and "end_i" must both be "missing" or both '
                                      f'offsets', *where)
        if start is not None and end is not None and end < start:
            raise HumanEvalInputError(f"error span {n} ends ({end}) before it starts ({start})", *where)
        severity = obj["severity"]
        if not isinstance(severity, str) or not severity.strip():
            raise HumanEvalInputError(f'error span {n}: "severity" must be a non-empty string', *where)
        spans.append(ErrorSpan(start, end, severity, obj.get("error_type"), "error_type" in obj,
                               tuple((k, v) for k, v in obj.items() if k not in _SPAN_KEYS)))
    return tuple(spans)


def parse_row(cells: list[str], where: tuple[str, int]) -> ScoreRow:
    """One record of the CSV (its cells), checked."""
    if len(cells) != len(COLUMNS):
        raise HumanEvalInputError(f"expected {len(COLUMNS)} columns ({', '.join(COLUMNS)}), found {len(cells)}",
                                  *where)
    (annotator, system, item, item_type, src, tgt, score, document, flag, spans, start, end) = cells
    for name, value in (("annotator", annotator), ("system", system), ("item id", item)):
        if not value.strip():
            raise HumanEvalInputError(f"the {name} is empty", *where)
    if item_type not in ITEM_TYPES:
        raise HumanEvalInputError(f"the item type must be TGT (an item to score) or BAD (an attention check), "
                                  f"not {item_type!r}", *where)
    value = _number(score, "score", where)
    if not 0 <= value <= 100:
        raise HumanEvalInputError(f"the score must be between 0 and 100, not {score}", *where)
    if flag.strip().lower() not in _FLAGS:
        raise HumanEvalInputError(f"the document flag must be True or False, not {flag!r}", *where)
    started, ended = _number(start, "start time", where), _number(end, "end time", where)
    return ScoreRow(annotator, system, item, item_type, src, tgt, value, document, _FLAGS[flag.strip().lower()],
                    parse_spans(spans, where), started, ended, line=where[1])


def parse_scores(text: str, path: str = "<text>") -> ScoreFile:
    """Rows of an export given as text; HumanEvalInputError names the file and the line."""
    newline = "\r\n" if text.split("\n", 1)[0].endswith("\r") else "\n"
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[ScoreRow] = []
    line = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise HumanEvalInputError(f"not valid CSV: {exc}", path, line) from None
        if cells and any(c.strip() for c in cells):
            rows.append(parse_row(cells, (path, line)))
        line = reader.line_num + 1
    if not rows:
        raise HumanEvalInputError("no rows: an Appraise score export has one row per annotated segment", path)
    return ScoreFile(path, rows, newline)


def read_scores(path: str | Path) -> ScoreFile:
    """Read and check an Appraise score export (see the module's doc)."""
    return parse_scores(read_text(path), str(path))


def format_scores(rows: Iterable[ScoreRow], newline: str = "\n") -> str:
    buffer = io.StringIO()
    write_scores(rows, buffer, newline)
    return buffer.getvalue()


def write_scores(rows: Iterable[ScoreRow], out: str | Path | IO[str], newline: str = "\n") -> None:
    """Write rows as an Appraise score export: no header, twelve columns, minimal quoting (as Appraise)."""
    if isinstance(out, (str, Path)):
        with open(out, "w", encoding="utf-8", newline="") as fh:
            write_scores(rows, fh, newline)
        return
    writer = csv.writer(out, lineterminator=newline)
    for row in rows:
        cells = row.cells()
        # csv quotes only the line terminator's own characters: a lone "\r" in an id would split the row
        broken = [COLUMNS[i] for i, c in enumerate(cells) if "\r" in c or "\n" in c]
        if broken:
            raise ValueError(f"a line break in the {', '.join(broken)} of {row.annotator!r}'s item {row.item!r}: "
                             f"Appraise ids have none")
        writer.writerow(cells)
