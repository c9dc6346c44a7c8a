"""Typologies and severity schemes, loaded from JSON data (``mqm/schemes/*.json``).

A scheme file holds::

    name, title, reference, score_formula     strings
    scoring            "per_source_word" (WMT23 literary) or "segment_sum" (Google MQM)
    higher_is_better   bool
    severities         [{name, weight, description, short?}]
    categories         [{name, definition, example?, sides?, subcategories: [{name, definition, example?, sides?}]}]
    weight_rules       [{category, weight, severity?, match: "exact"|"prefix"}]   first match wins
    source_error_categories   [category names]  what ``zero_source_errors`` zeroes

Categories and severities match ignoring case, underscores and extra spaces. Any category string is
accepted when scoring (Google's files use many); only severities are checked.

``short`` is a severity's one- or two-letter label, shown with its colour wherever a mark is drawn
(default: its first letter, or its first two where two severities share a first letter:
Neutral N, Minor Mi, Major Ma, Critical C).

``sides`` says on which side of a segment annotators may mark a category: ``["target"]`` (the
default), ``["source"]`` (an omission is marked on the source words left out) or both. A category's
``sides`` is the default of its subcategories; a subcategory's own ``sides`` overrides it. A category
with subcategories is offered on a side when at least one of its subcategories is
(:meth:`Scheme.sides_for`). Side rules are for what annotators save in the annotation platform:
imported files (TSV, JSON) are historical data and are never checked against them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

DEFAULT_SCHEME = "wmt23-literary"
# Package data next to this file (installed by pyproject's package-data). A plain path
# rather than importlib.resources, which fails when the package is imported as a namespace
# package (an editable install made before mqm/__init__.py existed).
SCHEMES_DIR = Path(__file__).resolve().parent / "schemes"
SCORINGS = ("per_source_word", "segment_sum")


SIDES = ("target", "source")
DEFAULT_SIDES = ("target",)


class SchemeError(ValueError):
    pass


def norm(name: str) -> str:
    """Names compare case-, underscore- and spacing-insensitively (tools vary on these)."""
    return " ".join(name.replace("_", " ").split()).lower()


@dataclass(frozen=True)
class Severity:
    name: str
    weight: float
    description: str = ""
    short: str = ""  # the letter(s) drawn with the severity's colour; filled in by the scheme


@dataclass(frozen=True)
class Category:
    name: str
    definition: str = ""
    example: str = ""
    subcategories: tuple[Category, ...] = ()
    sides: tuple[str, ...] = DEFAULT_SIDES  # where it may be marked ("target", "source")

    @property
    def offered_sides(self) -> tuple[str, ...]:
        """The sides on which the category can be chosen: its own, or any of its subcategories'."""
        if not self.subcategories:
            return self.sides
        return tuple(s for s in SIDES if any(s in sub.sides for sub in self.subcategories))

    def subcategory(self, name: str) -> Category | None:
        low = norm(name)
        return next((s for s in self.subcategories if norm(s.name) == low), None)


@dataclass(frozen=True)
class WeightRule:
    category: str
    weight: float
    severity: str | None = None
    match: str = "exact"  # or "prefix"

    def applies(self, category: str, severity: str) -> bool:
        if self.severity is not None and norm(self.severity) != norm(severity):
            return False
        cat, want = norm(category), norm(self.category)
        return cat.startswith(want) if self.match == "prefix" else cat == want


@dataclass(frozen=True)
class Scheme:
    name: str
    scoring: str
    higher_is_better: bool
    severities: tuple[Severity, ...]
    categories: tuple[Category, ...] = ()
    rules: tuple[WeightRule, ...] = ()
    source_error_categories: tuple[str, ...] = ()
    title: str = ""
    reference: str = ""
    score_formula: str = ""

    def severity(self, name: str) -> Severity | None:
        low = norm(name)
        return next((s for s in self.severities if norm(s.name) == low), None)

    def category(self, name: str) -> Category | None:
        low = norm(name)
        return next((c for c in self.categories if norm(c.name) == low), None)

    def sides_for(self, category: str, subcategory: str = "") -> tuple[str, ...] | None:
        """Where annotators may mark ``category`` (or ``category``/``subcategory``).

        None when the scheme does not know that category or subcategory. Without a subcategory, a
        category that has subcategories answers the sides of any of them (:attr:`Category.offered_sides`).
        """
        cat = self.category(category)
        if cat is None:
            return None
        if not subcategory:
            return cat.offered_sides
        sub = cat.subcategory(subcategory)
        return sub.sides if sub is not None else None

    def categories_for_side(self, side: str) -> list[tuple[str, list[str]]]:
        """[(category, [subcategories])] that may be marked on ``side``, in the scheme's order."""
        out = []
        for cat in self.categories:
            if side in cat.offered_sides:
                out.append((cat.name, [s.name for s in cat.subcategories if side in s.sides]))
        return out

    @property
    def severity_names(self) -> list[str]:
        return [s.name for s in self.severities]

    def weight(self, category: str, severity: str) -> float:
        """Weight of one error; KeyError for a severity the scheme does not know."""
        sev = self.severity(severity)
        if sev is None:
            raise KeyError(f"unknown severity {severity!r} for scheme {self.name} "
                           f"(known: {', '.join(self.severity_names)})")
        for rule in self.rules:
            if rule.applies(category, sev.name):
                return rule.weight
        return sev.weight

    def with_options(self, *, zero_source_errors: bool = False,
                     zero_categories: tuple[str, ...] | list[str] = ()) -> Scheme:
        """A copy whose source errors and/or the given categories (prefix match) weigh 0."""
        zero = list(zero_categories) + (list(self.source_error_categories) if zero_source_errors else [])
        if not zero:
            return self
        extra = tuple(WeightRule(category=c, weight=0.0, match="prefix") for c in zero)
        return replace(self, rules=extra + self.rules)

    def to_dict(self) -> dict[str, Any]:
        def cat(c: Category) -> dict[str, Any]:
            return {"name": c.name, "definition": c.definition, "example": c.example, "sides": list(c.sides),
                    "subcategories": [cat(s) for s in c.subcategories]}
        return {"name": self.name, "title": self.title, "reference": self.reference,
                "scoring": self.scoring, "higher_is_better": self.higher_is_better,
                "score_formula": self.score_formula,
                "severities": [{"name": s.name, "weight": s.weight, "description": s.description,
                                "short": s.short} for s in self.severities],
                "categories": [cat(c) for c in self.categories],
                "weight_rules": [{"category": r.category, "weight": r.weight, "severity": r.severity,
                                  "match": r.match} for r in self.rules],
                "source_error_categories": list(self.source_error_categories)}


def available_schemes() -> list[str]:
    return sorted(p.stem for p in SCHEMES_DIR.glob("*.json"))


def _sides(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or any(not isinstance(s, str) for s in value):
        raise SchemeError(f"{where}: sides must be a non-empty list of {' / '.join(map(repr, SIDES))}, "
                          f"not {value!r}")
    unknown = [s for s in value if s not in SIDES]
    if unknown:
        raise SchemeError(f"{where}: unknown side {unknown[0]!r} (sides are {', '.join(map(repr, SIDES))})")
    if len(set(value)) != len(value):
        raise SchemeError(f"{where}: a side is listed twice in {value!r}")
    return tuple(s for s in SIDES if s in value)


def _category(d: dict[str, Any], inherited: tuple[str, ...] = DEFAULT_SIDES, parent: str = "") -> Category:
    name = str(d["name"])
    where = f"category {parent + '/' if parent else ''}{name}"
    sides = _sides(d["sides"], where) if "sides" in d else inherited
    return Category(name=name, definition=str(d.get("definition", "")), example=str(d.get("example", "")),
                    sides=sides,
                    subcategories=tuple(_category(s, sides, name) for s in d.get("subcategories", [])))


def short_labels(names: list[str]) -> list[str]:
    """One letter per severity, two where severities share their first letter (Minor Mi, Major Ma)."""
    firsts = [n[:1].upper() for n in names]
    return [n[:1].upper() + (n[1:2].lower() if firsts.count(n[:1].upper()) > 1 else "") for n in names]


def scheme_from_dict(d: dict[str, Any]) -> Scheme:
    try:
        scoring = d["scoring"]
        if scoring not in SCORINGS:
            raise SchemeError(f"scoring must be one of {', '.join(SCORINGS)}, not {scoring!r}")
        severities = tuple(Severity(str(s["name"]), float(s["weight"]), str(s.get("description", "")),
                                    str(s.get("short") or ""))
                           for s in d["severities"])
        if not severities:
            raise SchemeError("a scheme needs at least one severity")
        defaults = short_labels([s.name for s in severities])
        severities = tuple(replace(s, short=s.short or default) for s, default in zip(severities, defaults))
        shorts = [s.short for s in severities]
        if len(set(shorts)) != len(shorts) or any(len(x) > 3 for x in shorts):
            raise SchemeError(f"severity short labels must be distinct and at most 3 characters: {shorts}")
        rules = tuple(WeightRule(category=str(r["category"]), weight=float(r["weight"]),
                                 severity=r.get("severity"), match=r.get("match", "exact"))
                      for r in d.get("weight_rules", []))
        if any(r.match not in ("exact", "prefix") for r in rules):
            raise SchemeError("weight_rules match must be 'exact' or 'prefix'")
        return Scheme(name=str(d["name"]), scoring=scoring, higher_is_better=bool(d["higher_is_better"]),
                      severities=severities, categories=tuple(_category(c) for c in d.get("categories", [])),
                      rules=rules, source_error_categories=tuple(d.get("source_error_categories", [])),
                      title=str(d.get("title", "")), reference=str(d.get("reference", "")),
                      score_formula=str(d.get("score_formula", "")))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SchemeError):
            raise
        raise SchemeError(f"malformed scheme: {exc!r}") from exc


def load_scheme(name_or_path: str | Path | Scheme = DEFAULT_SCHEME, *, zero_source_errors: bool = False,
                zero_categories: tuple[str, ...] | list[str] = ()) -> Scheme:
    """A packaged scheme by name (``wmt23-literary``, ``google-mqm``) or a scheme JSON file."""
    if isinstance(name_or_path, Scheme):
        scheme = name_or_path
    else:
        name = str(name_or_path)
        packaged = SCHEMES_DIR / f"{name}.json"
        if "/" not in name and packaged.is_file():
            text = packaged.read_text(encoding="utf-8")
        elif Path(name).is_file():
            text = Path(name).read_text(encoding="utf-8")
        else:
            raise SchemeError(f"unknown scheme {name!r} (packaged: {', '.join(available_schemes())}; "
                              "or give a path to a scheme JSON file)")
        try:
            scheme = scheme_from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise SchemeError(f"{name}: not valid JSON: {exc}") from exc
    return scheme.with_options(zero_source_errors=zero_source_errors, zero_categories=zero_categories)
