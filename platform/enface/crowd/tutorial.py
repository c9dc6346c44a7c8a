"""Tutorials: training items with expected answers, checked by the campaign's protocol.

A tutorial file::

    {"required": true, "intro": "...",
     "items": [{"id": "t1", "mode": "loud", "source": "...", "translation": "...",
                "expected": {...the protocol's answer...}, "explanation": "why"}]}

``loud`` items show the explanation after a wrong answer and ask again (until right); ``silent``
items take one answer, which is only logged. With ``required`` the tutorial must be completed before
the real items open. Each item's record (a :class:`~enface.crowd.models.CrowdAnswer` of kind
``tutorial``) keeps the answers, the attempts and whether the first one was right: that is what
the completion code and the dashboard count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..campaigns.models import Campaign, CampaignAnnotator
from ..campaigns.protocol import protocol_of
from ..campaigns.services import bad
from ..extensions import db
from ..models import utcnow
from ..safejson import JSONInputError, loads
from ..services import ServiceError
from .models import CrowdAnswer
from .welcome import ID_RE

MODES = ("loud", "silent")
MAX_ITEMS = 50
MAX_TEXT = 5000
MAX_KEPT_ANSWERS = 20


def _fail(message: str, where: str) -> Exception:
    return bad("invalid_tutorial", f"tutorial: {where}: {message}", 400, field="tutorial")


def load_tutorial(campaign: Campaign, text: str | bytes) -> dict[str, Any]:
    """The organizer's tutorial file, checked (the expected answers by the campaign's protocol)."""
    try:
        data = loads(text)
    except JSONInputError as exc:
        raise _fail(exc.message, "file") from None
    protocol = protocol_of(campaign)
    if not protocol.tutorial_fields(campaign):
        raise _fail(f"this campaign's protocol ({protocol.title or protocol.key}) has no tutorial items", "file")
    if not isinstance(data, dict) or not isinstance(data.get("items"), list) or not data["items"]:
        raise _fail('needs an object with a non-empty list "items"', "file")
    if len(data["items"]) > MAX_ITEMS:
        raise _fail(f"at most {MAX_ITEMS} items", "items")
    required = data.get("required", False)
    if not isinstance(required, bool):
        raise _fail("must be true or false", "required")
    intro = data.get("intro", "")
    if not isinstance(intro, str) or len(intro) > MAX_TEXT:
        raise _fail(f"must be a text of at most {MAX_TEXT} characters", "intro")
    items, seen = [], set()
    for n, raw in enumerate(data["items"], 1):
        where = f"item {n}"
        if not isinstance(raw, dict):
            raise _fail("must be an object", where)
        iid = raw.get("id", f"t{n}")
        if not isinstance(iid, str) or not ID_RE.match(iid) or iid in seen:
            raise _fail("id must be unique, lower-case letters, digits and _", where)
        seen.add(iid)
        mode = raw.get("mode", "loud")
        if mode not in MODES:
            raise _fail("mode must be loud or silent", where)
        texts = {}
        for name in ("source", "translation", "explanation"):
            value = raw.get(name, "")
            if not isinstance(value, str) or len(value) > MAX_TEXT or (name != "explanation" and not value.strip()):
                raise _fail(f"{name} must be a text of 1 to {MAX_TEXT} characters", where)
            texts[name] = value
        if mode == "loud" and not texts["explanation"].strip():
            raise _fail("a loud item needs an explanation (shown after a wrong answer)", where)
        try:
            expected = protocol.check_tutorial_expected(campaign, raw.get("expected"), texts["translation"])
        except ServiceError as exc:
            raise _fail(exc.message, where) from None
        items.append({"id": iid, "mode": mode, **texts, "expected": expected})
    return {"required": required, "intro": intro.strip(), "items": items}


def public_item(item: dict[str, Any]) -> dict[str, Any]:
    """What the annotator's page shows of an item (never the expected answer)."""
    return {"id": item["id"], "mode": item["mode"], "source": item["source"], "translation": item["translation"]}


def parse_answer(fields: list[dict[str, Any]], posted, translation: str) -> dict[str, Any]:
    """The posted answer, structurally checked: a span is ``start:end`` in the translation or empty (none)."""
    answer: dict[str, Any] = {}
    for f in fields:
        raw = posted.get(f["name"], "")
        raw = raw.strip() if isinstance(raw, str) else ""
        if f["type"] == "span":
            if not raw:
                if posted.get(f"{f['name']}_none") != "1":
                    raise bad("invalid_answer", "select the error in the translation, or tick “no error”", field=f["name"])
                answer[f["name"]] = None
                continue
            start, _, end = raw.partition(":")
            if not (start.isascii() and start.isdecimal() and end.isascii() and end.isdecimal()
                    and len(start) < 7 and len(end) < 7) or not 0 <= int(start) < int(end) <= len(translation):
                raise bad("invalid_answer", "the selected span is not in the translation", field=f["name"])
            answer[f["name"]] = [int(start), int(end)]
        elif f["type"] == "choice":
            if raw and raw not in f.get("options", []):
                raise bad("invalid_answer", f"{f['label']}: choose one of the options shown", field=f["name"])
            answer[f["name"]] = raw or None
        elif f["type"] == "number":
            try:
                x = float(raw)
            except ValueError:
                raise bad("invalid_answer", f"{f['label']}: must be a number", field=f["name"]) from None
            if x != x or not f.get("min", -1e9) <= x <= f.get("max", 1e9):
                raise bad("invalid_answer", f"{f['label']}: out of range", field=f["name"])
            answer[f["name"]] = x
    return answer


@dataclass(frozen=True)
class Outcome:
    correct: bool
    retry: bool            # a loud item answered wrongly: explain and ask again
    explanation: str


def records(annotator_id: int) -> dict[str, CrowdAnswer]:
    return {r.key: r for r in db.session.scalars(select(CrowdAnswer).where(
        CrowdAnswer.annotator_id == annotator_id, CrowdAnswer.kind == "tutorial"))}


def done(item: dict[str, Any], record: CrowdAnswer | None) -> bool:
    if record is None:
        return False
    return bool(record.data.get("correct")) or item["mode"] == "silent"


def next_item(tutorial: dict[str, Any], annotator_id: int) -> tuple[int, dict[str, Any]] | None:
    recs = records(annotator_id)
    for n, item in enumerate(tutorial["items"]):
        if not done(item, recs.get(item["id"])):
            return n, item
    return None


def complete(tutorial: dict[str, Any] | None, annotator_id: int) -> bool:
    return not tutorial or next_item(tutorial, annotator_id) is None


def answer(campaign: Campaign, annotator: CampaignAnnotator, tutorial: dict[str, Any], item_id: str,
           posted) -> Outcome:
    """Grades and records one answer to the item ``item_id`` (it must be the next one to do)."""
    nxt = next_item(tutorial, annotator.id)
    if nxt is None or nxt[1]["id"] != item_id:
        raise bad("tutorial_moved_on", "this training item is done already; the page shows the next one", 409)
    item = nxt[1]
    protocol = protocol_of(campaign)
    given = parse_answer(protocol.tutorial_fields(campaign), posted, item["translation"])
    right = bool(protocol.grade_tutorial(campaign, item["expected"], given))
    for _attempt in range(3):
        try:
            with db.write():
                rec = db.session.scalar(select(CrowdAnswer).where(
                    CrowdAnswer.annotator_id == annotator.id, CrowdAnswer.kind == "tutorial",
                    CrowdAnswer.key == item_id).with_for_update())
                if rec is None:
                    rec = CrowdAnswer(campaign_id=campaign.id, annotator_id=annotator.id, kind="tutorial", key=item_id,
                                      attempts=0, data={"first_correct": right, "mode": item["mode"]})
                    db.session.add(rec)
                rec.attempts += 1
                rec.data = {**rec.data, "correct": right,
                            "answers": (rec.data.get("answers", []) + [given])[-MAX_KEPT_ANSWERS:]}
                rec.updated_at = utcnow()
            break
        except IntegrityError:
            continue    # a double click raced the first answer in (PostgreSQL): count it again on the row
    return Outcome(correct=right, retry=item["mode"] == "loud" and not right,
                   explanation=item["explanation"] if item["mode"] == "loud" else "")


def summary(tutorial: dict[str, Any] | None, annotator_id: int) -> dict[str, int]:
    """{"items", "answered", "first_right", "attempts"} of one annotator."""
    if not tutorial:
        return {"items": 0, "answered": 0, "first_right": 0, "attempts": 0}
    recs = records(annotator_id)
    keys = [i["id"] for i in tutorial["items"]]
    mine = [recs[k] for k in keys if k in recs]
    return {"items": len(keys), "answered": len(mine), "first_right": sum(bool(r.data.get("first_correct")) for r in mine),
            "attempts": sum(r.attempts for r in mine)}
