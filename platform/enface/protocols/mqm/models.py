"""MQM's own tables: the marks (error spans) and the attention checks of assignments."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, CheckConstraint, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, backref, mapped_column, relationship

from enface.campaigns.models import Assignment
from enface.models import Base, UTCDateTime, utcnow

SIDES = ("target", "source")


class Mark(Base):
    """One error span (or a whole-segment Non-translation) marked by an annotator.

    Keyed by a client UUID per assignment with a revision, like the core's responses.
    Deleting keeps a tombstone (``deleted``) with its revision, so that a late retry
    of an older write cannot bring the mark back; a newer revision can (undo).
    """

    __tablename__ = "mqm_marks"
    __table_args__ = (
        UniqueConstraint("assignment_id", "uuid", name="uq_mqm_marks_assignment_uuid"),
        CheckConstraint("side IN ('target', 'source')", name="side"),
        CheckConstraint("start_pos >= 0 AND end_pos > start_pos", name="span"),
        Index("ix_mqm_marks_assignment_seg", "assignment_id", "seg"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("campaign_assignments.id", ondelete="CASCADE"))
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

    # The core's Assignment knows nothing of marks: the relationship is declared from here.
    assignment: Mapped[Assignment] = relationship(
        backref=backref("marks", cascade="all, delete-orphan", order_by="Mark.id"))

    def to_json(self) -> dict:
        return {"uuid": self.uuid, "rev": self.rev, "seg": self.seg, "side": self.side, "start": self.start_pos,
                "end": self.end_pos, "text": self.text, "category": self.category,
                "subcategory": self.subcategory, "severity": self.severity, "note": self.note,
                "deleted": self.deleted}


class AttentionCheck(Base):
    """The attention check of one assignment: the corrupted target of one segment, and whether it was found."""

    __tablename__ = "mqm_attention_checks"
    __table_args__ = (
        CheckConstraint("result IS NULL OR result IN ('found', 'missed')", name="result"),
        CheckConstraint("start_pos >= 0 AND end_pos > start_pos", name="span"),
    )

    assignment_id: Mapped[int] = mapped_column(ForeignKey("campaign_assignments.id", ondelete="CASCADE"),
                                               primary_key=True)
    seg: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(10))
    text: Mapped[str] = mapped_column(Text)
    start_pos: Mapped[int] = mapped_column(Integer)
    end_pos: Mapped[int] = mapped_column(Integer)
    result: Mapped[str | None] = mapped_column(String(10))

    assignment: Mapped[Assignment] = relationship(
        backref=backref("attention", uselist=False, cascade="all, delete-orphan"))
