"""What an annotator's cESA page receives (blind: columns, never versions), and the finishing rule."""

from __future__ import annotations

import random
import threading
from typing import Any

from flask import url_for
from sqlalchemy import func, select

from ...campaigns.models import Assignment, Campaign
from ...campaigns.services import bad, next_assignment
from ...campaigns.text_direction import text_direction
from ...extensions import db
from ..esa.page import ANCHORS, SEVERITY_LETTER, SEVERITY_TEXT
from ..esa.responses import SEVERITIES
from ..esa.settings import settings_of
from ..esa.texts import source_texts, version_texts
from .answers import LOW_SCORE, column_order, live_answers


def shuffle_orders(campaign: Campaign, assignments: list[Assignment]) -> dict[str, Any]:
    """Each assignment's own left-to-right order of its item's versions, drawn once and stored in its plan
    (seeded by the campaign's seed and the assignment, so a reload, or a re-run of the start, shows the same)."""
    for asg in assignments:
        ids = [v.version_id for v in asg.item.versions]
        random.Random(f"{campaign.seed}:{asg.item_id}:{asg.annotator_id}").shuffle(ids)
        asg.plan = {**(asg.plan or {}), "order": ids}
    return {"shuffled": len(assignments)}


def segment_texts(asg: Assignment) -> list[dict[str, Any]]:
    """[{"i", "label", "source", "targets": [text per column]}], cached by the assignment's random public id."""
    hit = _CACHE.get(asg.public_id)
    if hit is not None:
        return hit
    item = asg.item
    by_id = {v.version_id: v.version for v in item.versions}
    sources = source_texts(item.document_id, item.seg_start, item.seg_end)
    columns = [version_texts(by_id[vid], item.document_id, item.seg_start, item.seg_end) or [""] * len(sources)
               for vid in column_order(asg)]
    out = [{"i": k, "label": item.seg_start + k + 1, "source": s, "targets": [c[k] for c in columns]}
           for k, s in enumerate(sources)]
    with _LOCK:
        _CACHE[asg.public_id] = out
        while len(_CACHE) > 4096:
            _CACHE.pop(next(iter(_CACHE)))
    return out


def check_finish(asg: Assignment) -> None:
    """Every translation of every segment scored."""
    segs = segment_texts(asg)
    answers = live_answers(asg)
    unscored = [(s["i"], c) for s in segs for c in range(len(s["targets"]))
                if answers.get((s["i"], c)) is None or answers[(s["i"], c)].score is None]
    if unscored:
        seg, col = unscored[0]
        raise bad("not_scored", f"score every translation before finishing: {len(unscored)} without a score "
                  f"(first: segment {segs[seg]['label']}, translation {chr(ord('A') + col)})", 409,
                  unscored=[f"{s}:{c}" for s, c in unscored])
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
    api = url_for("annotate.api_item", public_id=asg.public_id)
    return {
        "protocol": "cesa",
        "item": {"id": asg.public_id, "number": asg.number, "total": total, "campaign": campaign.name,
                 "document": item.document.name, "first": item.seg_start + 1, "last": item.seg_end,
                 "finished": asg.finished, "state": asg.state, "columns": len(item.versions),
                 "src_lang": ts.src_lang, "tgt_lang": ts.tgt_lang,
                 "src_dir": text_direction(ts.src_lang, (x["source"] for x in segs[:5])),
                 "tgt_dir": text_direction(ts.tgt_lang, (t for x in segs[:5] for t in x["targets"]))},
        "instructions": "\n\n".join(t for t in (s["guidelines"], campaign.instructions) if t),
        "segments": segs,
        "answers": {f"{seg}:{col}": {"uuid": a.uuid, "rev": a.rev, "data": a.to_json()}
                    for (seg, col), a in live_answers(asg).items()},
        "cursor": min(max(asg.cursor, 0), max(len(segs) - 1, 0)),
        "low_score": LOW_SCORE,
        "severities": [{"name": n, "letter": SEVERITY_LETTER[n], "text": SEVERITY_TEXT[n]} for n in SEVERITIES],
        "anchors": [{"value": v, "text": t} for v, t in ANCHORS],
        "readonly": readonly or campaign.state != "open" or asg.finished,
        "urls": {"api": api, "responses": api + "/responses/", "progress": url_for("annotate.api_progress",
                                                                                  public_id=asg.public_id),
                 "finish": url_for("annotate.api_finish", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt is not None else None,
                 "js": url_for("cesa.static", filename="cesa.js"), "css": url_for("cesa.static", filename="cesa.css"),
                 "esa_css": url_for("esa.static", filename="esa.css")},
    }


_CACHE: dict[str, list[dict[str, Any]]] = {}
_LOCK = threading.Lock()
