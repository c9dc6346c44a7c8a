"""An annotator's way through a crowd campaign: welcome form (consent), tutorial, items, completion code.

:func:`next_step` says where the annotator goes next; :func:`gate` is the core's gate
(:mod:`enface.campaigns.gates`) that keeps the items closed until consent is given and, when the
tutorial is required, until it is completed. :func:`completion` gives the code once all the
annotator's items are finished: the pass code when the share of checks answered right (attention
checks, and tutorial items at the first try) reaches the threshold, the fail code otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import url_for
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from ..campaigns.gates import Gate
from ..campaigns.models import Assignment, Campaign, CampaignAnnotator
from ..campaigns.protocol import protocol_of
from ..extensions import db
from ..services import NotFound
from . import tutorial as tut
from . import welcome
from .models import CrowdAnswer
from .setup import redirect_url, setup_of


def annotator_in(campaign_id: int, user) -> CampaignAnnotator:
    """The user's annotator row in the campaign; anyone else is told there is nothing here (404)."""
    ann = db.session.scalar(select(CampaignAnnotator).where(CampaignAnnotator.campaign_id == campaign_id,
                                                            CampaignAnnotator.user_id == user.id))
    if ann is None:
        raise NotFound("campaign")
    return ann


def answer_of(annotator_id: int, kind: str, key: str = "") -> CrowdAnswer | None:
    return db.session.scalar(select(CrowdAnswer).where(CrowdAnswer.annotator_id == annotator_id,
                                                       CrowdAnswer.kind == kind, CrowdAnswer.key == key))


def welcome_done(annotator_id: int, setup) -> bool:
    return not (setup and setup.welcome) or answer_of(annotator_id, "welcome") is not None


def save_welcome(campaign: Campaign, annotator: CampaignAnnotator, posted) -> dict[str, Any]:
    """Checks and stores the welcome form's answers (once: a second post keeps the first answers)."""
    setup = setup_of(campaign.id)
    if not (setup and setup.welcome):
        raise NotFound("welcome form")
    answers = welcome.check_answers(welcome.form_from_json(setup.welcome), posted)
    try:
        with db.write():
            if answer_of(annotator.id, "welcome") is None:
                db.session.add(CrowdAnswer(campaign_id=campaign.id, annotator_id=annotator.id, kind="welcome",
                                           key="", data={"answers": answers}))
    except IntegrityError:
        pass      # the same form sent twice at once: the first one stays
    return answers


def tutorial_done(annotator_id: int, setup) -> bool:
    return tut.complete(setup.tutorial if setup else None, annotator_id)


def gate(asg: Assignment) -> Gate | None:
    setup = setup_of(asg.campaign_id)
    if setup is None:
        return None
    if not welcome_done(asg.annotator_id, setup):
        return Gate("consent_required", "please answer the welcome form (and give your consent) before you start",
                    url_for("crowd.welcome", campaign_id=asg.campaign_id))
    if setup.tutorial and setup.tutorial.get("required") and not tutorial_done(asg.annotator_id, setup):
        return Gate("tutorial_required", "please complete the tutorial before the real items",
                    url_for("crowd.tutorial", campaign_id=asg.campaign_id))
    return None


def after_work(asg: Assignment) -> str | None:
    """After the last item of a campaign with completion codes: the page with the code."""
    setup = setup_of(asg.campaign_id)
    if setup is None or not setup.codes:
        return None
    return url_for("crowd.done", campaign_id=asg.campaign_id)


def _assignments(annotator_id: int) -> list[Assignment]:
    return list(db.session.scalars(select(Assignment).where(Assignment.annotator_id == annotator_id)
                                   .order_by(Assignment.number)))


def next_step(campaign: Campaign, annotator: CampaignAnnotator) -> str:
    """The URL of what the annotator does next."""
    setup = setup_of(campaign.id)
    if not welcome_done(annotator.id, setup):
        return url_for("crowd.welcome", campaign_id=campaign.id)
    if setup and setup.tutorial and not tutorial_done(annotator.id, setup):
        return url_for("crowd.tutorial", campaign_id=campaign.id)
    work = _assignments(annotator.id)
    if campaign.state == "open":
        for asg in work:
            if not asg.finished:
                return url_for("annotate.item", public_id=asg.public_id)
    if work and all(a.finished for a in work):
        return url_for("crowd.done", campaign_id=campaign.id)
    return url_for("crowd.waiting", campaign_id=campaign.id)


@dataclass(frozen=True)
class Checks:
    right: int
    total: int
    threshold: float

    @property
    def passed(self) -> bool:
        return self.total == 0 or self.right >= self.threshold * self.total - 1e-9

    def rule(self) -> str:
        return (f"the pass code needs at least {self.threshold:.0%} of the checks right (attention checks, and "
                "tutorial items at the first try)")


def checks(campaign: Campaign, annotator: CampaignAnnotator, threshold: float) -> Checks:
    setup = setup_of(campaign.id)
    t = tut.summary(setup.tutorial if setup else None, annotator.id)
    att_right, att_total = protocol_of(campaign).attention_results(campaign, annotator.id)
    return Checks(right=t["first_right"] + att_right, total=t["items"] + att_total, threshold=threshold)


@dataclass(frozen=True)
class Completion:
    code: str | None
    passed: bool
    right: int
    total: int
    rule: str
    redirect: str | None


def completion(campaign: Campaign, annotator: CampaignAnnotator) -> Completion | None:
    """The annotator's completion code once every item of theirs is finished (None before); given once and
    kept (a reload shows the same code). Without codes set, ``code`` is None (the page says thank you)."""
    work = _assignments(annotator.id)
    if not work or not all(a.finished for a in work):
        return None
    setup = setup_of(campaign.id)
    codes = setup.codes if setup and setup.codes else None
    given = answer_of(annotator.id, "completion")
    if given is None:
        threshold = codes["threshold"] if codes else 1.0
        c = checks(campaign, annotator, threshold)
        code = None
        if codes:
            code = codes["pass"] if c.passed or not codes.get("fail") else codes["fail"]
        data = {"code": code, "passed": c.passed, "right": c.right, "total": c.total, "threshold": threshold,
                "rule": c.rule()}
        try:
            with db.write():
                if answer_of(annotator.id, "completion") is None:
                    db.session.add(CrowdAnswer(campaign_id=campaign.id, annotator_id=annotator.id, kind="completion",
                                               key="", data=data))
        except IntegrityError:
            pass
        given = answer_of(annotator.id, "completion")
    d = given.data
    return Completion(code=d.get("code"), passed=bool(d.get("passed")), right=d.get("right", 0),
                      total=d.get("total", 0), rule=d.get("rule", ""),
                      redirect=redirect_url(codes, d["code"]) if codes and d.get("code") else None)


def answer_count(campaign_id: int, kind: str) -> int:
    return db.session.scalar(select(func.count(CrowdAnswer.id)).where(CrowdAnswer.campaign_id == campaign_id,
                                                                      CrowdAnswer.kind == kind)) or 0
