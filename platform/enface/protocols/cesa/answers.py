"""cESA's answers: one core ``Response`` per segment and column, each an ESA answer (:mod:`enface.protocols.esa.responses`).

The key is ``"<segment>:<column>"``: the 0-based segment of the item and the 0-based column in the
assignment's stored order (``plan["order"]``, the versions' ids shuffled at the start), so the page
never names a version. ``data`` is ESA's record ``{score, spans, started_ms, ended_ms}``.
"""

from __future__ import annotations

from ...campaigns.models import Assignment, Response
from ...campaigns.services import bad
from ...services import is_ascii_int
from ..esa.responses import KIND, SegmentAnswer

#: a score below this with no error span gets the page's warning (ESA's anchors: under "most meaning preserved")
LOW_SCORE = 50


def column_order(asg: Assignment) -> list[int]:
    """The campaign version ids in the order the annotator sees them (left to right)."""
    order = (asg.plan or {}).get("order")
    return list(order) if order else [v.version_id for v in asg.item.versions]


def parse_key(key: str, segments: int, columns: int) -> tuple[int, int]:
    """``"seg:col"`` as two numbers inside the item, or a 400."""
    seg, sep, col = str(key).partition(":")
    if not sep or not is_ascii_int(seg) or not is_ascii_int(col) or not 0 <= int(seg) < segments \
            or not 0 <= int(col) < columns:
        raise bad("bad_segment", f"key must be 'segment:column' with a segment 0-{segments - 1} and a column "
                  f"0-{columns - 1}", field="key")
    return int(seg), int(col)


def live_answers(asg: Assignment) -> dict[tuple[int, int], SegmentAnswer]:
    """{(segment, column): its latest live answer}."""
    latest: dict[tuple[int, int], Response] = {}
    for r in asg.responses:
        if r.deleted or r.kind != KIND:
            continue
        seg, sep, col = r.key.partition(":")
        if not sep or not is_ascii_int(seg) or not is_ascii_int(col):
            continue
        at = (int(seg), int(col))
        if at not in latest or (r.updated_at, r.id) > (latest[at].updated_at, latest[at].id):
            latest[at] = r
    return {at: SegmentAnswer.from_data(at[0], r.data, uuid=r.uuid, rev=r.rev) for at, r in sorted(latest.items())}


def low_without_spans(answer: SegmentAnswer) -> bool:
    """The page's warning: a score below :data:`LOW_SCORE` and no error marked."""
    return answer.score is not None and answer.score < LOW_SCORE and not answer.errors
