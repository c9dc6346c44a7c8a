"""The data classes: segments, the rows annotators produce, and a whole annotation set.

A Marot/Anthea file has one row per *judgement*: an error (a span with a category
and a severity), a ``No-error`` row (the rater saw the segment and found nothing),
or a ``HOTW-test`` attention-check row (``Found``/``Missed`` an injected error).
They map to :class:`Error`, :class:`NoError` and :class:`AttentionCheck`.

Spans are character offsets (Python ``str`` indices, i.e. Unicode code points)
into the plain segment text, ``<v>``/``</v>`` removed; ``side`` says whether the
span is in the target or in the source (omissions are marked on the source).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SegKey = tuple[str, str, str, str]  # (system, doc, doc_seg_id, seg_id)

NO_ERROR = "No-error"
ATTENTION_SEVERITY = "HOTW-test"
NON_TRANSLATION = "Non-translation"


class MQMInputError(ValueError):
    """Bad input: names the file, the line (or JSON location) and the problem."""

    def __init__(self, message: str, path: str | None = None, line: int | str | None = None):
        super().__init__(message)
        self.message, self.path, self.line = message, path, line

    def __str__(self) -> str:
        where = ":".join(str(p) for p in (self.path, self.line) if p is not None)
        return f"{where}: {self.message}" if where else self.message


@dataclass
class Segment:
    """One system's translation of one source segment."""

    system: str
    doc: str
    doc_seg_id: str
    global_seg_id: str
    source: str
    target: str

    @property
    def key(self) -> SegKey:
        return (self.system, self.doc, self.doc_seg_id, self.global_seg_id)


@dataclass(kw_only=True)
class _Row:
    system: str
    doc: str
    seg_id: str  # the global segment id
    rater: str
    doc_seg_id: str = ""
    note: str = ""
    metadata: dict[str, Any] | None = None  # Anthea's JSON metadata column, parsed
    line: int | None = None  # line in the file it came from (1 = header)
    # This row's plain texts, only where they differ from the segment's (Anthea
    # sometimes keeps a trailing space on one row and not on another).
    row_source: str | None = None
    row_target: str | None = None

    @property
    def key(self) -> SegKey:
        return (self.system, self.doc, self.doc_seg_id, self.seg_id)


@dataclass(kw_only=True)
class Error(_Row):
    """One marked error. ``start``/``end`` are None for an error without a span."""

    side: str = "target"  # "target" or "source"
    start: int | None = None
    end: int | None = None
    text: str = ""  # the marked text
    category: str = ""  # "Accuracy"
    subcategory: str = ""  # "Mistranslation"
    severity: str = ""  # as written in the data; schemes match it case-insensitively
    unclosed: bool = False  # the file had <v> without </v>: the span runs to the end

    @property
    def full_category(self) -> str:
        return f"{self.category}/{self.subcategory}" if self.subcategory else self.category

    @property
    def is_non_translation(self) -> bool:
        return self.category.lower().startswith(NON_TRANSLATION.lower())


@dataclass(kw_only=True)
class NoError(_Row):
    """The rater saw the segment and marked nothing."""

    category: str = NO_ERROR


@dataclass(kw_only=True)
class AttentionCheck(_Row):
    """A HOTW ("hands on the wheel") row: an injected error the rater found or missed."""

    result: str = ""  # "Found" or "Missed"

    @property
    def passed(self) -> bool:
        return self.result.lower() == "found"


def split_category(full: str) -> tuple[str, str]:
    """``"Accuracy/Omission (Translation)"`` -> ``("Accuracy", "Omission (Translation)")``."""
    head, sep, tail = full.partition("/")
    return (head, tail) if sep else (full, "")


def non_translation(segment: Segment, rater: str, severity: str = "Major", **kw: Any) -> Error:
    """A whole-segment Non-translation mark: the span covers the entire target."""
    return Error(system=segment.system, doc=segment.doc, doc_seg_id=segment.doc_seg_id,
                 seg_id=segment.global_seg_id, rater=rater, side="target", start=0,
                 end=len(segment.target), text=segment.target, category=NON_TRANSLATION,
                 severity=severity, **kw)


@dataclass
class MQMData:
    """An annotation set: segments (in file order) and every row about them."""

    segments: dict[SegKey, Segment] = field(default_factory=dict)
    errors: list[Error] = field(default_factory=list)
    no_errors: list[NoError] = field(default_factory=list)
    attention_checks: list[AttentionCheck] = field(default_factory=list)
    header: list[str] | None = None  # the TSV header as read, for a faithful export
    path: str | None = None
    warnings: list[str] = field(default_factory=list)

    def rows(self) -> list[_Row]:
        """Every row, in file order (rows without a line number last, by segment)."""
        order = {key: i for i, key in enumerate(self.segments)}
        everything: list[_Row] = [*self.errors, *self.no_errors, *self.attention_checks]
        inf = float("inf")
        return sorted(everything, key=lambda r: (r.line if r.line is not None else inf,
                                                 order.get(r.key, len(order))))

    def rated(self) -> dict[SegKey, set[str]]:
        """Raters who judged each segment (errors or No-error; attention checks do not count)."""
        out: dict[SegKey, set[str]] = {}
        for row in (*self.errors, *self.no_errors):
            out.setdefault(row.key, set()).add(row.rater)
        return out

    @property
    def systems(self) -> list[str]:
        return sorted({k[0] for k in self.segments})

    @property
    def raters(self) -> list[str]:
        return sorted({r.rater for r in (*self.errors, *self.no_errors, *self.attention_checks)})

    def attention_summary(self) -> dict[str, dict[str, int]]:
        """{rater: {"found": n, "missed": n}} over the attention-check rows."""
        out: dict[str, dict[str, int]] = {}
        for check in self.attention_checks:
            counts = out.setdefault(check.rater, {"found": 0, "missed": 0})
            counts["found" if check.passed else "missed"] += 1
        return dict(sorted(out.items()))
