"""Phenomenon tags of a test set: ``phenomena.jsonl`` next to its ``testset.json``.

One JSON object a line (blank lines are skipped)::

    {"document": "ch01", "segment": 3, "dimension": "idiom",
     "requirement": "心细如发 is an idiom: 'meticulous', not a hair", "context": "optional text"}

* ``document``: a document of the test set (its file name under ``source/`` without ``.txt``);
* ``segment``: the segment's 1-based line number within that document's file (as editors and
  ``scoring.testset`` number lines: ``source/ch01.txt`` line 3);
* ``dimension``: a dimension key of the rubric (DITING: idiom, ambiguity, terminology, tense,
  zero_pronoun, cultural_safety);
* ``requirement``: what the annotator or judge must check, shown on the item page;
* ``context`` (optional): text shown before the source, e.g. the last sentence of the previous
  paragraph; without it the item page shows the document's previous segment.

A segment may carry several phenomena of different dimensions, not the same dimension twice.
Every problem is reported with its line number, all at once (up to 50).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import HumanEvalInputError, read_text

PHENOMENA_FILE = "phenomena.jsonl"
#: the field of testset.json that names the rubric its phenomenon tags are checked against (default DITING's)
TESTSET_RUBRIC_FIELD = "rubric"
REQUIRED = ("document", "segment", "dimension", "requirement")
OPTIONAL = ("context",)
MAX_ERRORS = 50
MAX_TEXT = 5000


@dataclass(frozen=True)
class Phenomenon:
    document: str
    segment: int  # 1-based within the document
    dimension: str
    requirement: str
    context: str = ""
    line: int = 0  # where it was read

    def to_dict(self) -> dict:
        out = {"document": self.document, "segment": self.segment, "dimension": self.dimension,
               "requirement": self.requirement}
        if self.context:
            out["context"] = self.context
        return out


class PhenomenaError(HumanEvalInputError):
    """Every problem of a phenomena file: ``errors`` is a list of (line, message)."""

    def __init__(self, errors: list[tuple[int | None, str]], path: str | None = None, more: int = 0):
        self.errors = errors
        self.more = more
        lines = [_where(path, line, message) for line, message in errors]
        if more:
            lines.append(f"... and {more} more")
        first_line = errors[0][0] if errors else None
        super().__init__("\n".join(lines), None, None)
        self.path, self.line = path, first_line

    def __str__(self) -> str:
        return self.message


def _where(path: str | None, line: int | None, message: str) -> str:
    where = ":".join(str(p) for p in (path, line) if p is not None)
    return f"{where}: {message}" if where else message


def parse_phenomena(text: str, documents: Mapping[str, int], dimensions: Iterable[str],
                    path: str | None = None) -> list[Phenomenon]:
    """The phenomena of ``text``, checked against the test set's ``documents`` ({name: segment count})
    and the rubric's ``dimensions``; raises PhenomenaError listing every problem with its line."""
    dims = tuple(dimensions)
    errors: list[tuple[int | None, str]] = []
    found: list[Phenomenon] = []
    seen: dict[tuple[str, int, str], int] = {}
    # Split on newlines only: str.splitlines() would also split inside a JSON string holding U+2028.
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        if not raw.strip():
            continue
        problems = _check_line(raw, documents, dims)
        if isinstance(problems, list):
            errors.extend((number, p) for p in problems)
            continue
        key = (problems.document, problems.segment, problems.dimension)
        if key in seen:
            errors.append((number, f"segment {problems.segment} of {problems.document!r} is already tagged "
                                   f"{problems.dimension!r} on line {seen[key]}"))
            continue
        seen[key] = number
        found.append(Phenomenon(**{**problems.__dict__, "line": number}))
    if not errors and not found:
        errors.append((None, "no phenomena: the file has no JSON lines"))
    if errors:
        raise PhenomenaError(errors[:MAX_ERRORS], path, max(0, len(errors) - MAX_ERRORS))
    return found


def _check_line(raw: str, documents: Mapping[str, int], dims: tuple[str, ...]) -> Phenomenon | list[str]:
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        return [f"not valid JSON: {exc.msg} (column {exc.colno})"]
    if not isinstance(obj, dict):
        return [f"a line is one JSON object {{{', '.join(REQUIRED)}}}, not {type(obj).__name__}"]
    problems = [f"missing field {k!r}" for k in REQUIRED if k not in obj]
    problems += [f"unknown field {k!r} (fields: {', '.join(REQUIRED + OPTIONAL)})"
                 for k in obj if k not in REQUIRED + OPTIONAL]
    document, segment, dimension = obj.get("document"), obj.get("segment"), obj.get("dimension")
    if "document" in obj:
        if not isinstance(document, str) or not document:
            problems.append("document must be a document name (text)")
        elif document not in documents:
            names = sorted(documents)
            shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
            problems.append(f"unknown document {document!r} (the test set has: {shown})")
    if "segment" in obj:
        if not isinstance(segment, int) or isinstance(segment, bool):
            problems.append(f"segment must be a whole number (1-based line in the document), not {segment!r}")
        elif isinstance(document, str) and document in documents and not 1 <= segment <= documents[document]:
            problems.append(f"segment {segment} is out of range: {document!r} has segments 1-{documents[document]}")
        elif segment < 1:
            problems.append(f"segment {segment} is out of range: segments count from 1")
    if "dimension" in obj and dimension not in dims:
        problems.append(f"unknown dimension {dimension!r} (one of: {', '.join(dims)})")
    for key in ("requirement", "context"):
        value = obj.get(key)
        if key == "requirement" and key in obj and (not isinstance(value, str) or not value.strip()):
            problems.append("requirement must be non-empty text")
        elif key == "context" and value is not None and not isinstance(value, str):
            problems.append("context must be text")
        elif isinstance(value, str) and len(value) > MAX_TEXT:
            problems.append(f"{key} is longer than {MAX_TEXT} characters")
    if problems:
        return problems
    return Phenomenon(document=document, segment=segment, dimension=dimension,
                      requirement=obj["requirement"].strip(), context=(obj.get("context") or "").strip())


def load_phenomena(path: str | Path, documents: Mapping[str, int], dimensions: Iterable[str]) -> list[Phenomenon]:
    """Read and check a phenomena file (see :func:`parse_phenomena`)."""
    return parse_phenomena(read_text(path), documents, dimensions, str(path))


def dump_phenomena(phenomena: Iterable[Phenomenon]) -> str:
    """The file again, one line per phenomenon."""
    return "".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in phenomena)
