"""MQM campaign tables: Campaign -> Item (a system's document range) -> Assignment (an item
given to one annotator) -> Mark (one error span, or a whole-segment Non-translation).

Annotators only ever see an :class:`Assignment` through its random ``public_id`` and its
per-annotator ``number``; nothing they receive names the system, the team or the
submission. Marks are keyed by a client-generated UUID per assignment and carry a
revision number, so that a retried or replayed request is a no-op (see
:func:`enface.campaigns.services.save_mark`).
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from enface.models import Base, Document, Submission, TestSet, User, UTCDateTime, hash_secret, utcnow

from .constants import ATTENTION_KINDS, SIGNIFICANCE_UNITS  # (the tables check them; imported from here too)

CAMPAIGN_STATES = ("draft", "open", "closed", "released")
ASSIGNMENT_STATES = ("pending", "started", "finished")
SIDES = ("target", "source")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Campaign(Base):
    __tablename__ = "mqm_campaigns"
    __table_args__ = (
        CheckConstraint(_in("state", CAMPAIGN_STATES), name="state"),
        CheckConstraint("redundancy >= 1", name="redundancy"),
        CheckConstraint("attention_share >= 0 AND attention_share <= 1", name="attention_share"),
        CheckConstraint(_in("attention_kind", ATTENTION_KINDS), name="attention_kind"),
        CheckConstraint(_in("significance_unit", SIGNIFICANCE_UNITS), name="significance_unit"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    testset_id: Mapped[int] = mapped_column(ForeignKey("testsets.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    scheme: Mapped[str] = mapped_column(String(50), default="wmt23-literary")
    redundancy: Mapped[int] = mapped_column(Integer, default=1)
    attention_share: Mapped[float] = mapped_column(Float, default=0.1)
    attention_kind: Mapped[str] = mapped_column(String(10), default="mixed")
    source_words: Mapped[str] = mapped_column(String(20), default="auto")   # mqm.words modes
    significance_unit: Mapped[str] = mapped_column(String(10), default="segment")
    instructions: Mapped[str] = mapped_column(Text, default="")
    ranges: Mapped[list] = mapped_column(JSON, default=list)     # ["doc:1-40", ...] (1-based, inclusive)
    seed: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[str] = mapped_column(String(20), default="draft")
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    released_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The results frozen at release: what the leaderboard shows (see services.release).
    results: Mapped[dict | None] = mapped_column(JSON)

    testset: Mapped[TestSet] = relationship()
    created_by: Mapped[User | None] = relationship()
    systems: Mapped[list[CampaignSystem]] = relationship(back_populates="campaign", cascade="all, delete-orphan",
                                                         order_by="CampaignSystem.position")
    annotators: Mapped[list[CampaignAnnotator]] = relationship(
        back_populates="campaign", cascade="all, delete-orphan", order_by="CampaignAnnotator.position")
    invites: Mapped[list[CampaignInvite]] = relationship(cascade="all, delete-orphan",
                                                         order_by="CampaignInvite.id")
    items: Mapped[list[Item]] = relationship(back_populates="campaign", cascade="all, delete-orphan",
                                             order_by="Item.position")


class CampaignSystem(Base):
    """A submission evaluated in the campaign."""

    __tablename__ = "mqm_campaign_systems"
    __table_args__ = (UniqueConstraint("campaign_id", "submission_id", name="uq_mqm_campaign_systems_submission"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("mqm_campaigns.id", ondelete="CASCADE"))
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)

    campaign: Mapped[Campaign] = relationship(back_populates="systems")
    submission: Mapped[Submission] = relationship()


class CampaignAnnotator(Base):
    """A user annotating in a campaign, under an anonymous rater label ("rater1") used in exports."""

    __tablename__ = "mqm_campaign_annotators"
    __table_args__ = (UniqueConstraint("campaign_id", "user_id", name="uq_mqm_campaign_annotators_user"),
                      UniqueConstraint("campaign_id", "position", name="uq_mqm_campaign_annotators_position"))

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("mqm_campaigns.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)     # 1, 2, ...: the rater label is f"rater{position}"
    invite_id: Mapped[int | None] = mapped_column(ForeignKey("mqm_campaign_invites.id", ondelete="SET NULL"))
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    campaign: Mapped[Campaign] = relationship(back_populates="annotators")
    user: Mapped[User] = relationship()
    assignments: Mapped[list[Assignment]] = relationship(back_populates="annotator", order_by="Assignment.number")

    @property
    def rater(self) -> str:
        return f"rater{self.position}"


class CampaignInvite(Base):
    """An invite link; only the SHA-256 of its secret is stored (the link is shown once)."""

    __tablename__ = "mqm_campaign_invites"
    __table_args__ = (CheckConstraint("uses >= 0 AND uses <= max_uses", name="uses"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("mqm_campaigns.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(16))
    label: Mapped[str] = mapped_column(String(200), default="")    # whom it was sent to
    max_uses: Mapped[int] = mapped_column(Integer, default=1)
    uses: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    hash = staticmethod(hash_secret)

    @classmethod
    def issue(cls, campaign: Campaign, label: str = "", max_uses: int = 1,
              expires_at: datetime | None = None) -> tuple[CampaignInvite, str]:
        secret = "inv_" + secrets.token_urlsafe(24)
        return cls(campaign_id=campaign.id, token_hash=cls.hash(secret), hint=secret[:8], label=label,
                   max_uses=max_uses, expires_at=expires_at), secret

    def usable(self, now: datetime | None = None) -> bool:
        now = now or utcnow()
        return (self.revoked_at is None and self.uses < self.max_uses
                and (self.expires_at is None or now < self.expires_at))


class Item(Base):
    """One system's translation of one document range (segments ``seg_start`` .. ``seg_end - 1``)."""

    __tablename__ = "mqm_items"
    __table_args__ = (
        CheckConstraint("seg_start >= 0 AND seg_end > seg_start", name="range"),
        UniqueConstraint("campaign_id", "submission_id", "document_id", "seg_start",
                         name="uq_mqm_items_campaign_submission_document"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("mqm_campaigns.id", ondelete="CASCADE"), index=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    seg_start: Mapped[int] = mapped_column(Integer)     # 0-based, like Segment.position
    seg_end: Mapped[int] = mapped_column(Integer)       # exclusive
    position: Mapped[int] = mapped_column(Integer, default=0)
    source_words: Mapped[int] = mapped_column(Integer, default=0)

    campaign: Mapped[Campaign] = relationship(back_populates="items")
    submission: Mapped[Submission] = relationship()
    document: Mapped[Document] = relationship()
    assignments: Mapped[list[Assignment]] = relationship(back_populates="item", cascade="all, delete-orphan",
                                                         order_by="Assignment.id")

    @property
    def num_segments(self) -> int:
        return self.seg_end - self.seg_start


class Assignment(Base):
    """An item given to one annotator: what the annotator calls "item N"."""

    __tablename__ = "mqm_assignments"
    __table_args__ = (
        CheckConstraint(_in("state", ASSIGNMENT_STATES), name="state"),
        CheckConstraint("attention_result IS NULL OR attention_result IN ('found', 'missed')",
                        name="attention_result"),
        UniqueConstraint("item_id", "annotator_id", name="uq_mqm_assignments_item_annotator"),
        UniqueConstraint("annotator_id", "number", name="uq_mqm_assignments_annotator_number"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(24), unique=True, default=lambda: secrets.token_urlsafe(12))
    campaign_id: Mapped[int] = mapped_column(ForeignKey("mqm_campaigns.id", ondelete="CASCADE"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("mqm_items.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("mqm_campaign_annotators.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)        # 1, 2, ... per annotator
    state: Mapped[str] = mapped_column(String(20), default="pending")
    cursor: Mapped[int] = mapped_column(Integer, default=0)      # the segment being read (0-based in the item)
    furthest: Mapped[int] = mapped_column(Integer, default=-1)   # the furthest segment reached
    times: Mapped[dict] = mapped_column(JSON, default=dict)      # {"<segment>": milliseconds}
    time_ms: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_active_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The attention check, if this assignment has one: the corrupted target of one segment.
    attention_seg: Mapped[int | None] = mapped_column(Integer)
    attention_kind: Mapped[str | None] = mapped_column(String(10))
    attention_text: Mapped[str | None] = mapped_column(Text)
    attention_start: Mapped[int | None] = mapped_column(Integer)
    attention_end: Mapped[int | None] = mapped_column(Integer)
    attention_result: Mapped[str | None] = mapped_column(String(10))

    item: Mapped[Item] = relationship(back_populates="assignments")
    annotator: Mapped[CampaignAnnotator] = relationship(back_populates="assignments")
    marks: Mapped[list[Mark]] = relationship(back_populates="assignment", cascade="all, delete-orphan",
                                             order_by="Mark.id")

    @property
    def finished(self) -> bool:
        return self.state == "finished"


class Mark(Base):
    """One error span (or a whole-segment Non-translation) marked by an annotator.

    Deleting keeps a tombstone (``deleted``) with its revision, so that a late retry
    of an older write cannot bring the mark back; a newer revision can (undo).
    """

    __tablename__ = "mqm_marks"
    __table_args__ = (
        UniqueConstraint("assignment_id", "uuid", name="uq_mqm_marks_assignment_uuid"),
        CheckConstraint(_in("side", SIDES), name="side"),
        CheckConstraint("start_pos >= 0 AND end_pos > start_pos", name="span"),
        Index("ix_mqm_marks_assignment_seg", "assignment_id", "seg"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("mqm_assignments.id", ondelete="CASCADE"))
    uuid: Mapped[str] = mapped_column(String(36))
    rev: Mapped[int] = mapped_column(Integer, default=1)
    seg: Mapped[int] = mapped_column(Integer)           # 0-based segment in the item
    side: Mapped[str] = mapped_column(String(10), default="target")
    start_pos: Mapped[int] = mapped_column(Integer)     # code points into the segment text shown
    end_pos: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text, default="")
    category: Mapped[str] = mapped_column(String(100))
    subcategory: Mapped[str] = mapped_column(String(100), default="")
    severity: Mapped[str] = mapped_column(String(30))
    note: Mapped[str] = mapped_column(Text, default="")
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    assignment: Mapped[Assignment] = relationship(back_populates="marks")

    def to_json(self) -> dict:
        return {"uuid": self.uuid, "rev": self.rev, "seg": self.seg, "side": self.side, "start": self.start_pos,
                "end": self.end_pos, "text": self.text, "category": self.category,
                "subcategory": self.subcategory, "severity": self.severity, "note": self.note,
                "deleted": self.deleted}
