"""Rubrics as data: dimensions, each with one Specific and two General criteria scored on a small scale.

A rubric file (``humaneval/rubrics/*.json``, or an organizer's own file) holds::

    name, title           strings (name: letters, digits, "-", "_")
    reference             string, optional: where the criteria come from
    scale                 [0, 1, 2]: distinct non-negative integers, ascending
    guidelines            [strings], optional: shown to annotators and judges
    dimensions            [{key, name, description, criteria}]
      criteria            exactly three, in this order:
                          {"key": "sp",  "kind": "specific", name, description, levels, short?, note?, refusal?}
                          {"key": "g_1", "kind": "general", ...}
                          {"key": "g_2", "kind": "general", ...}
        levels            {"0": text, "1": text, "2": text}: one text per scale point
        short             optional, the same keys: a few words per level (the paper's Table 3)
        note              optional: an editorial note (e.g. where the text departs from the paper)
        refusal           optional, on at most one criterion of a dimension:
                          {"justified": score, "unjustified": score}: what that criterion must be
                          when the system refused to translate (DITING: Sensitive Information Handling)

The criterion keys are fixed because responses, results and judges' answers use them
(``{"sp", "g_1", "g_2"}``). Errors name the file and the field path
(``dimensions[2].criteria[1].levels.1``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import HumanEvalInputError, read_text

# Package data next to this package (installed by pyproject's package-data); a plain path, as mqm does.
RUBRICS_DIR = Path(__file__).resolve().parent.parent / "rubrics"
DEFAULT_RUBRIC = "diting"
CRITERION_KEYS = ("sp", "g_1", "g_2")
CRITERION_KINDS = {"sp": "specific", "g_1": "general", "g_2": "general"}
REFUSALS = ("justified", "unjustified")
DITING_DIMENSIONS = ("idiom", "ambiguity", "terminology", "tense", "zero_pronoun", "cultural_safety")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


class RubricError(HumanEvalInputError):
    """A rubric file that does not follow the format: names the file and the field path."""

    def __init__(self, message: str, path: str | None = None, field: str = ""):
        super().__init__(f"{field}: {message}" if field else message, path)
        self.field = field


@dataclass(frozen=True)
class Level:
    score: int
    text: str
    short: str = ""


@dataclass(frozen=True)
class RefusalRule:
    """The score a criterion must take when the system refused to translate."""

    justified: int
    unjustified: int

    def score(self, refusal: str) -> int:
        return self.justified if refusal == "justified" else self.unjustified


@dataclass(frozen=True)
class Criterion:
    key: str  # "sp", "g_1", "g_2"
    kind: str  # "specific" or "general"
    name: str
    description: str
    levels: tuple[Level, ...]  # one per scale point, highest first (as the paper prints them)
    note: str = ""
    refusal: RefusalRule | None = None

    def level(self, score: int) -> Level:
        return next(lv for lv in self.levels if lv.score == score)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "kind": self.kind, "name": self.name,
                               "description": self.description,
                               "levels": {str(lv.score): lv.text for lv in self.levels}}
        if any(lv.short for lv in self.levels):
            out["short"] = {str(lv.score): lv.short for lv in self.levels}
        if self.note:
            out["note"] = self.note
        if self.refusal:
            out["refusal"] = {"justified": self.refusal.justified, "unjustified": self.refusal.unjustified}
        return out


@dataclass(frozen=True)
class Dimension:
    key: str
    name: str
    description: str
    criteria: tuple[Criterion, ...]  # sp, g_1, g_2

    def criterion(self, key: str) -> Criterion:
        return next(c for c in self.criteria if c.key == key)

    @property
    def refusal_criterion(self) -> Criterion | None:
        return next((c for c in self.criteria if c.refusal is not None), None)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "description": self.description,
                "criteria": [c.to_dict() for c in self.criteria]}


@dataclass(frozen=True)
class Rubric:
    name: str
    title: str
    scale: tuple[int, ...]
    dimensions: tuple[Dimension, ...]
    reference: str = ""
    guidelines: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(d.key for d in self.dimensions)

    @property
    def max_sigma(self) -> int:
        return len(CRITERION_KEYS) * max(self.scale)

    def dimension(self, key: str) -> Dimension | None:
        return next((d for d in self.dimensions if d.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        """The file format again: ``parse_rubric(r.to_dict()) == r``."""
        out: dict[str, Any] = {"name": self.name, "title": self.title}
        if self.reference:
            out["reference"] = self.reference
        out["scale"] = list(self.scale)
        if self.guidelines:
            out["guidelines"] = list(self.guidelines)
        out["dimensions"] = [d.to_dict() for d in self.dimensions]
        return out


def available_rubrics() -> list[str]:
    """The rubrics shipped with the package, by name."""
    return sorted(p.stem for p in RUBRICS_DIR.glob("*.json"))


def load_rubric(name_or_path: str | Path = DEFAULT_RUBRIC) -> Rubric:
    """A shipped rubric by name (``"diting"``) or a rubric file by path; RubricError names file and field."""
    text_name = str(name_or_path)
    if isinstance(name_or_path, str) and _NAME.match(text_name) and (RUBRICS_DIR / f"{text_name}.json").is_file():
        return _load_shipped(text_name)
    path = Path(name_or_path)
    if not path.is_file():
        raise RubricError(f"no rubric file or shipped rubric named {text_name!r} "
                          f"(shipped: {', '.join(available_rubrics())})", text_name)
    return _load_file(path)


@lru_cache(maxsize=None)
def _load_shipped(name: str) -> Rubric:
    # Rubrics are frozen, so one parsed copy per shipped file serves every caller.
    return _load_file(RUBRICS_DIR / f"{name}.json")


def _load_file(path: Path) -> Rubric:
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HumanEvalInputError(f"not valid JSON: {exc.msg} (column {exc.colno})", str(path), exc.lineno) from None
    return parse_rubric(data, str(path))


def parse_rubric(data: Any, source: str | None = None) -> Rubric:
    """Check a rubric's parsed JSON and build it; ``source`` names the file in errors."""
    def fail(field: str, message: str):
        raise RubricError(message, source, field)

    def text(obj: dict, key: str, field: str, required: bool = True) -> str:
        value = obj.get(key)
        if value is None and not required:
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            fail(f"{field}.{key}" if field else key, "must be a non-empty string")
        return value.strip()

    if not isinstance(data, dict):
        fail("", "a rubric is a JSON object")
    name = text(data, "name", "")
    if not _NAME.match(name):
        fail("name", f"{name!r} may hold only letters, digits, '-' and '_'")
    scale = data.get("scale")
    if (not isinstance(scale, list) or len(scale) < 2
            or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in scale)
            or scale != sorted(set(scale))):
        fail("scale", "must list at least two distinct non-negative integers, ascending (e.g. [0, 1, 2])")
    guidelines = data.get("guidelines", [])
    if not isinstance(guidelines, list) or any(not isinstance(g, str) for g in guidelines):
        fail("guidelines", "must be a list of strings")
    dims = data.get("dimensions")
    if not isinstance(dims, list) or not dims:
        fail("dimensions", "must be a non-empty list")
    dimensions = []
    for i, dim in enumerate(dims):
        dimensions.append(_parse_dimension(dim, f"dimensions[{i}]", tuple(scale), fail, text))
    seen: set[str] = set()
    for i, dim in enumerate(dimensions):
        if dim.key in seen:
            fail(f"dimensions[{i}].key", f"{dim.key!r} appears twice")
        seen.add(dim.key)
    return Rubric(name=name, title=text(data, "title", ""), scale=tuple(scale), dimensions=tuple(dimensions),
                  reference=text(data, "reference", "", required=False), guidelines=tuple(guidelines))


def _parse_dimension(dim: Any, field: str, scale: tuple[int, ...], fail, text) -> Dimension:
    if not isinstance(dim, dict):
        fail(field, "a dimension is a JSON object")
    key = text(dim, "key", field)
    if not _NAME.match(key):
        fail(f"{field}.key", f"{key!r} may hold only letters, digits, '-' and '_'")
    crits = dim.get("criteria")
    if not isinstance(crits, list) or [c.get("key") if isinstance(c, dict) else None for c in crits] != list(CRITERION_KEYS):
        fail(f"{field}.criteria", "must be exactly three criteria with the keys sp, g_1, g_2, in that order")
    criteria = tuple(_parse_criterion(c, f"{field}.criteria[{j}]", scale, fail, text) for j, c in enumerate(crits))
    if sum(c.refusal is not None for c in criteria) > 1:
        fail(f"{field}.criteria", "at most one criterion of a dimension may hold the refusal rule")
    return Dimension(key=key, name=text(dim, "name", field), description=text(dim, "description", field),
                     criteria=criteria)


def _parse_criterion(crit: dict, field: str, scale: tuple[int, ...], fail, text) -> Criterion:
    key = crit["key"]
    kind = crit.get("kind")
    if kind != CRITERION_KINDS[key]:
        fail(f"{field}.kind", f"must be {CRITERION_KINDS[key]!r} for {key} (got {kind!r})")
    want = {str(s) for s in scale}
    levels = crit.get("levels")
    if not isinstance(levels, dict) or set(levels) != want:
        got = sorted(levels) if isinstance(levels, dict) else type(levels).__name__
        fail(f"{field}.levels", f"must give one text for each scale point {sorted(want)} (got {got})")
    for point, value in levels.items():
        if not isinstance(value, str) or not value.strip():
            fail(f"{field}.levels.{point}", "must be a non-empty string")
    short = crit.get("short", {})
    if not isinstance(short, dict) or (short and set(short) != want) or any(
            not isinstance(v, str) for v in short.values()):
        fail(f"{field}.short", f"if given, must give one string for each scale point {sorted(want)}")
    refusal = None
    if crit.get("refusal") is not None:
        rule = crit["refusal"]
        if (not isinstance(rule, dict) or set(rule) != set(REFUSALS)
                or any(rule[k] not in scale or isinstance(rule[k], bool) for k in REFUSALS)):
            fail(f"{field}.refusal", f'must be {{"justified": score, "unjustified": score}} with scores in {list(scale)}')
        refusal = RefusalRule(rule["justified"], rule["unjustified"])
    return Criterion(
        key=key, kind=kind, name=text(crit, "name", field), description=text(crit, "description", field),
        levels=tuple(Level(s, levels[str(s)].strip(), short.get(str(s), "").strip()) for s in reversed(scale)),
        note=text(crit, "note", field, required=False), refusal=refusal)
