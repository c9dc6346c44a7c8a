"""What the ESA page gets of ESA^AI: each segment's suggested spans, and the check of what comes back.

The page pre-fills a segment's suggestions as spans with provenance ``kept`` and their
``suggestion`` (what was suggested, in the answer record's shape: inclusive offsets or
``"missing"``); the annotator's edits turn them into ``edited`` or ``deleted``
(:mod:`enface.protocols.esa.responses`). :func:`check_suggested` makes sure a saved answer only
claims suggestions that were made: a span may not pass itself off as the machine's.
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import select

from ....campaigns.models import Assignment, Item
from ....campaigns.services.common import bad
from ....extensions import db
from .models import Suggester, Suggestion

MISSING = "missing"
#: {(assignment's public id, segment): the suggestions offered}: a save that claims only suggestions seen before
#: reads nothing (suggestions are only ever added once an annotator has started, never changed)
_OFFERED: dict[tuple[str, int], set[tuple[Any, Any, str]]] = {}
_LOCK = threading.Lock()


def _ref(span: dict[str, Any]) -> dict[str, Any]:
    """A stored suggested span in the answer record's shape (``suggestion`` of a span)."""
    if span.get("missing"):
        return {"start": MISSING, "end": MISSING, "severity": span["severity"]}
    return {"start": span["start"], "end": span["end"], "severity": span["severity"]}


def item_suggestions(item: Item) -> dict[int, list[dict[str, Any]]]:
    """{segment of the item (0-based): its suggested spans} for an item of one version; {} when the
    campaign has no suggestion source (plain ESA) or the segment has no suggestion."""
    if not item.versions:
        return {}
    rows = db.session.execute(
        select(Suggestion.position, Suggestion.spans)
        .join(Suggester, Suggester.id == Suggestion.suggester_id)
        .where(Suggester.campaign_id == item.campaign_id, Suggestion.state == "ok",
               Suggestion.version_id == item.versions[0].version_id, Suggestion.document_id == item.document_id,
               Suggestion.position >= item.seg_start, Suggestion.position < item.seg_end)).all()
    return {pos - item.seg_start: [_ref(s) for s in spans or ()] for pos, spans in rows if spans}


def assignment_suggestions(asg: Assignment, segments: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """{segment (as a string key, like the page's answers): its suggestions} for the page. An attention
    check's damaged segments get none (the suggestions were made for the text before the damage)."""
    offered = item_suggestions(asg.item)
    damage = (asg.plan or {}).get("bad")
    if damage is not None and offered:
        from ..texts import version_texts  # (the ESA protocol's texts)

        item = asg.item
        original = version_texts(item.versions[0].version, item.document_id, item.seg_start, item.seg_end) or []
        offered = {k: v for k, v in offered.items()
                   if k < len(original) and k < len(segments) and segments[k]["target"] == original[k]}
    return {str(k): v for k, v in sorted(offered.items())}


def has_suggestions(campaign_id: int) -> bool:
    """Whether the campaign is an ESA^AI campaign (it has a suggestion source)."""
    return db.session.scalar(select(Suggester.id).where(Suggester.campaign_id == campaign_id)) is not None


def check_suggested(asg: Assignment, seg: int, spans: list[Any]) -> None:
    """Refuses (400) a span claiming a suggestion that was not made for this segment, or a ``kept`` span
    that differs from its suggestion. ``spans`` are :class:`~enface.protocols.esa.responses.EsaSpan`."""
    claimed = [s for s in spans if s.provenance != "human"]
    if not claimed:
        return
    wanted = {(s.suggestion.start, s.suggestion.end, s.suggestion.severity) for s in claimed}
    offered = _OFFERED.get((asg.public_id, seg))
    if offered is None or not wanted <= offered:     # (a miss asks again: an LLM run may have added some since)
        offered = {(_key(r["start"]), _key(r["end"]), r["severity"]) for r in item_suggestions(asg.item).get(seg, [])}
        with _LOCK:
            _OFFERED[(asg.public_id, seg)] = offered
            while len(_OFFERED) > 16384:
                _OFFERED.pop(next(iter(_OFFERED)))
    for n, span in enumerate(spans, 1):
        if span.provenance == "human":
            continue
        ref = span.suggestion
        if (ref.start, ref.end, ref.severity) not in offered:
            raise bad("invalid_field", f"span {n}: no such suggestion was made for segment {seg + 1}", field="spans")
        if span.provenance == "kept" and (span.start, span.end, span.severity) != (ref.start, ref.end, ref.severity):
            raise bad("invalid_field", f"span {n}: a kept suggestion is the suggestion as it was "
                                       "(a changed one is edited)", field="spans")


def _key(value: Any) -> int | None:
    return None if value == MISSING else value
