"""What the organizer reads of a crowd campaign: one row per annotator, the codes file, the welcome answers."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from scoring import csvsafe

from ..campaigns.models import Campaign, CampaignAnnotator
from ..campaigns.protocol import protocol_of
from ..extensions import db
from . import tutorial as tut
from . import welcome
from .models import CampaignLink, CrowdAnswer
from .setup import setup_of


@dataclass(frozen=True)
class AnnotatorRow:
    rater: str
    panel_id: str               # the link's label ("" for an invited annotator)
    link_hint: str
    welcome_done: bool
    tutorial: dict[str, int]
    attention: tuple[int, int]
    finished: int
    items: int
    code: str | None
    passed: bool | None


def annotator_rows(campaign: Campaign) -> list[AnnotatorRow]:
    setup = setup_of(campaign.id)
    links = {link.user_id: link for link in db.session.scalars(
        select(CampaignLink).where(CampaignLink.campaign_id == campaign.id, CampaignLink.user_id.is_not(None)))}
    answers: dict[tuple[int, str], CrowdAnswer] = {
        (a.annotator_id, a.kind): a for a in db.session.scalars(select(CrowdAnswer).where(
            CrowdAnswer.campaign_id == campaign.id, CrowdAnswer.kind.in_(("welcome", "completion"))))}
    protocol = protocol_of(campaign)
    rows = []
    for ann in db.session.scalars(select(CampaignAnnotator).where(CampaignAnnotator.campaign_id == campaign.id)
                                  .order_by(CampaignAnnotator.position)):
        link = links.get(ann.user_id)
        done = answers.get((ann.id, "completion"))
        rows.append(AnnotatorRow(
            rater=ann.rater, panel_id=link.label if link else "", link_hint=link.hint if link else "",
            welcome_done=(ann.id, "welcome") in answers,
            tutorial=tut.summary(setup.tutorial if setup else None, ann.id),
            attention=protocol.attention_results(campaign, ann.id),
            finished=sum(a.finished for a in ann.assignments), items=len(ann.assignments),
            code=done.data.get("code") if done else None, passed=done.data.get("passed") if done else None))
    return rows


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    w = csvsafe.writer(buf, lineterminator="\n")     # panel ids and answers are typed by people: no formulas
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def codes_csv(campaign: Campaign) -> str:
    """Who got which completion code: panel_id, rater, code, passed, right, total, threshold, finished_at."""
    links = {link.user_id: link.label for link in db.session.scalars(
        select(CampaignLink).where(CampaignLink.campaign_id == campaign.id, CampaignLink.user_id.is_not(None)))}
    rows = []
    for a in db.session.scalars(select(CrowdAnswer).where(CrowdAnswer.campaign_id == campaign.id,
                                                          CrowdAnswer.kind == "completion").order_by(CrowdAnswer.id)):
        d = a.data
        rows.append([links.get(a.annotator.user_id, ""), a.annotator.rater, d.get("code") or "",
                     "yes" if d.get("passed") else "no", d.get("right", 0), d.get("total", 0), d.get("threshold", ""),
                     a.created_at.isoformat()])
    return _csv(["panel_id", "rater", "code", "passed", "right", "total", "threshold", "given_at"], rows)


def welcome_csv(campaign: Campaign) -> str:
    """The welcome form's answers: one row per annotator (rater, panel id), one column per question."""
    setup = setup_of(campaign.id)
    if not (setup and setup.welcome):
        return _csv(["rater", "panel_id"], [])
    form = welcome.form_from_json(setup.welcome)
    questions = [q.id for q in form.answerable]
    links = {link.user_id: link.label for link in db.session.scalars(
        select(CampaignLink).where(CampaignLink.campaign_id == campaign.id, CampaignLink.user_id.is_not(None)))}
    rows = []
    for a in db.session.scalars(select(CrowdAnswer).where(CrowdAnswer.campaign_id == campaign.id,
                                                          CrowdAnswer.kind == "welcome").order_by(CrowdAnswer.id)):
        got = a.data.get("answers", {})
        rows.append([a.annotator.rater, links.get(a.annotator.user_id, "")] + [_cell(got.get(q)) for q in questions])
    return _csv(["rater", "panel_id"] + questions, rows)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    if isinstance(value, dict):
        return f"other: {value.get('other', '')}"
    return str(value)


def answers_jsonl(campaign: Campaign) -> str:
    """Every crowd answer (welcome, tutorial, completion) as JSON lines, by rater: the export beside the protocol's."""
    out = []
    for a in db.session.scalars(select(CrowdAnswer).where(CrowdAnswer.campaign_id == campaign.id)
                                .order_by(CrowdAnswer.id)):
        out.append(json.dumps({"rater": a.annotator.rater, "kind": a.kind, "key": a.key, "attempts": a.attempts,
                               "data": a.data, "at": a.updated_at.isoformat()}, ensure_ascii=False))
    return "\n".join(out) + ("\n" if out else "")
