"""Typologies and severity schemes, loaded from JSON data (``mqm/schemes/*.json``).

A scheme file holds::

    name, title, reference, score_formula     strings
    scoring            "per_source_word" (WMT23 literary) or "segment_sum" (Google MQM)
    higher_is_better   bool
    severities         [{name, weight, description}]
    categories         [{name, definition, example?, subcategories: [{name, definition, example?}]}]
    weight_rules       [{category, weight, severity?, match: "exact"|"prefix"}]   first match wins
    source_error_categories   [category names]  what ``zero_source_errors`` zeroes

Categories and severities match ignoring case, underscores and extra spaces. Any category string is
accepted when scoring (Google's files use many); only severities are checked.
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


@dataclass(frozen=True)
class Category:
    name: str
    definition: str = ""
    example: str = ""
    subcategories: tuple[Category, ...] = ()


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
            return {"name": c.name, "definition": c.definition, "example": c.example,
                    "subcategories": [cat(s) for s in c.subcategories]}
        return {"name": self.name, "title": self.title, "reference": self.reference,
                "scoring": self.scoring, "higher_is_better": self.higher_is_better,
                "score_formula": self.score_formula,
                "severities": [{"name": s.name, "weight": s.weight, "description": s.description}
                               for s in self.severities],
                "categories": [cat(c) for c in self.categories],
                "weight_rules": [{"category": r.category, "weight": r.weight, "severity": r.severity,
                                  "match": r.match} for r in self.rules],
                "source_error_categories": list(self.source_error_categories)}


def available_schemes() -> list[str]:
    return sorted(p.stem for p in SCHEMES_DIR.glob("*.json"))


def _category(d: dict[str, Any]) -> Category:
    return Category(name=str(d["name"]), definition=str(d.get("definition", "")),
                    example=str(d.get("example", "")),
                    subcategories=tuple(_category(s) for s in d.get("subcategories", [])))


def scheme_from_dict(d: dict[str, Any]) -> Scheme:
    try:
        scoring = d["scoring"]
        if scoring not in SCORINGS:
            raise SchemeError(f"scoring must be one of {', '.join(SCORINGS)}, not {scoring!r}")
        severities = tuple(Severity(str(s["name"]), float(s["weight"]), str(s.get("description", "")))
                           for s in d["severities"])
        if not severities:
            raise SchemeError("a scheme needs at least one severity")
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
