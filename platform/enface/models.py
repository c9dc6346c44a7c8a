"""SQLAlchemy 2.x typed models. The schema is created only by the Alembic migrations in ``migrations/``.

The rules that concurrent requests must not break live in the schema:

* ``uq_submission_slot``: a team holds at most one primary (slot 1) and two
  contrastive (slots 1 and 2) submissions per test set. A submission that
  stops counting (withdrawn, invalid, failed) gives its slot back by setting
  it to NULL; NULLs never collide in a unique constraint (SQLite and PostgreSQL).
* ``quota_usage``: per team, test set and period (a UTC day, or ``total``), a
  counter raised only by a conditional ``UPDATE ... WHERE used < limit``.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timezone

from flask_login import UserMixin
from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from werkzeug.security import check_password_hash, generate_password_hash

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ROLES = ("participant", "annotator", "organizer", "admin")
#: The e-mail domain of account-free links' machine accounts (enface.crowd); ``.invalid`` reaches no mailbox,
#: and nobody registers an address under it (such an account would be fenced in as a link's).
LINK_ACCOUNT_DOMAIN = "links.enface.invalid"
LABELS = ("primary", "contrastive", "baseline")
STATES = ("received", "validating", "invalid", "valid", "scoring", "scored", "failed")
PENDING_STATES = ("received", "validating", "valid", "scoring")
#: States that give the slot and the quota back.
RELEASING_STATES = ("invalid", "failed")


def hash_secret(secret: str) -> str:
    """How bearer secrets (API tokens, invite links) are stored: SHA-256, never the secret itself."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def password_method() -> str:
    """werkzeug's default (scrypt) unless the app configures PASSWORD_HASH_METHOD (tests use a fast one)."""
    from flask import current_app, has_app_context

    if has_app_context() and current_app.config.get("PASSWORD_HASH_METHOD"):
        return current_app.config["PASSWORD_HASH_METHOD"]
    return "scrypt"


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: use enface.models.utcnow()")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


# --------------------------------------------------------------------------- people


class Team(Base):
    __tablename__ = "teams"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    invite_code: Mapped[str] = mapped_column(String(64), unique=True)
    affiliation: Mapped[str] = mapped_column(String(200), default="")
    verified: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    members: Mapped[list[User]] = relationship(back_populates="team", order_by="User.id")

    @staticmethod
    def new_invite_code() -> str:
        return secrets.token_urlsafe(12)


class User(UserMixin, Base):
    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint(f"role IN ({', '.join(repr(r) for r in ROLES)})", name="role"),
        CheckConstraint("team_role IS NULL OR team_role IN ('captain', 'member')", name="team_role"),
        CheckConstraint("(team_id IS NULL) = (team_role IS NULL)", name="team_role_with_team"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(100), default="")
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(20), default="participant")
    team_id: Mapped[int | None] = mapped_column(ForeignKey("teams.id", ondelete="SET NULL"), index=True)
    team_role: Mapped[str | None] = mapped_column(String(20))
    # Part of the login cookie: changing it (password change, reset) logs out every other session.
    session_nonce: Mapped[str] = mapped_column(String(32), default=lambda: secrets.token_hex(8))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    team: Mapped[Team | None] = relationship(back_populates="members")
    tokens: Mapped[list[ApiToken]] = relationship(back_populates="user", order_by="ApiToken.id")

    def set_password(self, password: str) -> None:
        self.password_hash = generate_password_hash(password, method=password_method())
        self.session_nonce = secrets.token_hex(8)

    def check_password(self, password: str) -> bool:
        return bool(self.password_hash) and check_password_hash(self.password_hash, password)

    def get_id(self) -> str:   # Flask-Login
        return f"{self.id}.{self.session_nonce}"

    @property
    def is_active(self) -> bool:   # Flask-Login
        return self.active

    @property
    def is_organizer(self) -> bool:
        return self.role in ("organizer", "admin")

    @property
    def is_annotator_only(self) -> bool:
        """An account that only annotates (role annotator, no team): it lands on its items and sees only them."""
        return self.role == "annotator" and self.team_id is None

    @property
    def display_name(self) -> str:
        return self.name or self.email


class ApiToken(Base):
    """An API token; only its SHA-256 is stored. The secret is shown once, when created."""

    __tablename__ = "api_tokens"
    PREFIX = "enf_"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(16))   # the first characters, to tell tokens apart
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    user: Mapped[User] = relationship(back_populates="tokens")

    hash = staticmethod(hash_secret)

    @classmethod
    def issue(cls, user: User, name: str = "") -> tuple[ApiToken, str]:
        secret = cls.PREFIX + secrets.token_urlsafe(32)
        return cls(user=user, name=name, token_hash=cls.hash(secret), hint=secret[:10]), secret

    @property
    def active(self) -> bool:
        return self.revoked_at is None


# --------------------------------------------------------------------------- tasks and test sets


class Task(Base):
    __tablename__ = "tasks"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    testsets: Mapped[list[TestSet]] = relationship(back_populates="task", order_by="TestSet.id")


class TestSet(Base):
    __tablename__ = "testsets"
    __table_args__ = (
        UniqueConstraint("task_id", "name", name="uq_testsets_task_name"),
        CheckConstraint("quota_per_day IS NULL OR quota_per_day >= 0", name="quota_per_day"),
        CheckConstraint("quota_total IS NULL OR quota_total >= 0", name="quota_total"),
    )
    __test__ = False

    id: Mapped[int] = mapped_column(primary_key=True)
    task_id: Mapped[int] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    src_lang: Mapped[str] = mapped_column(String(20))
    tgt_lang: Mapped[str] = mapped_column(String(20))
    description: Mapped[str] = mapped_column(Text, default="")
    meta: Mapped[dict] = mapped_column(JSON, default=dict)
    num_documents: Mapped[int] = mapped_column(Integer, default=0)
    num_segments: Mapped[int] = mapped_column(Integer, default=0)
    num_refs: Mapped[int] = mapped_column(Integer, default=0)
    fingerprint: Mapped[str] = mapped_column(String(64), default="")
    # The submission window: open from opens_at until deadline (None: no deadline yet). opens_at None:
    # closed, not scheduled yet (how an imported test set starts: an organizer opens it).
    opens_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    deadline: Mapped[datetime | None] = mapped_column(UTCDateTime)
    quota_per_day: Mapped[int | None] = mapped_column(Integer)    # None: no limit
    quota_total: Mapped[int | None] = mapped_column(Integer)
    document_level_allowed: Mapped[bool] = mapped_column(Boolean, default=False)
    released: Mapped[bool] = mapped_column(Boolean, default=False)
    released_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    references_public: Mapped[bool] = mapped_column(Boolean, default=False)
    # The leaderboard frozen at the deadline: the automatic standings as of then, what the public sees.
    frozen_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    frozen_board: Mapped[dict | None] = mapped_column(JSON)
    # The licence terms of the data release, as the organizer typed them (the bundle's README quotes them).
    licence: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Raised whenever a score or a leaderboard row changes; the leaderboard cache is keyed by it.
    scores_version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    task: Mapped[Task] = relationship(back_populates="testsets")
    documents: Mapped[list[Document]] = relationship(back_populates="testset", order_by="Document.position",
                                                     cascade="all, delete-orphan")

    @property
    def title(self) -> str:
        return f"{self.task.name}: {self.name}"

    def is_open(self, now: datetime | None = None) -> bool:
        now = now or utcnow()
        if self.opens_at is None or now < self.opens_at:
            return False
        return self.deadline is None or now < self.deadline

    def closed_because(self, now: datetime | None = None) -> str | None:
        """Why submissions are closed, in a few words for the pages; None while open."""
        now = now or utcnow()
        if self.is_open(now):
            return None
        if self.opens_at is None:
            return "not open yet"
        if now < self.opens_at:
            return f"opens {self.opens_at:%Y-%m-%d %H:%M} UTC"
        return "the deadline has passed"


class Document(Base):
    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("testset_id", "name", name="uq_documents_testset_name"),
                      UniqueConstraint("testset_id", "position", name="uq_documents_testset_position"))

    id: Mapped[int] = mapped_column(primary_key=True)
    testset_id: Mapped[int] = mapped_column(ForeignKey("testsets.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(255))
    num_segments: Mapped[int] = mapped_column(Integer, default=0)

    testset: Mapped[TestSet] = relationship(back_populates="documents")


class Segment(Base):
    __tablename__ = "segments"
    __table_args__ = (UniqueConstraint("document_id", "position", name="uq_segments_document_position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)     # 0-based line in the document
    source: Mapped[str] = mapped_column(Text)
    ref1: Mapped[str | None] = mapped_column(Text)
    ref2: Mapped[str | None] = mapped_column(Text)     # "" is a null alignment
    more_refs: Mapped[list | None] = mapped_column(JSON)   # references 3 and up, if any


class Phenomenon(Base):
    """A segment tagged with a rubric dimension and what to check (``phenomena.jsonl`` of a test set)."""

    __tablename__ = "testset_phenomena"
    __table_args__ = (UniqueConstraint("document_id", "position", "dimension", name="uq_testset_phenomena_segment"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    testset_id: Mapped[int] = mapped_column(ForeignKey("testsets.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)     # 0-based, like Segment.position (the file says 1-based)
    dimension: Mapped[str] = mapped_column(String(40))
    requirement: Mapped[str] = mapped_column(Text)
    context: Mapped[str] = mapped_column(Text, default="")
    line: Mapped[int] = mapped_column(Integer, default=0)   # where it was in phenomena.jsonl

    document: Mapped[Document] = relationship()


# --------------------------------------------------------------------------- submissions


class Submission(Base):
    __tablename__ = "submissions"
    __table_args__ = (
        CheckConstraint(f"label IN ({', '.join(repr(x) for x in LABELS)})", name="label"),
        CheckConstraint(f"state IN ({', '.join(repr(x) for x in STATES)})", name="state"),
        CheckConstraint("slot IS NULL OR slot IN (1, 2)", name="slot_range"),
        CheckConstraint("label <> 'primary' OR slot IS NULL OR slot = 1", name="primary_slot"),
        CheckConstraint("label <> 'baseline' OR slot IS NULL", name="baseline_slot"),
        CheckConstraint("label = 'baseline' OR team_id IS NOT NULL", name="team_unless_baseline"),
        # The WMT rule, held by the database: one primary, two contrastive per team and test set.
        UniqueConstraint("team_id", "testset_id", "label", "slot", name="uq_submission_slot"),
        Index("ix_submissions_testset_state", "testset_id", "state"),
        Index("ix_submissions_state_heartbeat", "state", "heartbeat_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    testset_id: Mapped[int] = mapped_column(ForeignKey("testsets.id", ondelete="CASCADE"))
    team_id: Mapped[int | None] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    label: Mapped[str] = mapped_column(String(20))
    slot: Mapped[int | None] = mapped_column(Integer)
    constrained: Mapped[bool] = mapped_column(Boolean, default=True)
    system_name: Mapped[str] = mapped_column(String(100))
    description: Mapped[str] = mapped_column(Text, default="")
    state: Mapped[str] = mapped_column(String(20), default="received")
    state_changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    heartbeat_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    job: Mapped[str | None] = mapped_column(String(20))          # validate | score | gpu: what the sweeper requeues
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    document_level: Mapped[bool] = mapped_column(Boolean, default=False)
    report: Mapped[dict | None] = mapped_column(JSON)
    upload_kind: Mapped[str] = mapped_column(String(10), default="files")   # files | zip
    upload_size: Mapped[int] = mapped_column(Integer, default=0)
    quota_day: Mapped[str | None] = mapped_column(String(10))   # the UTC day it counts against; None: not counted
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    withdrawn_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    testset: Mapped[TestSet] = relationship()
    team: Mapped[Team | None] = relationship()
    user: Mapped[User | None] = relationship()
    files: Mapped[list[SubmissionFile]] = relationship(order_by="SubmissionFile.position",
                                                       cascade="all, delete-orphan")
    events: Mapped[list[SubmissionEvent]] = relationship(order_by="SubmissionEvent.id",
                                                         cascade="all, delete-orphan")
    scores: Mapped[list[ScoreRow]] = relationship(cascade="all, delete-orphan", order_by="ScoreRow.id")

    @property
    def withdrawn(self) -> bool:
        return self.withdrawn_at is not None

    @property
    def pending(self) -> bool:
        return self.state in PENDING_STATES and not self.withdrawn

    @property
    def owner_name(self) -> str:
        return self.team.name if self.team is not None else "Organizers"

    @property
    def group(self) -> str:
        """The WMT leaderboard group: baseline, primary-constrained, primary-unconstrained or contrastive."""
        if self.label == "baseline":
            return "baseline"
        if self.label == "primary":
            return "primary-constrained" if self.constrained else "primary-unconstrained"
        return "contrastive"

    def corpus_scores(self) -> dict[str, ScoreRow]:
        return {s.metric: s for s in self.scores if s.scope == "corpus"}


class SubmissionFile(Base):
    """An uploaded file; its bytes are kept on disk under ``<data_dir>/uploads/<sha256>``."""

    __tablename__ = "submission_files"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    name: Mapped[str] = mapped_column(String(500))
    sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)


class SubmissionEvent(Base):
    """One transition of the state machine (or a note about it: requeued, re-score requested)."""

    __tablename__ = "submission_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    state: Mapped[str] = mapped_column(String(20))
    message: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class OutputSegment(Base):
    """The parsed output: line ``position`` of document ``document_id`` (validated, normalised)."""

    __tablename__ = "output_segments"

    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(Text)


class ScoreRow(Base):
    """A score of one metric and scope: ``corpus`` (the value), ``segment``/``document`` (values list)."""

    __tablename__ = "scores"
    __table_args__ = (UniqueConstraint("submission_id", "metric", "scope", name="uq_scores_submission_metric"),
                      CheckConstraint("scope IN ('corpus', 'document', 'segment')", name="scope"))

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    metric: Mapped[str] = mapped_column(String(20))
    scope: Mapped[str] = mapped_column(String(10), default="corpus")
    name: Mapped[str] = mapped_column(String(30))
    value: Mapped[float | None] = mapped_column(Float)
    values: Mapped[list | None] = mapped_column(JSON)
    higher_is_better: Mapped[bool] = mapped_column(Boolean, default=True)
    signature: Mapped[str | None] = mapped_column(Text)
    versions: Mapped[dict] = mapped_column(JSON, default=dict)
    reason: Mapped[str | None] = mapped_column(Text)
    details: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    @property
    def available(self) -> bool:
        return self.value is not None


class QuotaUsage(Base):
    """How many counted submissions a team has per test set and period (``YYYY-MM-DD`` or ``total``)."""

    __tablename__ = "quota_usage"
    __table_args__ = (CheckConstraint("used >= 0", name="used_nonnegative"),)

    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True)
    testset_id: Mapped[int] = mapped_column(ForeignKey("testsets.id", ondelete="CASCADE"), primary_key=True)
    period: Mapped[str] = mapped_column(String(10), primary_key=True)
    used: Mapped[int] = mapped_column(Integer, default=0)


class AutoRanking(Base):
    """The automatic metrics' significance clusters of a test set's leaderboard (all-pairs paired bootstrap).

    Computed by the ``rank`` job for one ``scores_version`` of the test set; the leaderboard
    shows it while that version is current and queues the job again when it is not.
    """

    __tablename__ = "auto_rankings"

    testset_id: Mapped[int] = mapped_column(ForeignKey("testsets.id", ondelete="CASCADE"), primary_key=True)
    scores_version: Mapped[int] = mapped_column(Integer)
    results: Mapped[dict] = mapped_column(JSON, default=dict)
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
