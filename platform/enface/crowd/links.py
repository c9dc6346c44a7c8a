"""Account-free annotator links: one unguessable, revocable link per annotator slot.

The secret (``lnk_`` + 24 random bytes) is shown once; only its SHA-256 is stored, so a database
leak opens nothing. A link may carry a passphrase (stored as a password hash). On first use the
link gets a machine account (no password, an address under :data:`LINK_DOMAIN`) that joins the
campaign like an invited annotator: no conflict of interest applies (it has no team), the
presentation stays blind. The account reaches its campaign's pages and nothing else (the fence in
:mod:`~enface.crowd.views`); revoking the link deactivates it, which ends its sessions.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import select
from werkzeug.security import check_password_hash, generate_password_hash

from ..campaigns import services as camp
from ..campaigns.models import Campaign, CampaignAnnotator
from ..campaigns.services import bad, whole_number
from ..extensions import db
from ..models import LINK_ACCOUNT_DOMAIN, User, password_method, utcnow
from ..services import NotFound
from ..services.accounts import check_text
from .models import TOKEN_PREFIX, CampaignLink

LINK_DOMAIN = LINK_ACCOUNT_DOMAIN       # the machine accounts' e-mail domain (no mail reaches ``.invalid``)
MAX_LINKS = 1000
MAX_PASSPHRASE = 200
MAX_TOKEN = 100


@dataclass(frozen=True)
class IssuedLink:
    link: CampaignLink
    secret: str          # shown once


def is_link_account(user) -> bool:
    """Whether ``user`` is a link's machine account (no query: the address says it)."""
    email = getattr(user, "email", "") or ""
    return email.endswith("@" + LINK_DOMAIN)


def _check_passphrase(passphrase: str | None) -> str | None:
    passphrase = (passphrase or "").strip()
    if not passphrase:
        return None
    if len(passphrase) > MAX_PASSPHRASE:
        raise bad("invalid_field", f"the passphrase is longer than {MAX_PASSPHRASE} characters", field="passphrase")
    return generate_password_hash(passphrase, method=password_method())


def panel_ids(text: str) -> list[str]:
    """Panel ids, one a line (blank lines skipped), each checked; a repeated id is refused."""
    out: list[str] = []
    for n, line in enumerate((text or "").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        out.append(check_text(line, f"panel id on line {n}", max_len=200))
    if len(set(out)) != len(out):
        dup = next(x for x in out if out.count(x) > 1)
        raise bad("invalid_field", f"the panel id {dup!r} is listed twice", field="panel_ids")
    return out


def create_links(campaign: Campaign, *, count: int | str | None = None, panel_ids_text: str = "", label: str = "",
                 passphrase: str | None = None) -> list[IssuedLink]:
    """``count`` new links (labelled ``label``), or one per panel id (labelled with it)."""
    if campaign.state in ("closed", "released"):
        raise bad("campaign_closed", f"this campaign is {campaign.state}: it takes no new annotators", 409)
    ids = panel_ids(panel_ids_text)
    if ids and count not in (None, ""):
        raise bad("invalid_field", "give a number of links or a list of panel ids, not both", field="count")
    if ids:
        labels = ids
    else:
        n = whole_number(count if count not in (None, "") else 1, "number of links", 1, MAX_LINKS)
        labels = [check_text(label, "label", max_len=200, required=False)] * n
    if len(labels) > MAX_LINKS:
        raise bad("invalid_field", f"at most {MAX_LINKS} links at a time", field="panel_ids")
    existing = set(db.session.scalars(select(CampaignLink.label).where(CampaignLink.campaign_id == campaign.id,
                                                                       CampaignLink.label != "")))
    again = [x for x in ids if x in existing]
    if again:
        raise bad("invalid_field", f"panel id {again[0]!r} has a link already (revoke it first to replace it)",
                  field="panel_ids")
    hashed = _check_passphrase(passphrase)
    out = []
    with db.write():
        for lab in labels:
            link, secret = CampaignLink.issue(campaign, label=lab, passphrase_hash=hashed)
            db.session.add(link)
            out.append(IssuedLink(link, secret))
    return out


def list_links(campaign: Campaign) -> list[CampaignLink]:
    return list(db.session.scalars(select(CampaignLink).where(CampaignLink.campaign_id == campaign.id)
                                   .order_by(CampaignLink.id)))


def revoke_link(campaign: Campaign, link_id: int) -> CampaignLink:
    """Revokes the link and ends its account's sessions (the account is deactivated; its answers stay)."""
    with db.write():
        link = db.session.get(CampaignLink, link_id)
        if link is None or link.campaign_id != campaign.id:
            raise NotFound("link")
        if link.revoked_at is None:
            link.revoked_at = utcnow()
        if link.user_id is not None:
            user = db.session.get(User, link.user_id)
            user.active = False
            user.session_nonce = secrets.token_hex(8)
    return link


def link_from_secret(secret: str) -> CampaignLink:
    """The link of a secret; a malformed, unknown or revoked one is refused with a sentence (404 / 410)."""
    if not isinstance(secret, str) or not secret.startswith(TOKEN_PREFIX) or len(secret) > MAX_TOKEN:
        raise bad("bad_link", "this link is not valid: check that it was copied whole", 404)
    link = db.session.scalar(select(CampaignLink).where(CampaignLink.token_hash == CampaignLink.hash(secret)))
    if link is None:
        raise bad("bad_link", "this link is not valid: check that it was copied whole", 404)
    if link.revoked_at is not None:
        raise bad("link_revoked", "this link has been withdrawn by the organizer of the study", 410)
    if link.campaign.state in ("closed", "released"):
        raise bad("campaign_closed", "this study is over: it takes no more answers", 410)
    return link


def check_passphrase(link: CampaignLink, passphrase: str) -> None:
    if link.passphrase_hash is None:
        return
    if not isinstance(passphrase, str) or len(passphrase) > MAX_PASSPHRASE or not check_password_hash(
            link.passphrase_hash, passphrase.strip()):
        raise bad("wrong_passphrase", "that passphrase is not the one for this link", 403, field="passphrase")


def account_of(link: CampaignLink) -> User:
    """The link's machine account, made (and added to the campaign) on first use."""
    if link.user_id is None:
        with db.write():
            fresh = db.session.get(CampaignLink, link.id, with_for_update=True, populate_existing=True)
            if fresh.user_id is None:
                user = User(email=f"link-{secrets.token_hex(8)}@{LINK_DOMAIN}", name="Annotator", role="annotator",
                            password_hash="")
                db.session.add(user)
                db.session.flush()
                fresh.user_id = user.id
                fresh.first_used_at = utcnow()
            link = fresh
    user = db.session.get(User, link.user_id)
    campaign = camp.get_campaign(link.campaign_id)
    camp.add_annotator(campaign, user)     # idempotent; a started campaign hands it a share of the work
    return user


def link_of_user(user_id: int) -> CampaignLink | None:
    return db.session.scalar(select(CampaignLink).where(CampaignLink.user_id == user_id))


def annotator_of_link(link: CampaignLink) -> CampaignAnnotator | None:
    if link.user_id is None:
        return None
    return db.session.scalar(select(CampaignAnnotator).where(CampaignAnnotator.campaign_id == link.campaign_id,
                                                             CampaignAnnotator.user_id == link.user_id))
