"""The crowd answers as campaign exports, beside the protocol's: ``crowd.csv`` (one row per annotator and
welcome question, tutorial item, completion code) and ``crowd.json`` (the same per annotator, with the form's
questions and every tutorial attempt), for every protocol (:mod:`enface.campaigns.exports`).

Two readers. The organizer's files carry the link's label (the panel id), the completion code given and the
times. The public files (the release bundle, the public export of a released campaign) name annotators only
by the rater labels the protocol's own exports use (``rater1``), never a panel id, an e-mail or a code
string (the code's kind, pass or fail, stays), and leave out the answers to private questions
(:attr:`~enface.crowd.welcome.Question.private`: text questions unless the form says otherwise).
"""

from __future__ import annotations

import io
import json
from functools import partial
from typing import Any

from sqlalchemy import exists, select

from scoring import csvsafe

from ..campaigns.contract import Export
from ..campaigns.models import Campaign, CampaignAnnotator
from ..extensions import db
from . import welcome
from .models import CampaignLink, CrowdAnswer
from .setup import setup_of

CSV_FORMAT, JSON_FORMAT = "crowd.csv", "crowd.json"
ORGANIZER_ONLY = ("panel_id", "code", "at")
CSV_COLUMNS = ("rater", "panel_id", "kind", "key", "answer", "correct", "first_correct", "attempts", "right", "total",
               "threshold", "code", "at")


def has_crowd(campaign: Campaign) -> bool:
    """Whether the campaign has a crowd setup (a welcome form, a tutorial or codes) or crowd answers."""
    setup = setup_of(campaign.id)
    if setup is not None and (setup.welcome or setup.tutorial or setup.codes):
        return True
    return bool(db.session.scalar(select(exists().where(CrowdAnswer.campaign_id == campaign.id))))


def provider(campaign: Campaign, *, public: bool) -> dict[str, Export]:
    """The core's crowd files of ``campaign`` (registered with :func:`enface.campaigns.exports.register_exports`)."""
    if not has_crowd(campaign):
        return {}
    who = "pseudonymous raters" if public else "with panel ids and codes"
    return {CSV_FORMAT: Export("text/csv; charset=utf-8", CSV_FORMAT, f"Crowd answers (CSV, {who})",
                               partial(crowd_csv, public=public)),
            JSON_FORMAT: Export("application/json", JSON_FORMAT, f"Crowd answers (JSON, {who})",
                                partial(crowd_json, public=public))}


def _answers_by_annotator(campaign: Campaign) -> dict[int, dict[str, list[CrowdAnswer]]]:
    out: dict[int, dict[str, list[CrowdAnswer]]] = {}
    for a in db.session.scalars(select(CrowdAnswer).where(CrowdAnswer.campaign_id == campaign.id)
                                .order_by(CrowdAnswer.kind, CrowdAnswer.key, CrowdAnswer.id)):
        out.setdefault(a.annotator_id, {}).setdefault(a.kind, []).append(a)
    return out


def _code_kind(codes: dict[str, Any] | None, code: str | None) -> str:
    """Which code was given ("pass", "fail"; "" without codes): the release says this, never the code itself."""
    if not code or not codes:
        return ""
    return "pass" if code == codes.get("pass") else "fail" if code == codes.get("fail") else "other"


def annotator_records(campaign: Campaign, *, public: bool) -> dict[str, Any]:
    """Everything both files hold: the released questions, then one record per annotator with crowd answers
    (in the campaign's rater order; within it, the form's and the tutorial's order: the same bytes each time)."""
    setup = setup_of(campaign.id)
    form = welcome.form_from_json(setup.welcome) if setup and setup.welcome else None
    questions = (form.public if public else form.answerable) if form else []
    items = [i["id"] for i in (setup.tutorial or {}).get("items", [])] if setup else []
    modes = {i["id"]: i["mode"] for i in (setup.tutorial or {}).get("items", [])} if setup else {}
    codes = setup.codes if setup else None
    labels = {} if public else {link.user_id: link.label for link in db.session.scalars(
        select(CampaignLink).where(CampaignLink.campaign_id == campaign.id, CampaignLink.user_id.is_not(None)))}
    answers = _answers_by_annotator(campaign)
    records = []
    for ann in db.session.scalars(select(CampaignAnnotator).where(CampaignAnnotator.campaign_id == campaign.id)
                                  .order_by(CampaignAnnotator.position)):
        mine = answers.get(ann.id)
        if not mine:
            continue
        rec: dict[str, Any] = {"rater": ann.rater}
        if not public:
            rec["panel_id"] = labels.get(ann.user_id, "")
        given = mine.get("welcome", [])
        if given:
            got = given[0].data.get("answers", {})
            rec["welcome"] = {q.id: got.get(q.id) for q in questions}
            if not public:
                rec["welcome_at"] = given[0].created_at.isoformat()
        tutorial = sorted(mine.get("tutorial", []), key=lambda r: (items.index(r.key) if r.key in items
                                                                   else len(items), r.key))
        if tutorial:
            rec["tutorial"] = []
            for r in tutorial:
                row = {"item": r.key, "mode": r.data.get("mode", modes.get(r.key, "")),
                       "first_correct": bool(r.data.get("first_correct")), "correct": bool(r.data.get("correct")),
                       "attempts": r.attempts, "answers": r.data.get("answers", [])}
                if not public:
                    row["at"] = r.updated_at.isoformat()
                rec["tutorial"].append(row)
        done = mine.get("completion", [])
        if done:
            d = done[0].data
            rec["completion"] = {"code_given": _code_kind(codes, d.get("code")), "passed": bool(d.get("passed")),
                                 "right": d.get("right", 0), "total": d.get("total", 0),
                                 "threshold": d.get("threshold")}
            if not public:
                rec["completion"].update(code=d.get("code") or "", at=done[0].created_at.isoformat())
        records.append(rec)
    return {"questions": [{"id": q.id, "type": q.type, "title": q.title, "text": q.text, "options": list(q.options)}
                          for q in questions],
            "tutorial_items": items, "annotators": records}


def crowd_json(campaign: Campaign, *, public: bool) -> str:
    """``crowd.json``: the questions (the released ones, in public), the tutorial's items, each annotator's answers."""
    data = {"campaign": campaign.id, **annotator_records(campaign, public=public)}
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    if isinstance(value, dict):
        return f"other: {value.get('other', '')}"
    return str(value)


def crowd_csv(campaign: Campaign, *, public: bool) -> str:
    """``crowd.csv``: one row per annotator and welcome question (``answer``), tutorial item (its last answer as
    JSON, ``correct``, ``first_correct``, ``attempts``) and completion (``key`` "code", ``answer`` pass or fail,
    ``correct`` whether the checks passed, ``right``/``total``/``threshold``); every cell made formula-safe."""
    columns = [c for c in CSV_COLUMNS if not (public and c in ORGANIZER_ONLY)]
    rows: list[dict[str, Any]] = []
    for rec in annotator_records(campaign, public=public)["annotators"]:
        base = {"rater": rec["rater"], "panel_id": rec.get("panel_id", "")}
        for qid, value in rec.get("welcome", {}).items():
            rows.append({**base, "kind": "welcome", "key": qid, "answer": _cell(value), "at": rec.get("welcome_at")})
        for t in rec.get("tutorial", []):
            last = t["answers"][-1] if t["answers"] else None
            rows.append({**base, "kind": "tutorial", "key": t["item"],
                         "answer": json.dumps(last, ensure_ascii=False, sort_keys=True) if last is not None else "",
                         "correct": _cell(t["correct"]), "first_correct": _cell(t["first_correct"]),
                         "attempts": t["attempts"], "at": t.get("at")})
        c = rec.get("completion")
        if c:
            rows.append({**base, "kind": "completion", "key": "code", "answer": c["code_given"],
                         "correct": _cell(c["passed"]), "right": c["right"], "total": c["total"],
                         "threshold": c["threshold"], "code": c.get("code"), "at": c.get("at")})
    buf = io.StringIO()
    w = csvsafe.dict_writer(buf, columns, lineterminator="\n", extrasaction="ignore")   # answers are typed by people
    w.writeheader()
    w.writerows({k: ("" if row.get(k) is None else row[k]) for k in columns} for row in rows)
    return buf.getvalue()
