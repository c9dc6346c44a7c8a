"""The crowd tables: account-free links, a campaign's crowd setup, and the answers given outside items.

* :class:`CampaignLink`: one annotator slot reached by a link; only the SHA-256 of its secret is
  stored (shown once), an optional passphrase as a password hash; the link's account is made on
  first use (a machine account with no password) and is that campaign's annotator.
* :class:`CrowdSetup`: the welcome form, the tutorial and the completion codes of a campaign.
* :class:`CrowdAnswer`: what an annotator answered outside the items (the welcome form, each
  tutorial item, the completion code given): the core's responses of an annotator, exported
  with the rest.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from enface.campaigns.models import Campaign, CampaignAnnotator
from enface.models import Base, User, UTCDateTime, hash_secret, utcnow

ANSWER_KINDS = ("welcome", "tutorial", "completion")
TOKEN_PREFIX = "lnk_"


class CampaignLink(Base):
    __tablename__ = "crowd_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(16))
    label: Mapped[str] = mapped_column(String(200), default="")        # a panel id, or whom it went to
    passphrase_hash: Mapped[str | None] = mapped_column(String(255))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    first_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    campaign: Mapped[Campaign] = relationship()
    user: Mapped[User | None] = relationship()

    hash = staticmethod(hash_secret)

    @classmethod
    def issue(cls, campaign: Campaign, label: str = "", passphrase_hash: str | None = None) -> tuple[CampaignLink, str]:
        secret = TOKEN_PREFIX + secrets.token_urlsafe(24)
        return cls(campaign_id=campaign.id, token_hash=cls.hash(secret), hint=secret[:8], label=label,
                   passphrase_hash=passphrase_hash), secret


class CrowdSetup(Base):
    __tablename__ = "crowd_setups"

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True)
    welcome: Mapped[dict | None] = mapped_column(JSON)       # a checked welcome form (enface.crowd.welcome)
    tutorial: Mapped[dict | None] = mapped_column(JSON)      # a checked tutorial (enface.crowd.tutorial)
    codes: Mapped[dict | None] = mapped_column(JSON)         # completion codes (enface.crowd.codes)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class CrowdAnswer(Base):
    __tablename__ = "crowd_answers"
    __table_args__ = (UniqueConstraint("annotator_id", "kind", "key", name="uq_crowd_answers_annotator_kind_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("campaign_annotators.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))
    key: Mapped[str] = mapped_column(String(100), default="")
    data: Mapped[dict] = mapped_column(JSON, default=dict)
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    annotator: Mapped[CampaignAnnotator] = relationship()
