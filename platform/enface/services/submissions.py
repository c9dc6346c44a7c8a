"""Submissions: the rules (deadline, quota, one primary and two contrastive), the state machine, visibility.

Every rule that concurrent requests could race is decided by the database in
one write transaction:

* the quota by a conditional ``UPDATE quota_usage SET used = used + 1 WHERE used < limit``
  (rowcount 0: the quota is spent);
* the primary/contrastive limit by the unique constraint on (team, test set,
  label, slot): a second primary collides on slot 1, a third contrastive on
  slots 1 and 2.

A refusal rolls the whole transaction back, so nothing is half written.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app, url_for
from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from .. import job_queue
from ..extensions import db
from ..models import (
    LABELS,
    PENDING_STATES,
    RELEASING_STATES,
    QuotaUsage,
    ScoreRow,
    Submission,
    SubmissionEvent,
    SubmissionFile,
    TestSet,
    User,
    utcnow,
)
from . import Forbidden, NotFound, ServiceError
from .accounts import check_text
from .reasons import public_reason
from .testsets import bump_scores_version
from .uploads import StoredFile, UploadError, commit_file, discard, inspect_zip, is_zip_upload, zip_limits

log = logging.getLogger(__name__)

TRUE = {"1", "true", "yes", "on", "constrained", "y", "t"}
FALSE = {"0", "false", "no", "off", "unconstrained", "n", "f"}


def parse_bool(value, field: str, default: bool | None = None) -> bool:
    if value is None or (isinstance(value, str) and value.strip() == ""):
        if default is None:
            raise ServiceError("invalid_field", f"{field} is required", 400, {"field": field})
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ServiceError("invalid_field", f"{field} must be true or false", 400, {"field": field})


@dataclass
class SubmissionInput:
    label: str
    constrained: bool
    system_name: str
    description: str = ""
    #: an upload byte-identical to one of the team's live submissions: "warn" (accepted, noted in its timeline
    #: and in ``Submission.duplicate_of``; the API) or "refuse" (the web form, until the user confirms it)
    on_duplicate: str = "warn"


def check_input(user: User, label: str, constrained, system_name: str, description: str, *,
                on_duplicate: str = "warn") -> SubmissionInput:
    label = (label or "").strip().lower()
    if label not in LABELS:
        raise ServiceError("invalid_field", f"label must be one of {', '.join(LABELS)}", 400, {"field": "label"})
    if label == "baseline" and not user.is_organizer:
        raise ServiceError("invalid_field", "only organizers submit baselines; use primary or contrastive", 403,
                           {"field": "label"})
    return SubmissionInput(
        label=label,
        constrained=parse_bool(constrained, "constrained", default=True),
        system_name=check_text(system_name, "system name", max_len=100),
        description=check_text(description, "description", max_len=2000, required=False, multiline=True),
        on_duplicate=on_duplicate,
    )


# --------------------------------------------------------------------------- visibility

#: An e-mail address in a stored message (events written before the timeline named teams).
_EMAIL = re.compile(r"[^\s@()<>\[\],;:\"']+@[^\s@()<>\[\],;:\"']+")


def actor(user: User) -> str:
    """Who did something, as a submission's public timeline may say it: the team, never an e-mail address."""
    return f"team {user.team.name}" if user.team is not None else "an organizer"


def public_message(message: str) -> str:
    """A timeline message as everyone may read it: e-mail addresses (of older events) masked."""
    return _EMAIL.sub("(a team member)", message)

def can_view(user: User | None, sub: Submission) -> bool:
    if user is not None and user.is_authenticated:
        if user.is_organizer:
            return True
        if sub.team_id is not None and user.team_id == sub.team_id:
            return True
    # After release, scored systems on the leaderboard are public; so is a system withdrawn after the
    # freeze while the frozen standings (the record the public board shows) still hold it.
    return sub.testset.released and sub.state == "scored" and (
        (not sub.withdrawn and (sub.slot is not None or sub.label == "baseline")) or in_frozen_board(sub))


def in_frozen_board(sub: Submission) -> bool:
    """Whether the test set's frozen standings (:mod:`~enface.services.freeze`) hold ``sub``."""
    board = sub.testset.frozen_board if sub.testset.frozen_at is not None else None
    return bool(board) and any(r.get("submission_id") == sub.id for r in board.get("rows", []))


def can_manage(user: User | None, sub: Submission) -> bool:
    """Withdraw or make primary: a member of the owning team (organizers for baselines)."""
    if user is None or not user.is_authenticated:
        return False
    if sub.team_id is not None and user.team_id == sub.team_id:
        return True
    return sub.label == "baseline" and user.is_organizer


def get_visible(user: User | None, submission_id: int) -> Submission:
    sub = db.session.get(Submission, submission_id)
    # Another team's submission looks exactly like a missing one: its existence is not disclosed.
    if sub is None or not can_view(user, sub):
        raise NotFound("submission")
    return sub


def team_submissions(user: User, testset_id: int | None = None) -> list[Submission]:
    if user.team_id is None and not user.is_organizer:
        return []
    # submission_dict reads files, events and the team of every row: loaded in one query each, not one per row.
    q = select(Submission).options(selectinload(Submission.scores), selectinload(Submission.testset),
                                   selectinload(Submission.files), selectinload(Submission.events),
                                   selectinload(Submission.team))
    if user.team_id is not None:
        q = q.where((Submission.team_id == user.team_id) | ((Submission.user_id == user.id)
                                                            & (Submission.label == "baseline")))
    else:
        q = q.where(Submission.user_id == user.id)
    if testset_id is not None:
        q = q.where(Submission.testset_id == testset_id)
    return list(db.session.scalars(q.order_by(Submission.id.desc())))


# --------------------------------------------------------------------------- creating


def _quota_periods(now: datetime) -> tuple[str, str]:
    return now.strftime("%Y-%m-%d"), "total"


def _ensure_quota_rows(session: Session, team_id: int, testset_id: int, periods) -> None:
    dialect = session.get_bind().dialect.name
    rows = [{"team_id": team_id, "testset_id": testset_id, "period": p, "used": 0} for p in periods]
    if dialect == "postgresql":
        stmt = postgresql.insert(QuotaUsage).values(rows).on_conflict_do_nothing()
    elif dialect == "sqlite":
        stmt = sqlite.insert(QuotaUsage).values(rows).on_conflict_do_nothing()
    else:  # pragma: no cover - other databases: insert what is missing
        existing = set(session.scalars(select(QuotaUsage.period).where(QuotaUsage.team_id == team_id,
                                                                        QuotaUsage.testset_id == testset_id)))
        rows = [r for r in rows if r["period"] not in existing]
        stmt = insert(QuotaUsage).values(rows) if rows else None
    if stmt is not None:
        session.execute(stmt)


def _take_quota(session: Session, ts: TestSet, team_id: int, now: datetime) -> str:
    day, total = _quota_periods(now)
    _ensure_quota_rows(session, team_id, ts.id, (day, total))
    for period, limit, what in ((total, ts.quota_total, "total"), (day, ts.quota_per_day, "daily")):
        stmt = (update(QuotaUsage)
                .where(QuotaUsage.team_id == team_id, QuotaUsage.testset_id == ts.id, QuotaUsage.period == period)
                .values(used=QuotaUsage.used + 1))
        if limit is not None:
            stmt = stmt.where(QuotaUsage.used < limit)
        if session.execute(stmt).rowcount != 1:
            when = "" if what == "total" else " today (the count restarts at 00:00 UTC)"
            raise ServiceError("quota_exceeded", f"your team has used its {what} quota of {limit} submission"
                               f"{'s' if limit != 1 else ''} for this test set{when}; withdrawn, invalid and failed "
                               "submissions do not count", 429, {"quota": what, "limit": limit})
    return day


def _give_back(session: Session, sub: Submission) -> None:
    """The submission stops counting: free its slot and return its quota (idempotent)."""
    row = session.execute(select(Submission.quota_day, Submission.team_id).where(Submission.id == sub.id)
                          .with_for_update()).one()
    if row.quota_day is not None and row.team_id is not None:
        for period in (row.quota_day, "total"):
            session.execute(update(QuotaUsage)
                            .where(QuotaUsage.team_id == row.team_id, QuotaUsage.testset_id == sub.testset_id,
                                   QuotaUsage.period == period, QuotaUsage.used > 0)
                            .values(used=QuotaUsage.used - 1))
    session.execute(update(Submission).where(Submission.id == sub.id).values(slot=None, quota_day=None))


def _primary_refusal(session: Session, ts: TestSet, team_id: int) -> ServiceError:
    existing = session.scalar(select(Submission).where(Submission.team_id == team_id,
                                                       Submission.testset_id == ts.id,
                                                       Submission.label == "primary",
                                                       Submission.slot.is_not(None)))
    which = f" (#{existing.id} {existing.system_name!r})" if existing else ""
    return ServiceError(
        "primary_exists",
        f"your team already has a primary submission for this test set{which}. Each team has one primary and "
        "at most two contrastive systems. To switch: submit this output as contrastive, then choose "
        "\"Make primary\" on it in My submissions (API: POST /api/v1/submissions/<id>/primary); or withdraw "
        "the current primary first.", 409, {"primary": existing.id if existing else None})


def _take_slot(session: Session, label: str, take: Callable[[int], None]) -> bool:
    """Try the label's slots in order, each in a savepoint; the unique constraint settles races. False: all taken."""
    for slot in (1,) if label == "primary" else (1, 2):
        try:
            with session.begin_nested():
                take(slot)
            return True
        except IntegrityError:
            continue
    return False


def _insert_with_slot(session: Session, sub: Submission, ts: TestSet) -> None:
    if sub.label == "baseline":
        sub.slot = None
        session.add(sub)
        session.flush()
        return

    def insert_in(slot: int) -> None:
        if sub in session:   # left over from a slot that collided
            session.expunge(sub)
        sub.slot = slot
        session.add(sub)
        session.flush()

    if _take_slot(session, sub.label, insert_in):
        return
    if sub.label == "primary":
        raise _primary_refusal(session, ts, sub.team_id)
    raise ServiceError("contrastive_limit", "your team already has two contrastive submissions for this test set "
                       "(the limit, with one primary); withdraw one of them first", 409)


def create_submission(user: User, ts: TestSet, data: SubmissionInput, files: list[StoredFile]) -> Submission:
    """Record an upload: rules checked and the slot and quota taken in one transaction, then queue validation.

    ``files`` are uploads already streamed to temporary files; they are moved
    into ``uploads/<sha256>`` only once the submission is committed, and
    deleted if it is refused.
    """
    try:
        return _create(user, ts, data, files)
    finally:
        discard(files)   # whatever was not moved into place


def identical_submission(session: Session, team_id: int, testset_id: int, digests: list[str]) -> Submission | None:
    """The team's latest submission (not withdrawn) on the test set whose files have exactly these
    SHA-256 digests, in order; None when there is none."""
    candidates = session.execute(
        select(SubmissionFile.submission_id, SubmissionFile.sha256)
        .join(Submission, Submission.id == SubmissionFile.submission_id)
        .where(Submission.team_id == team_id, Submission.testset_id == testset_id,
               Submission.withdrawn_at.is_(None))
        .order_by(SubmissionFile.submission_id.desc(), SubmissionFile.position)).all()
    by_submission: dict[int, list[str]] = {}
    for sub_id, digest in candidates:
        by_submission.setdefault(sub_id, []).append(digest)
    for sub_id, known in by_submission.items():   # newest first
        if known == digests:
            return session.get(Submission, sub_id)
    return None


def _create(user: User, ts: TestSet, data: SubmissionInput, files: list[StoredFile]) -> Submission:
    if not files:
        raise ServiceError("no_files", "upload at least one file: one <document>.txt per document, a zip of "
                           "them, or one file with every segment", 400, {"field": "files"})
    if len(files) > current_app.config["MAX_UPLOAD_FILES"]:
        raise ServiceError("too_many_files", f"at most {current_app.config['MAX_UPLOAD_FILES']} files", 400)
    kind = "files"
    if len(files) == 1 and is_zip_upload(files[0].name):
        kind = "zip"
        try:
            inspect_zip(files[0].temp_path, **zip_limits())
        except UploadError as exc:
            raise ServiceError(exc.code, exc.message, exc.status, exc.details) from None
    team_id = user.team_id
    if data.label != "baseline" and team_id is None:
        raise ServiceError("no_team", "create or join a team before submitting", 403)
    now = utcnow()
    session = db.session
    with db.write():
        ts = session.get(TestSet, ts.id, populate_existing=True)   # the settings as of this transaction
        if not user.is_organizer:
            if ts.opens_at is None:
                raise ServiceError("not_open", "submissions for this test set are not open yet: the organizers "
                                   "have not set when they open", 403)
            if now < ts.opens_at:
                raise ServiceError("not_open", f"submissions open at {ts.opens_at:%Y-%m-%d %H:%M} UTC", 403)
            if ts.deadline is not None and now >= ts.deadline:
                raise ServiceError("deadline_passed", f"the deadline ({ts.deadline:%Y-%m-%d %H:%M} UTC) has "
                                   "passed; no more submissions for this test set", 403)
        earlier = None
        if team_id is not None:
            earlier = identical_submission(session, team_id, ts.id, [f.sha256 for f in files])
            if earlier is not None and data.on_duplicate == "refuse":
                raise ServiceError(
                    "duplicate_upload", f"these files are byte-identical to your team's submission #{earlier.id} "
                    f"{earlier.system_name!r} ({earlier.label}, {earlier.state}); nothing was submitted. To submit "
                    "them again anyway (say, under another label), tick \"Submit anyway\"", 409,
                    {"duplicate_of": earlier.id})
        quota_day = None
        if data.label != "baseline":
            quota_day = _take_quota(session, ts, team_id, now)
        sub = Submission(testset_id=ts.id, team_id=team_id,
                         user_id=user.id, label=data.label, constrained=data.constrained,
                         system_name=data.system_name, description=data.description, state="received",
                         state_changed_at=now, heartbeat_at=now, job="validate", upload_kind=kind,
                         upload_size=sum(f.size for f in files), quota_day=quota_day, created_at=now)
        _insert_with_slot(session, sub, ts)
        for i, f in enumerate(files):
            session.add(SubmissionFile(submission_id=sub.id, position=i, name=f.name, sha256=f.sha256, size=f.size))
        what = "a zip archive" if kind == "zip" else f"{len(files)} file{'s' if len(files) != 1 else ''}"
        session.add(SubmissionEvent(submission_id=sub.id, state="received", created_at=now,
                                    message=f"received {what} ({sub.upload_size} bytes) from {actor(user)}"))
        if earlier is not None:
            session.add(SubmissionEvent(submission_id=sub.id, state="received", created_at=now,
                                        message=f"byte-identical to submission #{earlier.id}: it will score the same"))
    sub.duplicate_of = earlier.id if earlier is not None else None   # not a column: for the API's answer
    for f in files:
        commit_file(f)
    job_queue.enqueue("validate", sub.id)
    return sub


# --------------------------------------------------------------------------- changing


def _active_primary(team_id: int | None, testset_id: int) -> Submission | None:
    if team_id is None:
        return None
    return db.session.scalar(select(Submission).where(Submission.team_id == team_id,
                                                      Submission.testset_id == testset_id,
                                                      Submission.label == "primary", Submission.slot.is_not(None)))


def team_primary(user: User, testset_id: int) -> Submission | None:
    """The active primary of ``user``'s team on a test set, if any."""
    if not getattr(user, "is_authenticated", False):
        return None
    return _active_primary(user.team_id, testset_id)


#: how long after a switch of primary its page offers the switch back (on every view, not only the next one)
UNDO_SWITCH_MINUTES = 10


def undoable_switch(sub: Submission) -> tuple[Submission, datetime] | None:
    """(the previous primary, until when) when ``sub`` became primary less than UNDO_SWITCH_MINUTES ago and
    the switch back is still possible; else None. Read from the switch's event on the previous primary."""
    if sub.label != "primary" or sub.withdrawn or sub.slot is None:
        return None
    since = utcnow() - timedelta(minutes=UNDO_SWITCH_MINUTES)
    event = db.session.scalar(select(SubmissionEvent).where(
        SubmissionEvent.message.startswith(f"now contrastive: #{sub.id} was made primary", autoescape=True),
        SubmissionEvent.created_at >= since).order_by(SubmissionEvent.id.desc()).limit(1))
    if event is None:
        return None
    prev = db.session.get(Submission, event.submission_id)
    if (prev is None or prev.team_id != sub.team_id or prev.testset_id != sub.testset_id or prev.withdrawn
            or prev.label != "contrastive" or prev.slot is None):
        return None
    return prev, event.created_at + timedelta(minutes=UNDO_SWITCH_MINUTES)


def current_primary(sub: Submission) -> Submission | None:
    """The active primary of ``sub``'s team on its test set (None: none, or a baseline)."""
    return _active_primary(sub.team_id, sub.testset_id)


def check_editable(user: User, sub: Submission) -> None:
    """NotFound/Forbidden/ServiceError unless ``user`` may withdraw or switch ``sub`` now."""
    _editable(user, sub)


def _editable(user: User, sub: Submission) -> None:
    if not can_manage(user, sub):
        raise NotFound("submission") if not can_view(user, sub) else Forbidden("only the owning team may do this")
    ts = sub.testset
    if ts.deadline is not None and utcnow() >= ts.deadline and not user.is_organizer:
        raise ServiceError("deadline_passed", "the deadline has passed; submissions can no longer change", 403)


def withdraw(user: User, sub: Submission) -> Submission:
    _editable(user, sub)
    if sub.withdrawn:
        raise ServiceError("already_withdrawn", "this submission is already withdrawn", 409)
    with db.write() as session:
        n = session.execute(update(Submission).where(Submission.id == sub.id, Submission.withdrawn_at.is_(None))
                            .values(withdrawn_at=utcnow())).rowcount
        if n != 1:
            raise ServiceError("already_withdrawn", "this submission is already withdrawn", 409)
        _give_back(session, sub)
        session.add(SubmissionEvent(submission_id=sub.id, state=sub.state, message=f"withdrawn by {actor(user)}"))
        bump_scores_version(session, sub.testset_id)
    session.refresh(sub)
    return sub


def make_primary(user: User, sub: Submission) -> Submission:
    """Swap: this contrastive becomes the primary; the old primary (if any) takes its contrastive slot."""
    _editable(user, sub)
    if sub.label == "primary":
        return sub
    if sub.label != "contrastive" or sub.withdrawn or sub.slot is None:
        raise ServiceError("not_switchable", "only an active contrastive submission (not withdrawn, invalid or "
                           "failed) can become the primary", 409)
    with db.write() as session:
        fresh = session.execute(select(Submission.label, Submission.slot).where(Submission.id == sub.id)
                                .with_for_update()).one()
        if fresh.label != "contrastive" or fresh.slot is None:
            raise ServiceError("changed", "this submission changed meanwhile; reload and try again", 409)
        old = session.scalar(select(Submission).where(Submission.team_id == sub.team_id,
                                                      Submission.testset_id == sub.testset_id,
                                                      Submission.label == "primary", Submission.slot.is_not(None))
                             .with_for_update())
        try:
            if old is not None:
                session.execute(update(Submission).where(Submission.id == old.id)
                                .values(label="contrastive", slot=None))
            session.execute(update(Submission).where(Submission.id == sub.id).values(label="primary", slot=1))
            if old is not None:
                session.execute(update(Submission).where(Submission.id == old.id).values(slot=fresh.slot))
                session.add(SubmissionEvent(submission_id=old.id, state=old.state,
                                            message=f"now contrastive: #{sub.id} was made primary by {actor(user)}"))
        except IntegrityError:
            raise ServiceError("changed", "another change to your submissions happened at the same time; reload "
                               "and try again", 409) from None
        session.add(SubmissionEvent(submission_id=sub.id, state=sub.state, message=f"made primary by {actor(user)}"))
        bump_scores_version(session, sub.testset_id)
    session.refresh(sub)
    return sub


# --------------------------------------------------------------------------- the state machine

TRANSITIONS = {
    "received": ("validating",),
    "validating": ("invalid", "valid", "failed", "received"),
    "valid": ("scoring", "failed"),
    "scoring": ("scored", "failed", "valid"),
    "scored": ("valid", "received"),
    "invalid": ("received",),
    "failed": ("valid", "received"),
}


def transition(session: Session, sub_id: int, to: str, message: str, *, from_states: tuple[str, ...],
               **values) -> bool:
    """Compare-and-set the state; record the event. False when the submission was not in ``from_states``.

    Two workers that race for one submission (a requeued job and a slow
    original) cannot both move it: the second UPDATE matches no row.
    """
    bad = [s for s in from_states if to not in TRANSITIONS.get(s, ())]
    if bad:
        raise ValueError(f"no transition {bad} -> {to}")
    now = utcnow()
    n = session.execute(update(Submission).where(Submission.id == sub_id, Submission.state.in_(from_states))
                        .values(state=to, state_changed_at=now, heartbeat_at=now, **values)).rowcount
    if n != 1:
        return False
    session.add(SubmissionEvent(submission_id=sub_id, state=to, message=message, created_at=now))
    if to in RELEASING_STATES:
        _give_back(session, session.get(Submission, sub_id))
    return True


def note(session: Session, sub_id: int, message: str) -> None:
    state = session.scalar(select(Submission.state).where(Submission.id == sub_id))
    session.add(SubmissionEvent(submission_id=sub_id, state=state, message=message))


def rescore(user: User | None, sub: Submission, *, who: str = "an organizer") -> bool:
    """Queue a submission again: scored/failed ones are re-scored (failed before validation: re-validated)."""
    if sub.withdrawn:
        raise ServiceError("withdrawn", "a withdrawn submission is not re-scored", 409)
    if sub.state in PENDING_STATES:
        raise ServiceError("busy", f"#{sub.id} is {sub.state}; it is already being processed", 409)
    if sub.state == "invalid":
        raise ServiceError("invalid", f"#{sub.id} is invalid; it cannot be scored", 409)
    validated = sub.report is not None and sub.report.get("ok")
    with db.write() as session:
        if sub.slot is None and sub.label != "baseline" and sub.state == "failed":
            # A failed submission gave its slot back; it needs one again to count.
            def move_to(slot: int) -> None:
                session.execute(update(Submission).where(Submission.id == sub.id).values(slot=slot))

            if not _take_slot(session, sub.label, move_to):
                raise ServiceError("slot_taken", f"#{sub.id} failed and its team has since used its "
                                   f"{sub.label} slot; it cannot be re-scored", 409)
        to, job = ("valid", "score") if validated else ("received", "validate")
        ok = transition(session, sub.id, to, f"re-score requested by {who}", from_states=(sub.state,),
                        job=job, attempts=0, progress=0.0)
        if not ok:
            raise ServiceError("changed", "the submission changed meanwhile; reload and try again", 409)
    job_queue.enqueue(job, sub.id)
    return True


def rescore_testset(user: User | None, ts: TestSet, who: str = "an organizer") -> int:
    subs = db.session.scalars(select(Submission).where(Submission.testset_id == ts.id,
                                                       Submission.withdrawn_at.is_(None),
                                                       Submission.state.in_(("scored", "failed")))).all()
    n = 0
    for sub in subs:
        try:
            rescore(user, sub, who=who)
            n += 1
        except ServiceError as exc:
            log.info("not re-scoring #%s: %s", sub.id, exc.message)
    return n


def delete_scores(session: Session, sub_id: int, metrics: list[str] | None = None) -> None:
    stmt = delete(ScoreRow).where(ScoreRow.submission_id == sub_id)
    if metrics is not None:
        stmt = stmt.where(ScoreRow.metric.in_(metrics))
    session.execute(stmt)


# --------------------------------------------------------------------------- presenting


def submission_dict(sub: Submission, *, with_report: bool = True, private: bool = True,
                    operator: bool = False) -> dict:
    """The API's view of a submission. ``private`` (the owning team, organizers): the files (names, sizes,
    hashes) and the timeline as written; otherwise no files and the timeline without e-mail addresses.
    ``with_report``: the validation report (the owning team and organizers only). ``operator`` (organizers):
    n/a reasons with the operator's instructions (:mod:`~enface.services.reasons`)."""
    scores = {}
    segment_scores = {}
    for s in sub.scores:
        if s.scope == "corpus":
            scores[s.metric] = {"name": s.name, "score": s.value, "signature": s.signature,
                                "versions": s.versions, "reason": s.reason if operator else public_reason(s.reason),
                                "higher_is_better": s.higher_is_better}
        elif s.values is not None:
            segment_scores[s.metric] = {"scope": s.scope, "count": len(s.values)}
    return {
        "id": sub.id,
        "url": url_for("api.get_submission", submission_id=sub.id, _external=True),
        "page": url_for("submissions.detail", submission_id=sub.id, _external=True),
        "testset_id": sub.testset_id,
        "team": sub.owner_name,
        "system_name": sub.system_name,
        "description": sub.description,
        "label": sub.label,
        "constrained": sub.constrained,
        "baseline": sub.label == "baseline",
        "state": sub.state,
        "progress": round(sub.progress, 4),
        "withdrawn": sub.withdrawn,
        "active": sub.slot is not None or (sub.label == "baseline" and not sub.withdrawn),
        "document_level": sub.document_level,
        "created_at": sub.created_at.isoformat(),
        "files": [{"name": f.name, "size": f.size, "sha256": f.sha256} for f in sub.files] if private else None,
        "timeline": [{"state": e.state, "message": e.message if private else public_message(e.message),
                      "at": e.created_at.isoformat()} for e in sub.events],
        "report": sub.report if with_report else None,
        "scores": scores,
        "segment_scores": segment_scores,
    }
