"""Campaign tables shared by every human-evaluation protocol.

Campaign -> Item (a document range) holding one or more versions (a system output
or a reference: a human translation is a version too) -> Assignment (an item given
to one annotator, with a stage and an optional time lock) -> Response (what the
annotator answered, saved idempotently by client UUID and revision).

A protocol (:mod:`enface.protocols`) adds its own tables beside these (MQM's
marks, for example) and keeps its settings in ``Campaign.settings``; nothing
here knows one protocol from another.

Annotators only ever see an :class:`Assignment` through its random ``public_id``
and its per-annotator ``number``; nothing they receive names the system, the
team, the submission or whether a version is a reference.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from enface.models import Base, Document, Submission, TestSet, User, UTCDateTime, hash_secret, utcnow

CAMPAIGN_STATES = ("draft", "open", "closed", "released")
ASSIGNMENT_STATES = ("pending", "started", "finished")
#: How items reach annotators (see :mod:`~enface.campaigns.assignment`).
STRATEGIES = ("redundancy", "document", "pairs")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Campaign(Base):
    __tablename__ = "campaigns"
    __table_args__ = (
        CheckConstraint(_in("state", CAMPAIGN_STATES), name="state"),
        CheckConstraint(_in("strategy", STRATEGIES), name="strategy"),
        CheckConstraint("redundancy >= 1", name="redundancy"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    testset_id: Mapped[int] = mapped_column(ForeignKey("testsets.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    protocol: Mapped[str] = mapped_column(String(30))   # an installed protocol's key (create_campaign checks it)
    # The protocol's own settings (MQM: scheme, attention checks, ...), checked by the protocol.
    settings: Mapped[dict] = mapped_column(JSON, default=dict)
    strategy: Mapped[str] = mapped_column(String(20), default="redundancy")
    redundancy: Mapped[int] = mapped_column(Integer, default=1)
    instructions: Mapped[str] = mapped_column(Text, default="")
    ranges: Mapped[list] = mapped_column(JSON, default=list)     # ["doc:1-40", ...] (1-based, inclusive)
    seed: Mapped[int] = mapped_column(Integer, default=0)
    # How the documents were chosen ({"method": "ranges" | "uniform" | a subset2evaluate method, "metric",
    # "systems"}: enface.campaigns.selection); None for campaigns created before it was kept.
    doc_selection: Mapped[dict | None] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(20), default="draft")
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    released_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The results frozen at release: what the leaderboard shows.
    results: Mapped[dict | None] = mapped_column(JSON)

    testset: Mapped[TestSet] = relationship()
    created_by: Mapped[User | None] = relationship()
    versions: Mapped[list[CampaignVersion]] = relationship(
        back_populates="campaign", cascade="all, delete-orphan", order_by="CampaignVersion.position")
    annotators: Mapped[list[CampaignAnnotator]] = relationship(
        back_populates="campaign", cascade="all, delete-orphan", order_by="CampaignAnnotator.position")
    invites: Mapped[list[CampaignInvite]] = relationship(cascade="all, delete-orphan",
                                                         order_by="CampaignInvite.id")
    items: Mapped[list[Item]] = relationship(back_populates="campaign", cascade="all, delete-orphan",
                                             order_by="Item.position")

    @property
    def systems(self) -> list[CampaignVersion]:
        """The versions that are system outputs (not references)."""
        return [v for v in self.versions if v.submission_id is not None]

    def setting(self, name: str, default=None):
        return (self.settings or {}).get(name, default)


class CampaignVersion(Base):
    """A translation evaluated in the campaign: a submission, or reference 1 or 2 of the test set."""

    __tablename__ = "campaign_versions"
    __table_args__ = (
        UniqueConstraint("campaign_id", "submission_id", name="uq_campaign_versions_submission"),
        UniqueConstraint("campaign_id", "reference", name="uq_campaign_versions_reference"),
        CheckConstraint("(submission_id IS NULL) <> (reference IS NULL)", name="one_source"),
        CheckConstraint("reference IS NULL OR reference IN (1, 2)", name="reference"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    reference: Mapped[int | None] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer, default=0)

    campaign: Mapped[Campaign] = relationship(back_populates="versions")
    submission: Mapped[Submission | None] = relationship()

    @property
    def is_reference(self) -> bool:
        return self.reference is not None

    @property
    def label(self) -> str:
        """The organizer's name for it (never shown to annotators)."""
        if self.reference is not None:
            return f"reference {self.reference}"
        return self.submission.system_name if self.submission is not None else "?"


class CampaignAnnotator(Base):
    """A user annotating in a campaign, under an anonymous rater label ("rater1") used in exports."""

    __tablename__ = "campaign_annotators"
    __table_args__ = (UniqueConstraint("campaign_id", "user_id", name="uq_campaign_annotators_user"),
                      UniqueConstraint("campaign_id", "position", name="uq_campaign_annotators_position"))

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)     # 1, 2, ...: the rater label is f"rater{position}"
    invite_id: Mapped[int | None] = mapped_column(ForeignKey("campaign_invites.id", ondelete="SET NULL"))
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    campaign: Mapped[Campaign] = relationship(back_populates="annotators")
    user: Mapped[User] = relationship()
    assignments: Mapped[list[Assignment]] = relationship(back_populates="annotator", order_by="Assignment.number")

    @property
    def rater(self) -> str:
        return f"rater{self.position}"


class CampaignInvite(Base):
    """An invite link; only the SHA-256 of its secret is stored (the link is shown once)."""

    __tablename__ = "campaign_invites"
    __table_args__ = (CheckConstraint("uses >= 0 AND uses <= max_uses", name="uses"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
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
    """One document range (segments ``seg_start`` .. ``seg_end - 1``) in one or more versions."""

    __tablename__ = "campaign_items"
    __table_args__ = (
        CheckConstraint("seg_start >= 0 AND seg_end > seg_start", name="range"),
        UniqueConstraint("campaign_id", "position", name="uq_campaign_items_position"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    seg_start: Mapped[int] = mapped_column(Integer)     # 0-based, like Segment.position
    seg_end: Mapped[int] = mapped_column(Integer)       # exclusive
    position: Mapped[int] = mapped_column(Integer, default=0)
    source_words: Mapped[int] = mapped_column(Integer, default=0)

    campaign: Mapped[Campaign] = relationship(back_populates="items")
    document: Mapped[Document] = relationship()
    versions: Mapped[list[ItemVersion]] = relationship(back_populates="item", cascade="all, delete-orphan",
                                                       order_by="ItemVersion.slot")
    assignments: Mapped[list[Assignment]] = relationship(back_populates="item", cascade="all, delete-orphan",
                                                         order_by="Assignment.id")

    @property
    def num_segments(self) -> int:
        return self.seg_end - self.seg_start

    @property
    def version(self) -> CampaignVersion:
        """The item's only (or first) version: what single-version protocols evaluate."""
        return self.versions[0].version

    @property
    def submission_id(self) -> int | None:
        return self.versions[0].version.submission_id if self.versions else None


class ItemVersion(Base):
    """Version ``slot`` (1, 2, ...) of an item; annotators see "Translation <slot>" at most."""

    __tablename__ = "campaign_item_versions"
    __table_args__ = (UniqueConstraint("item_id", "slot", name="uq_campaign_item_versions_slot"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("campaign_items.id", ondelete="CASCADE"))
    slot: Mapped[int] = mapped_column(Integer, default=1)
    version_id: Mapped[int] = mapped_column(ForeignKey("campaign_versions.id", ondelete="CASCADE"), index=True)

    item: Mapped[Item] = relationship(back_populates="versions")
    version: Mapped[CampaignVersion] = relationship(lazy="joined")


class Assignment(Base):
    """An item given to one annotator: what the annotator calls "item N"."""

    __tablename__ = "campaign_assignments"
    __table_args__ = (
        CheckConstraint(_in("state", ASSIGNMENT_STATES), name="state"),
        CheckConstraint("stage >= 0", name="stage"),
        UniqueConstraint("item_id", "annotator_id", name="uq_campaign_assignments_item_annotator"),
        UniqueConstraint("annotator_id", "number", name="uq_campaign_assignments_annotator_number"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    public_id: Mapped[str] = mapped_column(String(24), unique=True, default=lambda: secrets.token_urlsafe(12))
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("campaign_items.id", ondelete="CASCADE"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("campaign_annotators.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)        # 1, 2, ... per annotator
    state: Mapped[str] = mapped_column(String(20), default="pending")
    # Stages: 0, 1, ...; a stage may open only at ``opens_at`` (a time lock, server clock).
    stage: Mapped[int] = mapped_column(Integer, default=0)
    opens_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # What the protocol decided for this annotator at the start (version order, chunk orders, ...).
    plan: Mapped[dict] = mapped_column(JSON, default=dict)
    cursor: Mapped[int] = mapped_column(Integer, default=0)      # the segment being read (0-based in the item)
    furthest: Mapped[int] = mapped_column(Integer, default=-1)   # the furthest segment reached
    times: Mapped[dict] = mapped_column(JSON, default=dict)      # {"<segment or part>": milliseconds}
    time_ms: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_active_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    item: Mapped[Item] = relationship(back_populates="assignments")
    annotator: Mapped[CampaignAnnotator] = relationship(back_populates="assignments")
    responses: Mapped[list[Response]] = relationship(back_populates="assignment", cascade="all, delete-orphan",
                                                     order_by="Response.id")

    @property
    def finished(self) -> bool:
        return self.state == "finished"


class Response(Base):
    """One answer of an annotator (a questionnaire, a chunk judgment, a highlight, a rubric score).

    Keyed by a client UUID per assignment and carrying a revision, so that a retried or
    replayed save is a no-op. Deleting keeps a tombstone (``deleted``) with its revision.
    ``kind`` and ``key`` say what it answers (e.g. "chunk", "3"); ``data`` is checked
    by the campaign's protocol before it is stored.
    """

    __tablename__ = "campaign_responses"
    __table_args__ = (
        UniqueConstraint("assignment_id", "uuid", name="uq_campaign_responses_assignment_uuid"),
        Index("ix_campaign_responses_assignment_kind", "assignment_id", "kind"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("campaign_assignments.id", ondelete="CASCADE"))
    uuid: Mapped[str] = mapped_column(String(36))
    rev: Mapped[int] = mapped_column(Integer, default=1)
    stage: Mapped[int] = mapped_column(Integer, default=0)
    kind: Mapped[str] = mapped_column(String(30))
    key: Mapped[str] = mapped_column(String(100), default="")
    data: Mapped[dict] = mapped_column(JSON, default=dict)
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    assignment: Mapped[Assignment] = relationship(back_populates="responses")

    def to_json(self) -> dict:
        return {"uuid": self.uuid, "rev": self.rev, "stage": self.stage, "kind": self.kind, "key": self.key,
                "data": self.data, "deleted": self.deleted}
