"""The reader-study export: JSON Lines the platform writes and :mod:`humaneval.reader` reads.

One JSON object per line; its ``"record"`` field says which kind it is. Every
record has ``study`` and ``reader``; excerpt and chunk records also have
``document`` and ``versions``. Any answer may be null or absent when the reader
did not give it. Fields not listed here are ignored.

``versions`` names the two versions a reader compares; ``"kind"`` says which
is a system output. Version "1" is conventionally the human translation, but
the statistics use ``kind``: the machine version is the one whose kind is
``"system"`` when exactly one is.

excerpt (one per reader and document: the questionnaires after reading both versions)::

    {"record": "excerpt", "study": "s", "document": "d1", "reader": "reader1",
     "versions": {"1": {"label": "HT", "kind": "reference"}, "2": {"label": "gpt4", "kind": "system"}},
     "first": "1",                                     # the version read first
     "ratings": {"1": {"acceptability": 4, "smoothness": 5, "immersion": 3, "continue": 4}, "2": {...}},
     "positive": {"1": "...", "2": "..."}, "negative": {"1": "...", "2": "..."},
     "origin_guess": {"1": "human", "2": "machine"}, "origin_confidence": {"1": 4, "2": 2},
     "dialogue": "1", "word_choice": "none",           # "1" | "2" | "none"
     "continue_choice": {"version": "1", "strength": "clearly"},   # or "slightly"
     "continue_why": "...", "ai_version": "2", "ai_confidence": 3, "ai_why": "...",
     "reading_ms": {"1": 250000, "2": 240000}}

chunk (one per reader, document and chunk: the side-by-side comparison)::

    {"record": "chunk", "study": "s", "document": "d1", "reader": "reader1", "chunk": 0,
     "versions": {...as above...}, "texts": {"1": "...", "2": "..."},
     "displayed": ["2", "1"],                          # left-to-right order on screen
     "preference": "1", "difficulty": "significantly_better",   # | "better" | "similar"
     "justification": "...",
     "highlights": [{"version": "1", "start": 0, "end": 12, "label": "good", "text": "..."}],
     "normalisation": "NFC"}

Highlight offsets are code points into ``texts[version]``, ``start`` inclusive,
``end`` exclusive; ``text`` (optional) must equal that slice. All readers of a
chunk see the same texts, and all records of a document name the same versions.

post (one per reader: the final questionnaire)::

    {"record": "post", "study": "s", "reader": "reader1", "answers": {"q1": "...", ...}}

Ratings and confidences are integers 1 to 5.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import HumanEvalInputError, read_text

VERSION_KEYS = ("1", "2")
KINDS = ("reference", "system")
QUESTIONS = ("acceptability", "smoothness", "immersion", "continue")
DIFFICULTIES = ("significantly_better", "better", "similar")
STRENGTHS = ("clearly", "slightly")
LABELS = ("good", "poor")


@dataclass(frozen=True)
class Version:
    label: str
    kind: str  # "reference" or "system"


@dataclass(frozen=True)
class Highlight:
    version: str
    start: int
    end: int
    label: str  # "good" or "poor"


@dataclass
class ExcerptRecord:
    line: int
    study: str
    document: str
    reader: str
    versions: dict[str, Version]
    first: str | None = None
    ratings: dict[str, dict[str, int | None]] = field(default_factory=dict)  # version -> question -> 1..5
    positive: dict[str, str | None] = field(default_factory=dict)
    negative: dict[str, str | None] = field(default_factory=dict)
    origin_guess: dict[str, str | None] = field(default_factory=dict)  # "human" | "machine"
    origin_confidence: dict[str, int | None] = field(default_factory=dict)
    dialogue: str | None = None  # "1" | "2" | "none"
    word_choice: str | None = None
    continue_version: str | None = None
    continue_strength: str | None = None
    continue_why: str | None = None
    ai_version: str | None = None
    ai_confidence: int | None = None
    ai_why: str | None = None
    reading_ms: dict[str, int | None] = field(default_factory=dict)


@dataclass
class ChunkRecord:
    line: int
    study: str
    document: str
    reader: str
    chunk: int
    versions: dict[str, Version]
    texts: dict[str, str]
    displayed: list[str] | None = None
    preference: str | None = None
    difficulty: str | None = None
    justification: str | None = None
    highlights: list[Highlight] = field(default_factory=list)
    normalisation: str | None = None


@dataclass
class PostRecord:
    line: int
    study: str
    reader: str
    answers: dict[str, Any]


@dataclass
class ReaderExport:
    path: str | None
    excerpts: list[ExcerptRecord] = field(default_factory=list)
    chunks: list[ChunkRecord] = field(default_factory=list)
    posts: list[PostRecord] = field(default_factory=list)

    def studies(self) -> list[str]:
        """Study names in the order they first appear."""
        seen = dict.fromkeys(r.study for r in (*self.excerpts, *self.chunks, *self.posts))
        return list(seen)

    def study(self, name: str) -> ReaderExport:
        """The records of one study."""
        return ReaderExport(self.path, [r for r in self.excerpts if r.study == name],
                            [r for r in self.chunks if r.study == name], [r for r in self.posts if r.study == name])


def machine_version(versions: dict[str, Version]) -> str | None:
    """The key of the one version whose kind is "system"; None when none or both are."""
    systems = [k for k, v in versions.items() if v.kind == "system"]
    return systems[0] if len(systems) == 1 else None


def load_export(path: str | Path) -> ReaderExport:
    """Read and check an export file; HumanEvalInputError names the file and the line."""
    name = str(path)
    text = read_text(path)
    # Only "\n" ends a record: str.splitlines() would also split at U+2028, U+0085 and
    # the like, which JSON writers leave unescaped inside strings.
    return parse_export((line.removesuffix("\r") for line in text.split("\n")), name)


def parse_export(lines: Iterable[str], path: str | None = None) -> ReaderExport:
    """Parse export lines (blank lines are skipped)."""
    export = ReaderExport(path)
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise HumanEvalInputError(f"not JSON: {exc.msg} (column {exc.colno})", path, number) from None
        check = _Checker(obj, path, number)
        kind = check.choice("record", ("excerpt", "chunk", "post"), required=True)
        if kind == "excerpt":
            export.excerpts.append(_excerpt(check))
        elif kind == "chunk":
            export.chunks.append(_chunk(check))
        else:
            export.posts.append(PostRecord(number, check.text("study", True), check.text("reader", True),
                                           check.mapping("answers") or {}))
    if not (export.excerpts or export.chunks or export.posts):
        raise HumanEvalInputError("no records", path)
    _check_consistency(export)
    return export


class _Checker:
    """Typed access to one record's fields; a wrong field raises HumanEvalInputError."""

    def __init__(self, obj: Any, path: str | None, line: int):
        if not isinstance(obj, dict):
            raise HumanEvalInputError(f"expected a JSON object, got {type(obj).__name__}", path, line)
        self.obj, self.path, self.line = obj, path, line

    def fail(self, message: str) -> HumanEvalInputError:
        return HumanEvalInputError(message, self.path, self.line)

    def get(self, key: str, required: bool = False, obj: dict | None = None, where: str = "") -> Any:
        value = (self.obj if obj is None else obj).get(key)
        if value is None and required:
            raise self.fail(f"missing field {where}{key!r}")
        return value

    def text(self, key: str, required: bool = False) -> Any:
        value = self.get(key, required)
        if value is not None and not isinstance(value, str):
            raise self.fail(f"{key!r} must be a string, got {json.dumps(value)}")
        if required and not value.strip():
            raise self.fail(f"{key!r} is empty")
        return value

    def choice(self, key: str, allowed: tuple[str, ...], required: bool = False, obj: dict | None = None,
               where: str = "") -> Any:
        value = self.get(key, required, obj, where)
        if value is not None and value not in allowed:
            raise self.fail(f"{where}{key!r} must be one of {', '.join(allowed)}; got {json.dumps(value)}")
        return value

    def integer(self, key: str, low: int, high: int | None = None, obj: dict | None = None,
                where: str = "") -> Any:
        value = self.get(key, False, obj, where)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f">= {low}"
            raise self.fail(f"{where}{key!r} must be an integer {bounds}; got {json.dumps(value)}")
        return value

    def mapping(self, key: str, required: bool = False) -> Any:
        value = self.get(key, required)
        if value is not None and not isinstance(value, dict):
            raise self.fail(f"{key!r} must be an object, got {json.dumps(value)}")
        return value

    def per_version(self, key: str) -> dict[str, Any]:
        """A ``{"1": ..., "2": ...}`` object; absent versions are None."""
        value = self.mapping(key) or {}
        extra = [k for k in value if k not in VERSION_KEYS]
        if extra:
            raise self.fail(f"{key!r} has version {extra[0]!r}: versions are \"1\" and \"2\"")
        return {k: value.get(k) for k in VERSION_KEYS}

    def versions(self) -> dict[str, Version]:
        value = self.per_version("versions")
        out = {}
        for key, spec in value.items():
            where = f"versions.{key}."
            if not isinstance(spec, dict):
                raise self.fail(f"missing or malformed 'versions.{key}' (expected {{\"label\", \"kind\"}})")
            label = self.get("label", True, spec, where)
            if not isinstance(label, str):
                raise self.fail(f"{where}'label' must be a string")
            out[key] = Version(label, self.choice("kind", KINDS, True, spec, where))
        return out


def _excerpt(c: _Checker) -> ExcerptRecord:
    record = ExcerptRecord(c.line, c.text("study", True), c.text("document", True), c.text("reader", True),
                           c.versions(), first=c.choice("first", VERSION_KEYS))
    for key, answers in c.per_version("ratings").items():
        if answers is None:
            continue
        if not isinstance(answers, dict):
            raise c.fail(f"'ratings.{key}' must be an object of 1-5 ratings")
        record.ratings[key] = {q: c.integer(q, 1, 5, answers, f"ratings.{key}.") for q in answers}
    for key, value in c.per_version("origin_guess").items():
        record.origin_guess[key] = c.choice(key, ("human", "machine"), obj={key: value}, where="origin_guess.")
    confidence = c.per_version("origin_confidence")
    record.origin_confidence = {k: c.integer(k, 1, 5, confidence, "origin_confidence.") for k in VERSION_KEYS}
    reading = c.per_version("reading_ms")
    record.reading_ms = {k: c.integer(k, 0, None, reading, "reading_ms.") for k in VERSION_KEYS}
    for name in ("positive", "negative"):
        notes = c.per_version(name)
        for k, v in notes.items():
            if v is not None and not isinstance(v, str):
                raise c.fail(f"'{name}.{k}' must be a string")
        setattr(record, name, notes)
    record.dialogue = c.choice("dialogue", (*VERSION_KEYS, "none"))
    record.word_choice = c.choice("word_choice", (*VERSION_KEYS, "none"))
    choice = c.mapping("continue_choice") or {}
    record.continue_version = c.choice("version", VERSION_KEYS, obj=choice, where="continue_choice.")
    record.continue_strength = c.choice("strength", STRENGTHS, obj=choice, where="continue_choice.")
    record.continue_why = c.text("continue_why")
    record.ai_version = c.choice("ai_version", VERSION_KEYS)
    record.ai_confidence = c.integer("ai_confidence", 1, 5)
    record.ai_why = c.text("ai_why")
    return record


def _chunk(c: _Checker) -> ChunkRecord:
    study, document, reader = c.text("study", True), c.text("document", True), c.text("reader", True)
    chunk = c.integer("chunk", 0)
    if chunk is None:
        raise c.fail("missing field 'chunk'")
    versions = c.versions()
    texts = c.per_version("texts")
    for key, value in texts.items():
        if not isinstance(value, str):
            raise c.fail(f"'texts.{key}' must be a string (the text of version {key} shown to the reader)")
    displayed = c.get("displayed")
    if displayed is not None and (not isinstance(displayed, list) or sorted(displayed) != list(VERSION_KEYS)):
        raise c.fail(f"'displayed' must list \"1\" and \"2\" in the order shown; got {json.dumps(displayed)}")
    record = ChunkRecord(c.line, study, document, reader, chunk, versions, texts, displayed=displayed,
                         preference=c.choice("preference", VERSION_KEYS),
                         difficulty=c.choice("difficulty", DIFFICULTIES), justification=c.text("justification"),
                         normalisation=c.text("normalisation"))
    spans = c.get("highlights") or []
    if not isinstance(spans, list):
        raise c.fail("'highlights' must be a list")
    for i, span in enumerate(spans):
        where = f"highlights[{i}]."
        if not isinstance(span, dict):
            raise c.fail(f"'highlights[{i}]' must be an object")
        version = c.choice("version", VERSION_KEYS, True, span, where)
        label = c.choice("label", LABELS, True, span, where)
        start, end = c.integer("start", 0, None, span, where), c.integer("end", 0, None, span, where)
        if start is None or end is None:
            raise c.fail(f"{where} needs 'start' and 'end'")
        text = texts[version]
        if not start < end <= len(text):
            raise c.fail(f"{where} start {start}, end {end} is not a span of version {version}'s "
                         f"{len(text)} characters")
        shown = span.get("text")
        if shown is not None and shown != text[start:end]:
            raise c.fail(f"{where}'text' {json.dumps(shown, ensure_ascii=False)} is not the text at "
                         f"{start}:{end} ({json.dumps(text[start:end], ensure_ascii=False)})")
        record.highlights.append(Highlight(version, start, end, label))
    return record


def _check_consistency(export: ReaderExport) -> None:
    """One record per reader and unit; one set of versions per document; one text per chunk."""
    seen: dict[tuple, int] = {}
    versions: dict[tuple[str, str], tuple[dict[str, Version], int]] = {}
    texts: dict[tuple[str, str, int], tuple[dict[str, str], int]] = {}
    records: list[Any] = [*export.excerpts, *export.chunks, *export.posts]
    for r in sorted(records, key=lambda r: r.line):
        if isinstance(r, ExcerptRecord):
            key: tuple = ("excerpt", r.study, r.document, r.reader)
            what = f"an excerpt record for reader {r.reader!r}, document {r.document!r}"
        elif isinstance(r, ChunkRecord):
            key = ("chunk", r.study, r.document, r.reader, r.chunk)
            what = f"a record for reader {r.reader!r}, document {r.document!r}, chunk {r.chunk}"
        else:
            key = ("post", r.study, r.reader)
            what = f"a post record for reader {r.reader!r}"
        if key in seen:
            raise HumanEvalInputError(f"{what} already came at line {seen[key]}", export.path, r.line)
        seen[key] = r.line
        if isinstance(r, PostRecord):
            continue
        first = versions.setdefault((r.study, r.document), (r.versions, r.line))
        if first[0] != r.versions:
            raise HumanEvalInputError(f"document {r.document!r} names other versions than at line {first[1]}",
                                      export.path, r.line)
        if isinstance(r, ChunkRecord):
            shown = texts.setdefault((r.study, r.document, r.chunk), (r.texts, r.line))
            if shown[0] != r.texts:
                raise HumanEvalInputError(f"document {r.document!r}, chunk {r.chunk}: other texts than at line "
                                          f"{shown[1]} (every reader of a chunk sees the same texts)",
                                          export.path, r.line)
