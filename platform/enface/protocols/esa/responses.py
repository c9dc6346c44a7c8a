"""An ESA answer: one record per segment, stored as the core's response (kind "segment", key the 0-based
segment of the item), with its error spans and its 0-100 score.

The record (``data`` of the response)::

    {"score": 0-100 | null,
     "spans": [{"start": int | "missing", "end": int | "missing", "severity": "minor" | "major",
                "provenance": "human" | "kept" | "edited" | "deleted",
                "suggestion": {"start", "end", "severity"} | null}, ...],
     "started_ms": epoch ms | null, "ended_ms": epoch ms | null}

``start``/``end`` are **inclusive** character (code point) offsets into the translation shown, as
Appraise's ``start_i``/``end_i``, or both the string ``"missing"`` for the ``[missing]`` marker
that takes omissions. ``provenance`` says where a span came from: ``human`` (marked by the
annotator), or, for ESA^AI's pre-filled suggestions, ``kept`` (accepted as suggested), ``edited``
(its extent or severity changed) or ``deleted`` (rejected: kept in the record, never counted as
an error). ``suggestion`` is what was suggested, for the three suggestion provenances. A save may
be a draft (``score`` null); finishing needs a score on every segment, and a score may only be
given to a segment that has been read (the core's dwell rule: ``seg <= furthest``).
``started_ms``/``ended_ms`` are the page's clock (first and last change on the segment).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...campaigns.models import Assignment, Response
from ...campaigns.services import bad
from ...services import is_ascii_int

KIND = "segment"
SEVERITIES = ("minor", "major")
PROVENANCES = ("human", "kept", "edited", "deleted")
SUGGESTED = ("kept", "edited", "deleted")
MISSING = "missing"
MAX_SPANS = 100
#: epoch milliseconds a page clock may say (2020 .. 2100): anything else is a broken clock
MIN_MS, MAX_MS = 1_577_836_800_000, 4_102_444_800_000


@dataclass(frozen=True)
class SpanRef:
    """Where a span is: inclusive offsets, or None/None for ``[missing]``."""

    start: int | None
    end: int | None
    severity: str

    @property
    def missing(self) -> bool:
        return self.start is None

    def to_json(self) -> dict[str, Any]:
        return {"start": MISSING if self.start is None else self.start,
                "end": MISSING if self.end is None else self.end, "severity": self.severity}


@dataclass(frozen=True)
class EsaSpan:
    """One error span of a segment's answer."""

    start: int | None           # inclusive code-point offset into the translation; None: [missing]
    end: int | None             # inclusive
    severity: str               # "minor" | "major"
    provenance: str = "human"   # "human" | "kept" | "edited" | "deleted"
    suggestion: SpanRef | None = None   # what ESA^AI suggested (the suggestion provenances only)

    @property
    def missing(self) -> bool:
        return self.start is None

    @property
    def counts(self) -> bool:
        """Whether it is an error of the final answer (a deleted suggestion is not)."""
        return self.provenance != "deleted"

    def to_json(self) -> dict[str, Any]:
        return {"start": MISSING if self.start is None else self.start,
                "end": MISSING if self.end is None else self.end, "severity": self.severity,
                "provenance": self.provenance,
                "suggestion": self.suggestion.to_json() if self.suggestion is not None else None}


@dataclass(frozen=True)
class SegmentAnswer:
    """An annotator's answer on one segment of an item (``seg``: 0-based in the item)."""

    seg: int
    score: float | None
    spans: tuple[EsaSpan, ...] = ()
    started_ms: int | None = None
    ended_ms: int | None = None
    #: the stored response's id and revision (None for an answer built in code)
    uuid: str | None = field(default=None, compare=False)
    rev: int | None = field(default=None, compare=False)

    @property
    def errors(self) -> tuple[EsaSpan, ...]:
        """The spans that count (deleted suggestions left out)."""
        return tuple(s for s in self.spans if s.counts)

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "spans": [s.to_json() for s in self.spans],
                "started_ms": self.started_ms, "ended_ms": self.ended_ms}

    @classmethod
    def from_response(cls, response: Response) -> SegmentAnswer:
        """The typed record of a stored (already checked) response."""
        return cls.from_data(int(response.key), response.data, uuid=response.uuid, rev=response.rev)

    @classmethod
    def from_data(cls, seg: int, data: dict[str, Any], *, uuid: str | None = None,
                  rev: int | None = None) -> SegmentAnswer:
        return cls(seg=seg, score=data.get("score"), spans=tuple(_span(s) for s in data.get("spans") or ()),
                   started_ms=data.get("started_ms"), ended_ms=data.get("ended_ms"), uuid=uuid, rev=rev)


def _offset(value: Any) -> int | None:
    return None if value == MISSING else int(value)


def _ref(obj: dict[str, Any] | None) -> SpanRef | None:
    if not obj:
        return None
    return SpanRef(_offset(obj["start"]), _offset(obj["end"]), obj["severity"])


def _span(obj: dict[str, Any]) -> EsaSpan:
    return EsaSpan(_offset(obj["start"]), _offset(obj["end"]), obj["severity"], obj.get("provenance", "human"),
                   _ref(obj.get("suggestion")))


# --------------------------------------------------------------------------- checking what a page sends


def _checked_offsets(obj: dict, where: str, length: int) -> tuple[int | None, int | None]:
    start, end = obj.get("start"), obj.get("end")
    if start == MISSING or end == MISSING:
        if start != end:
            raise bad("invalid_field", f'{where}: start and end must both be "missing" or both offsets',
                      field="spans")
        return None, None
    for name, value in (("start", start), ("end", end)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("invalid_field", f'{where}: {name} must be a character offset or "missing"', field="spans")
    if not 0 <= start <= end < length:
        raise bad("invalid_field", f"{where}: characters {start}-{end} are not inside the translation "
                  f"(0-{length - 1}; offsets are inclusive)", field="spans")
    return start, end


def _checked_severity(obj: dict, where: str) -> str:
    severity = obj.get("severity")
    if severity not in SEVERITIES:
        raise bad("invalid_field", f"{where}: severity must be {' or '.join(SEVERITIES)}", field="spans")
    return severity


def check_span(obj: Any, n: int, length: int) -> EsaSpan:
    """Span ``n`` (1-based, for messages) of a segment whose translation has ``length`` code points."""
    where = f"span {n}"
    if not isinstance(obj, dict):
        raise bad("invalid_field", f"{where} must be an object {{start, end, severity, provenance}}", field="spans")
    start, end = _checked_offsets(obj, where, length)
    severity = _checked_severity(obj, where)
    provenance = obj.get("provenance", "human")
    if provenance not in PROVENANCES:
        raise bad("invalid_field", f"{where}: provenance must be one of {', '.join(PROVENANCES)}", field="spans")
    suggestion = obj.get("suggestion")
    ref = None
    if provenance in SUGGESTED:
        if not isinstance(suggestion, dict):
            raise bad("invalid_field", f"{where}: a {provenance} suggestion says what was suggested "
                      "(suggestion: {start, end, severity})", field="spans")
        s_start, s_end = _checked_offsets(suggestion, f"{where}'s suggestion", length)
        ref = SpanRef(s_start, s_end, _checked_severity(suggestion, f"{where}'s suggestion"))
    elif suggestion is not None:
        raise bad("invalid_field", f"{where}: a span the annotator marked has no suggestion", field="spans")
    return EsaSpan(start, end, severity, provenance, ref)


def _checked_ms(data: dict, name: str) -> int | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not MIN_MS <= value <= MAX_MS:
        raise bad("invalid_field", f"{name} must be milliseconds since the epoch", field=name)
    return int(value)


def _checked_score(data: dict) -> float | None:
    score = data.get("score")
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 100:
        raise bad("invalid_field", "score must be a number from 0 to 100 (or null while not scored)", field="score")
    return int(score) if float(score).is_integer() else float(score)


def check_answer(seg: int, data: Any, translation: str, *, read: bool) -> SegmentAnswer:
    """The typed answer on segment ``seg`` of a translation, checked; ``read``: the segment counts as read."""
    if not isinstance(data, dict):
        raise bad("invalid_field", "data must be an object {score, spans, started_ms, ended_ms}", field="data")
    unknown = sorted(set(data) - {"score", "spans", "started_ms", "ended_ms"})
    if unknown:
        raise bad("invalid_field", f"unknown field(s): {', '.join(unknown)}", field=unknown[0])
    score = _checked_score(data)
    if score is not None and not read:
        raise bad("not_read", f"read segment {seg + 1} before scoring it", 409, field="score", seg=seg)
    raw = data.get("spans") or []
    if not isinstance(raw, list) or len(raw) > MAX_SPANS:
        raise bad("invalid_field", f"spans must be a list of at most {MAX_SPANS} spans", field="spans")
    length = len(translation)
    spans = tuple(check_span(obj, n, length) for n, obj in enumerate(raw, 1))
    live = sorted((s for s in spans if s.counts), key=lambda s: (s.start is not None, s.start or 0))
    if sum(s.missing for s in live) > 1:
        raise bad("invalid_field", "[missing] is marked once per segment", field="spans")
    marked = [s for s in live if not s.missing]
    for a, b in zip(marked, marked[1:], strict=False):
        if b.start <= a.end:
            raise bad("invalid_field", f"spans {a.start}-{a.end} and {b.start}-{b.end} overlap", field="spans")
    return SegmentAnswer(seg, score, spans, _checked_ms(data, "started_ms"), _checked_ms(data, "ended_ms"))


def segment_key(key: str, segments: int) -> int:
    """A response key as a segment of an item of ``segments`` segments, or a 400."""
    if not is_ascii_int(key) or not 0 <= int(key) < segments:
        raise bad("bad_segment", f"key must be a segment of this item (0-{segments - 1})", field="key")
    return int(key)


def live_answers(asg: Assignment) -> dict[int, SegmentAnswer]:
    """{segment: its latest live answer}."""
    latest: dict[int, Response] = {}
    for r in asg.responses:
        if r.deleted or r.kind != KIND or not is_ascii_int(r.key):
            continue
        seg = int(r.key)
        if seg not in latest or (r.updated_at, r.id) > (latest[seg].updated_at, latest[seg].id):
            latest[seg] = r
    return {seg: SegmentAnswer.from_response(r) for seg, r in sorted(latest.items())}
