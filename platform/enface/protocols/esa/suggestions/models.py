"""ESA^AI's tables: a campaign's suggestion source, and the spans it suggested per segment and system.

:class:`Suggester` is one campaign's source: ``llm`` (an OpenAI-compatible endpoint with the
judges' settings: its key as an allowed environment variable's name or a Fernet token, never
shown again) or ``file`` (an uploaded JSON Lines file, checked line by line). Its run state
mirrors a judge's (:mod:`enface.judges.running`): queued, running with a heartbeat, done, failed.

:class:`Suggestion` is what the source said of one segment of one campaign version: the spans
(ends inclusive, as :class:`humaneval.esa.appraise.ErrorSpan`; ``[missing]`` has no offsets), its
own 0-100 score, and for an LLM the transcript, tokens and cost. The unique (suggester, version,
document, position) row is also the LLM run's claim, so a run that dies is resumed, never repeated.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ....campaigns.models import Campaign
from ....models import Base, UTCDateTime, utcnow

SOURCES = ("llm", "file")
STATES = ("idle", "queued", "running", "done", "failed")
SEGMENT_STATES = ("running", "ok", "failed")


class Suggester(Base):
    __tablename__ = "esa_suggesters"
    __table_args__ = (
        CheckConstraint("source IN ('llm', 'file')", name="source"),
        CheckConstraint("state IN ('idle', 'queued', 'running', 'done', 'failed')", name="state"),
        CheckConstraint("concurrency >= 1", name="limits"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), unique=True)
    source: Mapped[str] = mapped_column(String(10))
    name: Mapped[str] = mapped_column(String(200), default="")
    # the LLM's endpoint, as a judge's (enface.judges.setup checks them)
    base_url: Mapped[str] = mapped_column(String(500), default="")
    model: Mapped[str] = mapped_column(String(200), default="")
    api_key_env: Mapped[str | None] = mapped_column(String(100))
    api_key_encrypted: Mapped[bytes | None] = mapped_column(LargeBinary)
    temperature: Mapped[float] = mapped_column(Float, default=0.0)
    concurrency: Mapped[int] = mapped_column(Integer, default=4)
    requests_per_minute: Mapped[float | None] = mapped_column(Float)
    timeout: Mapped[float] = mapped_column(Float, default=120.0)
    price_prompt_per_1k: Mapped[float] = mapped_column(Float, default=0.0)
    price_completion_per_1k: Mapped[float] = mapped_column(Float, default=0.0)
    prompts_dir: Mapped[str | None] = mapped_column(String(500))
    demo: Mapped[bool] = mapped_column(Boolean, default=False)
    # the uploaded file's name (source "file")
    filename: Mapped[str | None] = mapped_column(String(255))
    # the budget filter: leave out items the suggester found flawless and scored at least this (None: off)
    skip_threshold: Mapped[float | None] = mapped_column(Float)
    state: Mapped[str] = mapped_column(String(20), default="idle")
    message: Mapped[str] = mapped_column(Text, default="")
    run_token: Mapped[str | None] = mapped_column(String(32))
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    campaign: Mapped[Campaign] = relationship()

    @property
    def key_source(self) -> str:
        """Where the key comes from, for the organizer's pages (never the key itself)."""
        if self.api_key_encrypted:
            return "stored secret (encrypted)"
        return f"environment variable {self.api_key_env}" if self.api_key_env else "none"


class Suggestion(Base):
    """The suggested spans of one segment of one campaign version (and, for an LLM, how they came)."""

    __tablename__ = "esa_suggestions"
    __table_args__ = (
        UniqueConstraint("suggester_id", "version_id", "document_id", "position", name="uq_esa_suggestions_segment"),
        CheckConstraint("state IN ('running', 'ok', 'failed')", name="state"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    suggester_id: Mapped[int] = mapped_column(ForeignKey("esa_suggesters.id", ondelete="CASCADE"), index=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("campaign_versions.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)      # 0-based segment of the document
    state: Mapped[str] = mapped_column(String(10), default="running")
    run_token: Mapped[str | None] = mapped_column(String(32))
    spans: Mapped[list | None] = mapped_column(JSON)    # [{"start", "end", "severity"}] ends inclusive; missing: None
    score: Mapped[float | None] = mapped_column(Float)
    error: Mapped[str | None] = mapped_column(Text)
    transcript: Mapped[dict | None] = mapped_column(JSON)
    calls: Mapped[int] = mapped_column(Integer, default=0)
    retried_calls: Mapped[int] = mapped_column(Integer, default=0)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[float] = mapped_column(Float, default=0.0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    suggester: Mapped[Suggester] = relationship()
