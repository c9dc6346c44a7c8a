"""Finished annotations from a Marot/Anthea TSV, imported into a started campaign as its raters' marks.

What the demo ships (``data/demo/mqm/annotations.tsv``) and what an organizer who ran the
annotation elsewhere can load: every row names a system (as the campaign names it), a
document, its line (``doc_id``, 1-based) and a rater (``rater1`` is the campaign's first
annotator, ...). The texts must be the ones the campaign shows, every segment of an imported
item must be judged, and every mark passes the same checks as one made on the annotation page;
the first problem is refused with its line, and nothing is written.
"""

from __future__ import annotations

import uuid
from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.orm import selectinload

import mqm

from ....campaigns.models import Assignment, Campaign, Item
from ....campaigns.services import bad, version_labels
from ....extensions import db
from ....models import utcnow
from ....services import ServiceError
from ..models import Mark
from .marks import validate_mark
from .scheme import get_scheme, scheme_name
from .texts import segment_texts

#: The reading time recorded per imported segment (the annotation was timed elsewhere).
IMPORTED_MS_PER_SEGMENT = 20_000


def import_finished(campaign: Campaign, text: str, *, path: str = "annotations.tsv") -> dict:
    """Write the TSV's marks and finish the assignments it covers; returns counts. Raises ServiceError (400)."""
    if campaign.state != "open":
        raise bad("bad_transition", f"annotations go into an open campaign (this one is {campaign.state})", 409)
    try:
        data = mqm.parse_tsv(text, path=path, scheme=get_scheme(scheme_name(campaign)), strict=True)
    except mqm.MQMInputError as exc:
        raise bad("invalid_annotations", str(exc), field="file") from None
    labels = version_labels(campaign)
    subs = {label: vid for vid, label in labels.items()}    # systems and "reference N": by campaign version
    asgs = db.session.scalars(select(Assignment).where(Assignment.campaign_id == campaign.id)
                              .options(selectinload(Assignment.item).selectinload(Item.document),
                                       selectinload(Assignment.annotator), selectinload(Assignment.marks),
                                       selectinload(Assignment.attention))).all()
    index: dict[tuple[int, str, str], list[Assignment]] = defaultdict(list)
    for a in asgs:
        index[(a.item.versions[0].version_id, a.item.document.name, a.annotator.rater)].append(a)

    def where(row) -> tuple[Assignment, int]:
        sid = subs.get(row.system)
        if sid is None:
            raise _refuse(path, row.line, f"system {row.system!r} is not in this campaign "
                                          f"(its systems: {', '.join(sorted(subs))})")
        try:
            pos = int(row.doc_seg_id) - 1
        except ValueError:
            raise _refuse(path, row.line, f"doc_id {row.doc_seg_id!r} is not a line number") from None
        for a in index.get((sid, row.doc, row.rater), []):
            if a.item.seg_start <= pos < a.item.seg_end:
                return a, pos - a.item.seg_start
        raise _refuse(path, row.line, f"no item of {row.rater} holds {row.system} {row.doc}:{pos + 1} in this "
                                      "campaign (raters are rater1, rater2, ... in the order annotators were added)")

    judged: dict[int, set[int]] = defaultdict(set)
    marks: list[tuple[Assignment, dict]] = []
    texts: dict[int, list[dict]] = {}
    for row in sorted([*data.errors, *data.no_errors], key=lambda r: r.line):
        asg, k = where(row)
        if asg.attention is not None:
            raise _refuse(path, row.line, "the campaign has attention checks: import into one without them")
        if asg.state == "finished" or any(not m.deleted for m in asg.marks):
            raise _refuse(path, row.line, f"{row.rater}'s item {asg.number} is annotated already")
        segs = texts.setdefault(asg.id, segment_texts(asg))
        seg = data.segments.get(row.key)
        if seg is not None and (seg.source != segs[k]["source"] or seg.target != segs[k]["target"]):
            side = "source" if seg.source != segs[k]["source"] else "target"
            raise _refuse(path, row.line, f"the {side} differs from the campaign's text of {row.doc}:{k + 1 + asg.item.seg_start}")
        judged[asg.id].add(k)
        if isinstance(row, mqm.Error):
            if row.start is None:
                raise _refuse(path, row.line, "an error needs its span marked with <v>...</v>")
            body = {"rev": 1, "seg": k, "side": row.side, "start": row.start, "end": row.end, "text": row.text,
                    "category": row.category, "subcategory": row.subcategory, "severity": row.severity,
                    "note": row.note}
            try:
                marks.append((asg, validate_mark(asg, body, segs)))
            except ServiceError as exc:   # names the field: say which line too
                raise _refuse(path, row.line, exc.message) from None
    by_id = {a.id: a for a in asgs}
    for asg_id, seen in judged.items():
        asg = by_id[asg_id]
        missing = sorted(set(range(asg.item.num_segments)) - seen)
        if missing:
            raise bad("invalid_annotations", f"{path}: {asg.annotator.rater} did not judge "
                      f"{asg.item.document.name}:{asg.item.seg_start + missing[0] + 1} of "
                      f"{labels.get(asg.item.versions[0].version_id)} (a segment without errors "
                      "needs a No-error row)", field="file")
    now = utcnow()
    with db.write():
        for asg, fields in marks:
            db.session.add(Mark(assignment_id=asg.id, uuid=str(uuid.uuid4()), **fields))
        for asg_id in judged:
            asg = db.session.get(Assignment, asg_id)
            n = asg.item.num_segments
            asg.state, asg.cursor, asg.furthest = "finished", n - 1, n - 1
            asg.times = {str(i): IMPORTED_MS_PER_SEGMENT for i in range(n)}
            asg.time_ms = IMPORTED_MS_PER_SEGMENT * n
            asg.started_at = asg.started_at or now
            asg.last_active_at = asg.finished_at = now
    return {"marks": len(marks), "assignments": len(judged), "rows": len(data.errors) + len(data.no_errors)}


def _refuse(path: str, line: int | None, message: str):
    return bad("invalid_annotations", f"{path}:{line}: {message}", field="file")
