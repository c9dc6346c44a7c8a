"""The annotator's side of MQM: the page state, marks (checked, saved idempotently), reading, attention checks."""

from __future__ import annotations

from typing import Any

from flask import url_for
from sqlalchemy import func, select

import mqm

from ....campaigns import reading
from ....campaigns.models import Assignment
from ....campaigns.services import (
    bad,
    client_uuid,
    get_assignment,
    int_field,
    next_assignment,
    str_field,
    versioned_delete,
    versioned_put,
)
from ....campaigns.text_direction import text_direction
from ....extensions import db
from ....models import User
from .. import attention
from ..models import Mark
from .scheme import get_scheme, scheme_for_annotators, scheme_name, words_per_second
from .texts import segment_texts

MAX_NOTE = 2000


def item_state(asg: Assignment, *, readonly: bool = False) -> dict:
    """Everything the annotation page needs, and nothing that names the system."""
    item = asg.item
    campaign = item.campaign
    ts = campaign.testset
    segs = segment_texts(asg)
    scheme = get_scheme(scheme_name(campaign))
    total = db.session.scalar(select(func.count()).select_from(Assignment)
                              .where(Assignment.annotator_id == asg.annotator_id))
    nxt = next_assignment(asg)
    return {
        "item": {"id": asg.public_id, "number": asg.number, "total": total, "campaign": campaign.name,
                 "instructions": campaign.instructions,
                 "document": item.document.name, "first": item.seg_start + 1, "last": item.seg_end,
                 "finished": asg.finished, "locked": asg.finished or campaign.state != "open",
                 "state": asg.state,
                 "src_lang": ts.src_lang, "tgt_lang": ts.tgt_lang,
                 "src_dir": text_direction(ts.src_lang, (s["source"] for s in segs[:5])),
                 "tgt_dir": text_direction(ts.tgt_lang, (s["target"] for s in segs[:5]))},
        "segments": segs,
        "marks": [m.to_json() for m in asg.marks],
        "cursor": min(max(asg.cursor, 0), max(len(segs) - 1, 0)),
        "furthest": asg.furthest,
        "times": asg.times or {},
        "dwell_ms": reading.segment_dwell_ms(segs, words_per_second(campaign)),
        "words_per_second": words_per_second(campaign),
        "scheme": scheme_for_annotators(scheme.name),
        "readonly": readonly or campaign.state != "open",
        "urls": {"api": url_for("annotate.api_item", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt is not None else None},
    }


def validate_mark(asg: Assignment, body: Any, segs: list[dict]) -> dict:
    """The checked fields of a mark, or a 400 that names the field and the problem."""
    if not isinstance(body, dict):
        raise bad("invalid_json", "the request body must be a JSON object")
    rev = int_field(body, "rev")
    if not 1 <= rev <= 10**9:
        raise bad("invalid_field", "rev must be a positive integer", field="rev")
    seg = int_field(body, "seg")
    if not 0 <= seg < len(segs):
        raise bad("bad_segment", f"segment {seg} is not in this item (0-{len(segs) - 1})", field="seg")
    side = body.get("side", "target")
    if side not in ("target", "source"):
        raise bad("invalid_field", "side must be 'target' or 'source'", field="side")
    text = segs[seg][side]
    length = len(text)
    start, end = int_field(body, "start"), int_field(body, "end")
    if not 0 <= start < end <= length:
        raise bad("bad_span", f"span [{start}, {end}) does not fit the {side} of segment {seg} "
                  f"(length {length}; a span needs 0 <= start < end <= length)", field="start")
    given = body.get("text")
    if given is not None and given != text[start:end]:
        raise bad("bad_span", f"text {given!r} is not what the span marks ({text[start:end]!r})", field="text")
    scheme = get_scheme(scheme_name(asg.item.campaign))
    category = str_field(body, "category").strip()
    subcategory = str_field(body, "subcategory", required=False).strip()
    severity_name = str_field(body, "severity").strip()
    severity = scheme.severity(severity_name)
    if severity is None:
        raise bad("unknown_severity", f"unknown severity {severity_name!r} (this campaign's scheme "
                  f"{scheme.name} has: {', '.join(scheme.severity_names)})", field="severity")
    if category == mqm.model.NON_TRANSLATION:
        if side != "target" or start != 0 or end != length or subcategory:
            raise bad("bad_span", "a Non-translation mark covers the whole translation of its segment",
                      field="category")
    else:
        cat = next((c for c in scheme.categories if c.name == category), None)
        if cat is None:
            raise bad("unknown_category", f"unknown category {category!r} (known: "
                      f"{', '.join(c.name for c in scheme.categories)})", field="category")
        if cat.subcategories:
            if subcategory not in {s.name for s in cat.subcategories}:
                raise bad("unknown_category", f"{category} needs one of these subcategories: "
                          f"{', '.join(s.name for s in cat.subcategories)} (not {subcategory!r})",
                          field="subcategory")
        elif subcategory:
            raise bad("unknown_category", f"{category} has no subcategories (got {subcategory!r})",
                      field="subcategory")
        sides = scheme.sides_for(category, subcategory)
        if side not in sides:
            raise bad("wrong_side", f"{category}{'/' + subcategory if subcategory else ''} is marked on the "
                      f"{' or '.join(sides)}, not on the {side} (scheme {scheme.name})", field="side")
    note = str_field(body, "note", required=False, max_len=MAX_NOTE).strip()
    if "\t" in note or "\x00" in note:
        raise bad("invalid_field", "the note cannot contain tabs or NUL characters", field="note")
    note = note.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return {"rev": rev, "seg": seg, "side": side, "start_pos": start, "end_pos": end, "text": text[start:end],
            "category": category, "subcategory": subcategory, "severity": severity.name, "note": note}


def save_mark(user: User, public_id: str, uuid: str, body: Any) -> tuple[dict, bool]:
    """Creates or updates mark ``uuid``, idempotently (the core's :func:`versioned_put`). Returns (mark, changed)."""
    uuid = client_uuid(uuid, "mark")
    asg = get_assignment(user, public_id, write=True)
    fields = validate_mark(asg, body, segment_texts(asg))

    def fill(mark: Mark, _asg: Assignment) -> None:
        for key, value in fields.items():
            setattr(mark, key, value)

    return versioned_put(asg, Mark, uuid, fields["rev"], fill, "mark")


def delete_mark(user: User, public_id: str, uuid: str, body: Any) -> dict:
    uuid = client_uuid(uuid, "mark")
    return versioned_delete(get_assignment(user, public_id, write=True), Mark, uuid, body)


def furthest_clipper(asg: Assignment):
    """A segment counts as read after its minimum dwell time: never further than the first one read too fast."""
    dwell = reading.segment_dwell_ms(segment_texts(asg), words_per_second(asg.item.campaign))
    return lambda furthest, times: reading.clip_furthest(furthest, times, dwell)


def check_read(asg: Assignment) -> None:
    """Refuses to finish before every segment has been read, each for at least its dwell time."""
    segs = segment_texts(asg)
    n = asg.item.num_segments
    dwell = reading.segment_dwell_ms(segs, words_per_second(asg.item.campaign))
    unread = reading.unread_segments(asg.times or {}, dwell)
    if unread:
        raise bad("not_read", f"read every segment before finishing: {len(unread)} of {n} not read yet, or "
                  f"read too fast (segment {reading.describe_segments(unread, [s['label'] for s in segs])})",
                  409, read=n - len(unread), segments=n, unread=unread)
    asg.furthest = n - 1


def attention_found(asg: Assignment, marks: list[Mark] | None = None) -> bool | None:
    """Whether a live mark on the check's segment overlaps the injected span (None: no check)."""
    check = asg.attention
    if check is None:
        return None
    span = (check.start_pos, check.end_pos)
    for m in marks if marks is not None else asg.marks:
        if (not m.deleted and m.seg == check.seg and m.side == "target"
                and attention.overlaps((m.start_pos, m.end_pos), span)):
            return True
    return False
