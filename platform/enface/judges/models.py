"""LLM judges of a campaign and what each judged: settings, progress, transcripts, tokens, cost.

A judge is a machine annotator: its own :class:`~enface.models.User` (inactive,
no password: it can never log in) joins the campaign as a
:class:`~enface.campaigns.models.CampaignAnnotator`, and each item it scores
becomes a finished assignment holding a core response, exactly like a human
rater's. So results tables, exports and agreement treat it as a rater.

:class:`JudgeItem` is the judge's own record of each item: the scores, the
debate, every call's messages in and out, tokens and cost. Its unique
(judge, item, key) row is the claim that makes a run resumable: an item with
a finished row is never judged again, and a run that dies leaves at most its
in-flight claims, which the next run takes over.
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

from enface.campaigns.models import Campaign, CampaignAnnotator
from enface.models import Base, User, UTCDateTime, utcnow

JUDGE_MODES = ("single", "debate")
JUDGE_STATES = ("idle", "queued", "running", "done", "failed")
JUDGE_ITEM_STATES = ("running", "ok", "failed")


class Judge(Base):
    __tablename__ = "judges"
    __table_args__ = (
        CheckConstraint("mode IN ('single', 'debate')", name="mode"),
        CheckConstraint("state IN ('idle', 'queued', 'running', 'done', 'failed')", name="state"),
        CheckConstraint("max_rounds >= 1 AND concurrency >= 1", name="limits"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    annotator_id: Mapped[int | None] = mapped_column(ForeignKey("campaign_annotators.id", ondelete="SET NULL"))
    name: Mapped[str] = mapped_column(String(100))
    base_url: Mapped[str] = mapped_column(String(500))
    model: Mapped[str] = mapped_column(String(200))
    mode: Mapped[str] = mapped_column(String(10), default="debate")
    # The key: the name of an environment variable of the worker, or a Fernet token (never shown again).
    api_key_env: Mapped[str | None] = mapped_column(String(100))
    api_key_encrypted: Mapped[bytes | None] = mapped_column(LargeBinary)
    temperature: Mapped[float] = mapped_column(Float, default=0.0)
    max_rounds: Mapped[int] = mapped_column(Integer, default=4)
    concurrency: Mapped[int] = mapped_column(Integer, default=4)
    requests_per_minute: Mapped[float | None] = mapped_column(Float)
    timeout: Mapped[float] = mapped_column(Float, default=120.0)
    price_prompt_per_1k: Mapped[float] = mapped_column(Float, default=0.0)
    price_completion_per_1k: Mapped[float] = mapped_column(Float, default=0.0)
    prompts_dir: Mapped[str | None] = mapped_column(String(500))   # a folder of templates on the worker host
    demo: Mapped[bool] = mapped_column(Boolean, default=False)     # talks to the demo's scripted endpoint
    state: Mapped[str] = mapped_column(String(20), default="idle")
    message: Mapped[str] = mapped_column(Text, default="")         # why the last run stopped, if it failed
    run_token: Mapped[str | None] = mapped_column(String(32))      # the run holding the claims
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    campaign: Mapped[Campaign] = relationship()
    user: Mapped[User] = relationship()
    annotator: Mapped[CampaignAnnotator | None] = relationship()

    @property
    def key_source(self) -> str:
        """Where the key comes from, for the organizer's pages (never the key itself)."""
        if self.api_key_encrypted:
            return "stored secret (encrypted)"
        return f"environment variable {self.api_key_env}" if self.api_key_env else "none"


class JudgeItem(Base):
    """One item (and response key) a judge scored, or is scoring: the claim, the result, the transcript."""

    __tablename__ = "judge_items"
    __table_args__ = (
        UniqueConstraint("judge_id", "item_id", "key", name="uq_judge_items_judge_item_key"),
        CheckConstraint("state IN ('running', 'ok', 'failed')", name="state"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    judge_id: Mapped[int] = mapped_column(ForeignKey("judges.id", ondelete="CASCADE"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("campaign_items.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(100), default="")
    state: Mapped[str] = mapped_column(String(10), default="running")
    run_token: Mapped[str] = mapped_column(String(32))
    scores: Mapped[dict | None] = mapped_column(JSON)
    rounds: Mapped[int] = mapped_column(Integer, default=0)
    consensus: Mapped[bool] = mapped_column(Boolean, default=False)
    error: Mapped[str | None] = mapped_column(Text)
    transcript: Mapped[dict | None] = mapped_column(JSON)
    calls: Mapped[int] = mapped_column(Integer, default=0)
    retried_calls: Mapped[int] = mapped_column(Integer, default=0)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[float] = mapped_column(Float, default=0.0)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    claimed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    judge: Mapped[Judge] = relationship()
