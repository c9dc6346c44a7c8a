"""Renaming a test set, and deleting one that nothing was submitted to yet (the web pages and the CLI)."""

from __future__ import annotations

from sqlalchemy import delete, func, select

from ..extensions import db
from ..models import Submission, TestSet
from . import ServiceError
from .accounts import check_text
from .testsets import forget_scoring_view, note_leaderboard_change


def rename_testset(ts: TestSet, name: str) -> TestSet:
    """A new name (unique within its task); the leaderboard and every page show it at once."""
    new = check_text(name, "test set name", max_len=200)
    with db.write():
        taken = db.session.scalar(select(TestSet.id).where(TestSet.task_id == ts.task_id, TestSet.name == new,
                                                           TestSet.id != ts.id))
        if taken is not None:
            raise ServiceError("testset_exists", f"task {ts.task.name!r} already has a test set called {new!r} "
                               f"(test set {taken})", 409)
        row = db.session.get(TestSet, ts.id)
        row.name = new
        row.scores_version = TestSet.scores_version + 1
        note_leaderboard_change(db.session, ts.id)
    db.session.refresh(ts)
    return ts


def deletion_refusal(ts: TestSet) -> str | None:
    """Why ``ts`` cannot be deleted (a sentence), or None. Only a test set nothing was submitted to may go
    (a withdrawn submission counts: teams were told it was received), and none with a human evaluation."""
    from ..campaigns.models import Campaign  # (the core's table: only names are read)

    submitted = db.session.scalar(select(func.count()).select_from(Submission)
                                  .where(Submission.testset_id == ts.id)) or 0
    if submitted:
        return (f"{submitted} submission{'s were' if submitted != 1 else ' was'} made to this test set: a test set "
                "can only be deleted before anything is submitted to it (close and hide it instead)")
    campaign = db.session.scalar(select(Campaign.name).where(Campaign.testset_id == ts.id).order_by(Campaign.id)
                                 .limit(1))
    if campaign is not None:
        return f"the human evaluation {campaign!r} is on this test set: delete its campaigns first"
    return None


def delete_testset(ts: TestSet) -> str:
    """Deletes the test set with its documents, segments and phenomena; returns its title. Refused (409,
    with the reason) once anything was submitted to it."""
    title = ts.title
    with db.write():   # checked in the deleting transaction: a submission arriving meanwhile is not lost
        refusal = deletion_refusal(ts)
        if refusal is not None:
            raise ServiceError("testset_in_use", refusal, 409)
        # documents, segments and phenomena go with it (ON DELETE CASCADE)
        db.session.execute(delete(TestSet).where(TestSet.id == ts.id))
        note_leaderboard_change(db.session, ts.id)
    forget_scoring_view(ts.id)
    db.session.expire_all()
    return title
