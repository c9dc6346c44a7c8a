"""ESA^AI span suggestions: the uploaded JSON Lines file, checked line by line.

One JSON object a line, one line per item and system::

    {"item": "doc1:3", "system": "sysA",
     "spans": [{"start": 4, "end": 9, "severity": "major"},
               {"text": "Hund", "severity": "minor"},
               {"missing": true, "severity": "major"}],
     "score": 72}

* ``item`` (a string or a whole number) and ``system`` (a string) name the segment;
  an (item, system) pair appears once.
* ``spans`` (may be empty: the suggester found no error) lists error spans, each with
  a ``severity`` of ``"minor"`` or ``"major"`` and one of

  - ``start`` and ``end``: character offsets into the translation, ``end`` exclusive
    (``translation[start:end]`` is the span, as a Python slice);
  - ``text``: the span's exact text; it marks the first occurrence not yet marked by an
    earlier ``text`` span of the same line (so two equal quotes mark two occurrences);
  - ``"missing": true``: an omission (the ``[missing]`` marker).

* ``score`` (optional): the suggester's own 0-100 score, used by the budget filter.

Without the translations (``translations=None``) the offsets are checked for shape
only and ``text`` spans stay unresolved (``ErrorSpan`` offsets None is reserved for
``[missing]``, so they are kept as :class:`Suggestion` ``quotes``); with
``translations`` (``{(item, system): text}``) every span is resolved to offsets and
checked against its translation, and a line naming an unknown item is an error.
Every problem of the file is reported, each with its line (up to ``MAX_PROBLEMS``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import HumanEvalInputError, read_text
from .appraise import ErrorSpan

SEVERITIES = ("minor", "major")
MAX_PROBLEMS = 50
_KEYS = {"item", "system", "spans", "score"}
_SPAN_KEYS = {"start", "end", "text", "missing", "severity"}


@dataclass(frozen=True)
class Suggestion:
    """The suggested spans of one item and system (ends inclusive, as :class:`ErrorSpan`)."""

    item: str
    system: str
    spans: tuple[ErrorSpan, ...]
    score: float | None = None
    #: ``text`` spans not resolved to offsets (no translation was given): (text, severity)
    quotes: tuple[tuple[str, str], ...] = ()
    line: int = 0

    @property
    def found_no_error(self) -> bool:
        return not self.spans and not self.quotes


class SuggestionsError(HumanEvalInputError):
    """Every problem of a suggestions file, each with its line."""

    def __init__(self, path: str, problems: list[tuple[int, str]]):
        self.problems = problems
        first_line, first = problems[0]
        super().__init__(first if len(problems) == 1 else f"{first} (and {len(problems) - 1} more problems)",
                         path, first_line)

    def report(self) -> str:
        """All problems, one ``path:line: message`` a line."""
        return "\n".join(f"{self.path}:{line}: {message}" for line, message in self.problems)


class _Problem(ValueError):
    pass


def locate(translation: str, text: str, taken: set[int]) -> int:
    """The start of the first occurrence of ``text`` in ``translation`` not in ``taken``; -1 if none."""
    at = translation.find(text)
    while at != -1 and at in taken:
        at = translation.find(text, at + 1)
    return at


def _severity(value: Any, n: int) -> str:
    if value not in SEVERITIES:
        raise _Problem(f'span {n}: "severity" must be "minor" or "major", not {json.dumps(value, ensure_ascii=False)}')
    return value


def _offset(value: Any, key: str, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Problem(f'span {n}: "{key}" must be a character offset (a whole number, 0 or more)')
    return value


def _span(obj: Any, n: int, translation: str | None, taken: set[int]) -> ErrorSpan | tuple[str, str]:
    if not isinstance(obj, dict):
        raise _Problem(f"span {n} is not an object")
    unknown = sorted(set(obj) - _SPAN_KEYS)
    if unknown:
        raise _Problem(f"span {n}: unknown field(s) {', '.join(unknown)} (a span has start/end, text or missing, "
                       f"and severity)")
    severity = _severity(obj.get("severity"), n)
    kinds = [k for k in ("start", "text", "missing") if k in obj]
    if "end" in obj and "start" not in obj:
        kinds.append("end")
    if len(kinds) != 1:
        raise _Problem(f'span {n} needs exactly one of "start" and "end", "text", or "missing": true')
    if kinds[0] == "missing":
        if obj["missing"] is not True:
            raise _Problem(f'span {n}: "missing" must be true')
        return ErrorSpan(None, None, severity)
    if kinds[0] == "text":
        text = obj["text"]
        if not isinstance(text, str) or not text.strip():
            raise _Problem(f'span {n}: "text" must be the span\'s text, not empty')
        if translation is None:
            return (text, severity)
        at = locate(translation, text, taken)
        if at == -1:
            raise _Problem(f"span {n}: the text {text!r} does not occur in the translation"
                           + (" (again)" if translation.find(text) != -1 else ""))
        taken.add(at)
        return ErrorSpan(at, at + len(text) - 1, severity)
    if "end" not in obj:
        raise _Problem(f'span {n} has "start" but no "end"')
    start, end = _offset(obj["start"], "start", n), _offset(obj["end"], "end", n)
    if end <= start:
        raise _Problem(f'span {n}: "end" ({end}) must be after "start" ({start}); end is exclusive')
    if translation is not None and end > len(translation):
        raise _Problem(f'span {n}: "end" ({end}) is past the end of the translation ({len(translation)} characters)')
    return ErrorSpan(start, end - 1, severity)


def parse_line(obj: Any, line: int, translations: Mapping[tuple[str, str], str] | None) -> Suggestion:
    if not isinstance(obj, dict):
        raise _Problem("a line is one JSON object")
    unknown = sorted(set(obj) - _KEYS)
    if unknown:
        raise _Problem(f"unknown field(s) {', '.join(unknown)} (a line has item, system, spans and score)")
    item, system = obj.get("item"), obj.get("system")
    if isinstance(item, bool) or not isinstance(item, (str, int)) or (isinstance(item, str) and not item.strip()):
        raise _Problem('"item" must be the item\'s id (a string or a whole number)')
    if not isinstance(system, str) or not system.strip():
        raise _Problem('"system" must be the system\'s name')
    item = str(item)
    translation = None
    if translations is not None:
        translation = translations.get((item, system))
        if translation is None:
            raise _Problem(f"no item {item!r} of system {system!r} in this campaign")
    spans_in = obj.get("spans")
    if not isinstance(spans_in, list):
        raise _Problem('"spans" must be a list (empty when no error was found)')
    score = obj.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                              or not math.isfinite(score) or not 0 <= score <= 100):
        raise _Problem('"score" must be a number from 0 to 100')
    taken: set[int] = set()
    parsed = [_span(s, n, translation, taken) for n, s in enumerate(spans_in, 1)]
    return Suggestion(item, system, tuple(s for s in parsed if isinstance(s, ErrorSpan)),
                      None if score is None else float(score), tuple(s for s in parsed if isinstance(s, tuple)),
                      line)


def parse_suggestions(text: str, path: str = "<text>",
                      translations: Mapping[tuple[str, str], str] | None = None) -> list[Suggestion]:
    """Every line of a suggestions file, checked; :class:`SuggestionsError` lists all problems."""
    out: list[Suggestion] = []
    problems: list[tuple[int, str]] = []
    seen: dict[tuple[str, str], int] = {}
    for line, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            problems.append((line, f"not JSON ({exc.msg} at character {exc.pos + 1})"))
        else:
            try:
                suggestion = parse_line(obj, line, translations)
            except _Problem as exc:
                problems.append((line, str(exc)))
            else:
                key = (suggestion.item, suggestion.system)
                if key in seen:
                    problems.append((line, f"item {key[0]!r} of system {key[1]!r} again (first on line {seen[key]})"))
                else:
                    seen[key] = line
                    out.append(suggestion)
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise SuggestionsError(path, problems)
    if not out:
        raise HumanEvalInputError("no suggestions: the file has no line", path)
    return out


def read_suggestions(path: str | Path, translations: Mapping[tuple[str, str], str] | None = None) -> list[Suggestion]:
    """Read and check a suggestions file (see the module's doc)."""
    return parse_suggestions(read_text(path), str(path), translations)


def skippable(suggestion: Suggestion, threshold: float) -> bool:
    """The ESA^AI budget filter: the suggester found no error and scored the item at least ``threshold``."""
    return suggestion.found_no_error and suggestion.score is not None and suggestion.score >= threshold
