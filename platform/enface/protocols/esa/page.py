"""What an annotator's ESA page receives (blind: no system, team or submission named) and the reading rule."""

from __future__ import annotations

from typing import Any

from flask import url_for
from sqlalchemy import func, select

from ...campaigns import reading
from ...campaigns.models import Assignment
from ...campaigns.services import bad, next_assignment
from ...campaigns.text_direction import text_direction
from ...extensions import db
from .responses import SEVERITIES, live_answers
from .settings import settings_of
from .suggestions.page import assignment_suggestions
from .texts import segment_texts

#: ESA's slider anchors (the DA+SQM scale's texts, which ESA keeps)
ANCHORS = ((0, "No meaning preserved"), (33, "Some meaning preserved"),
           (66, "Most meaning preserved and few grammar mistakes"), (100, "Perfect meaning and grammar"))
SEVERITY_LETTER = {"minor": "Mi", "major": "Ma"}
SEVERITY_TEXT = {"minor": "Minor: a style, grammar or word-choice problem that does not change the meaning",
                 "major": "Major: the meaning is changed or lost, or the text is hard to understand"}


def dwell(asg: Assignment) -> list[int]:
    return reading.segment_dwell_ms(segment_texts(asg), float(settings_of(asg.item.campaign)["words_per_second"]))


def furthest_clipper(asg: Assignment):
    need = dwell(asg)
    return lambda furthest, times: reading.clip_furthest(furthest, times, need)


def check_finish(asg: Assignment) -> None:
    """Every segment read (its dwell time) and scored."""
    segs = segment_texts(asg)
    unread = reading.unread_segments(asg.times or {}, dwell(asg))
    if unread:
        raise bad("not_read", f"read every segment before finishing: {len(unread)} of {len(segs)} not read yet "
                  f"(segment {reading.describe_segments(unread, [s['label'] for s in segs])})", 409, unread=unread)
    answers = live_answers(asg)
    unscored = [s["i"] for s in segs if answers.get(s["i"]) is None or answers[s["i"]].score is None]
    if unscored:
        raise bad("not_scored", f"score every segment before finishing: {len(unscored)} without a score "
                  f"(segment {reading.describe_segments(unscored, [s['label'] for s in segs])})", 409,
                  unscored=unscored)
    asg.furthest = len(segs) - 1


def item_state(asg: Assignment, *, readonly: bool) -> dict[str, Any]:
    item = asg.item
    campaign = item.campaign
    ts = campaign.testset
    segs = segment_texts(asg)
    total = db.session.scalar(select(func.count()).select_from(Assignment)
                              .where(Assignment.annotator_id == asg.annotator_id))
    nxt = next_assignment(asg)
    s = settings_of(campaign)
    answers = live_answers(asg)
    api = url_for("annotate.api_item", public_id=asg.public_id)
    return {
        "protocol": "esa",
        "item": {"id": asg.public_id, "number": asg.number, "total": total, "campaign": campaign.name,
                 "document": item.document.name, "first": item.seg_start + 1, "last": item.seg_end,
                 "finished": asg.finished, "state": asg.state,
                 "src_lang": ts.src_lang, "tgt_lang": ts.tgt_lang,
                 "src_dir": text_direction(ts.src_lang, (x["source"] for x in segs[:5])),
                 "tgt_dir": text_direction(ts.tgt_lang, (x["target"] for x in segs[:5]))},
        "instructions": "\n\n".join(t for t in (s["guidelines"], campaign.instructions) if t),
        "segments": segs,
        "answers": {str(seg): {"uuid": a.uuid, "rev": a.rev, "data": a.to_json()} for seg, a in answers.items()},
        "suggestions": assignment_suggestions(asg, segs),   # ESA^AI: pre-filled spans ({} in plain ESA)
        "cursor": min(max(asg.cursor, 0), max(len(segs) - 1, 0)),
        "furthest": asg.furthest,
        "times": asg.times or {},
        "dwell_ms": dwell(asg),
        "severities": [{"name": n, "letter": SEVERITY_LETTER[n], "text": SEVERITY_TEXT[n]} for n in SEVERITIES],
        "anchors": [{"value": v, "text": t} for v, t in ANCHORS],
        "readonly": readonly or campaign.state != "open" or asg.finished,
        "urls": {"api": api, "responses": api + "/responses/", "progress": url_for("annotate.api_progress",
                                                                                  public_id=asg.public_id),
                 "finish": url_for("annotate.api_finish", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt is not None else None,
                 "js": url_for("esa.static", filename="esa.js"), "css": url_for("esa.static", filename="esa.css")},
    }
