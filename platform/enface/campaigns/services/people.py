"""Who annotates: annotators, invite links, conflicts of interest, and handing out work to late joiners."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from ...extensions import db
from ...models import User, utcnow
from ...services import NotFound
from ...services.accounts import check_text
from ..models import Campaign, CampaignAnnotator, CampaignInvite
from .common import bad, whole_number
from .lifecycle import rebalance
from .setup import get_campaign


def _next_position(campaign_id: int) -> int:
    return (db.session.scalar(select(func.max(CampaignAnnotator.position))
                              .where(CampaignAnnotator.campaign_id == campaign_id)) or 0) + 1


def add_annotator(campaign: Campaign, user: User, invite: CampaignInvite | None = None) -> CampaignAnnotator:
    """Adds ``user`` (idempotent: an annotator already in returns their row).

    Someone who joins a started campaign gets a share of the unstarted work at once (:func:`rebalance`).
    """
    ann = _add_annotator(campaign, user, invite)
    if campaign.state == "open" and not ann.assignments:
        rebalance(campaign)
    return ann


def _add_annotator(campaign: Campaign, user: User, invite: CampaignInvite | None) -> CampaignAnnotator:
    if campaign.state == "released":
        raise bad("campaign_released", "this campaign is released; it takes no new annotators", 409)
    for _attempt in range(5):
        try:
            with db.write():
                existing = db.session.scalar(select(CampaignAnnotator).where(
                    CampaignAnnotator.campaign_id == campaign.id, CampaignAnnotator.user_id == user.id))
                if existing is not None:
                    return existing
                ann = CampaignAnnotator(campaign_id=campaign.id, user_id=user.id,
                                        position=_next_position(campaign.id),
                                        invite_id=invite.id if invite is not None else None)
                db.session.add(ann)
                if invite is not None:
                    used = db.session.execute(
                        update(CampaignInvite).where(CampaignInvite.id == invite.id,
                                                     CampaignInvite.uses < CampaignInvite.max_uses,
                                                     CampaignInvite.revoked_at.is_(None))
                        .values(uses=CampaignInvite.uses + 1)).rowcount
                    if not used:
                        raise bad("invite_used", "this invite link has been used up or revoked; ask the "
                                  "organizer for a new one", 410)
                db.session.flush()
            return ann
        except IntegrityError:
            continue   # two joins raced for the same position (PostgreSQL): take the next one
    raise bad("busy", "could not add the annotator, try again", 409)


def remove_annotator(campaign: Campaign, annotator_id: int) -> None:
    ann = db.session.get(CampaignAnnotator, annotator_id)
    if ann is None or ann.campaign_id != campaign.id:
        raise NotFound("annotator")
    if ann.assignments:
        raise bad("has_items", "this annotator has items: rebalance their unstarted items to others first", 409)
    with db.write():
        db.session.delete(db.session.merge(ann))


MAX_INVITE_DAYS = 3650


def create_invites(campaign: Campaign, count: int | str = 1, label: str = "", max_uses: int | str = 1,
                   days: int | str | None = 30) -> list[tuple[CampaignInvite, str]]:
    if campaign.state == "released":
        raise bad("campaign_released", "this campaign is released", 409)
    count = whole_number(count, "number of links", 1, 200)
    max_uses = whole_number(max_uses, "uses per link", 1, 1000)
    label = check_text(label, "label", max_len=200, required=False)
    days = whole_number(days, "days", 1, MAX_INVITE_DAYS) if days not in (None, "") else None
    expires = utcnow() + timedelta(days=days) if days else None
    out = []
    with db.write():
        for _ in range(count):
            inv, secret = CampaignInvite.issue(campaign, label=label, max_uses=max_uses, expires_at=expires)
            db.session.add(inv)
            out.append((inv, secret))
    return out


def invite_from_secret(secret: str) -> CampaignInvite:
    inv = db.session.scalar(select(CampaignInvite).where(CampaignInvite.token_hash == CampaignInvite.hash(secret or "")))
    if inv is None:
        raise bad("bad_invite", "this invite link is not valid", 404)
    if not inv.usable():
        raise bad("invite_used", "this invite link has expired, been used up or been revoked; ask the organizer "
                  "for a new one", 410)
    return inv


def revoke_invite(campaign: Campaign, invite_id: int) -> None:
    with db.write():
        n = db.session.execute(update(CampaignInvite).where(CampaignInvite.id == invite_id,
                                                            CampaignInvite.campaign_id == campaign.id)
                               .values(revoked_at=utcnow())).rowcount
    if not n:
        raise NotFound("invite")


def invite_with_campaign(secret: str) -> tuple[CampaignInvite, Campaign]:
    """The usable invite of a link (see :func:`invite_from_secret`) and its campaign."""
    inv = invite_from_secret(secret)
    return inv, get_campaign(inv.campaign_id)


def accept_invite(inv: CampaignInvite, campaign: Campaign, user: User) -> CampaignAnnotator:
    """Makes ``user`` an annotator of ``campaign`` by the invite ``inv`` (both from :func:`invite_with_campaign`).

    The invite's use is counted atomically (:func:`add_annotator`): a link used up meanwhile is refused.
    """
    existing = db.session.scalar(select(CampaignAnnotator).where(CampaignAnnotator.campaign_id == campaign.id,
                                                                 CampaignAnnotator.user_id == user.id))
    if existing is not None:
        return existing
    return add_annotator(campaign, user, invite=inv)


# --------------------------------------------------------------------------- starting: items and assignments


def is_annotator(user: User) -> bool:
    """Whether the user annotates in any campaign."""
    return db.session.scalar(select(CampaignAnnotator.id).where(CampaignAnnotator.user_id == user.id).limit(1)) \
        is not None
