"""What the jobs do: validate an upload, score it, add the gpu metrics (COMET), and sweep up after dead workers.

Each step moves the submission through the state machine with a
compare-and-set (:func:`submissions.transition`), so a duplicate or
requeued job finds nothing to do. Validation and scoring use the scoring
library; nothing here computes a metric or checks a file itself.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from datetime import timedelta

from flask import current_app
from sqlalchemy import insert, select, update

from scoring import Scorer
from scoring.metrics import registry
from scoring.testset import output_from_files
from scoring.validate import ERROR, Finding, ValidationReport, validate_files

from .. import job_queue
from ..extensions import begin_write, db
from ..models import PENDING_STATES, Document, OutputSegment, ScoreRow, Submission, TestSet, utcnow
from .submissions import delete_scores, note, transition
from .testsets import bump_scores_version, scoring_testset
from .uploads import UploadError, blob_path, read_zip_members, zip_limits

log = logging.getLogger(__name__)

#: The job that computes the registry's metrics of the "gpu" queue (COMET, ...), when a model is configured.
GPU_JOB = "gpu"
#: its name before the registry: a submission stored mid-job under it is still picked up
LEGACY_GPU_JOB = "comet"


def cpu_metrics() -> list[str]:
    """The metrics the scoring job computes (BLEU, chrF, TER, d-BLEU), from the registry."""
    return registry.keys(queue="cpu")


def gpu_metrics() -> list[str]:
    """The metrics of the gpu queue (COMET), from the registry."""
    return registry.keys(queue="gpu")


def _gpu_job_wanted() -> bool:
    # Without a configured model, the gpu-queue metrics are computed (as n/a, saying why) in the scoring job.
    return bool(current_app.config.get("COMET_MODEL"))


# --------------------------------------------------------------------------- validation


def _uploaded_files(sub: Submission) -> list[tuple[str, bytes]]:
    if sub.upload_kind == "zip":
        return read_zip_members(blob_path(sub.files[0].sha256), **zip_limits())
    return [(f.name, blob_path(f.sha256).read_bytes()) for f in sub.files]


def run_validation(submission_id: int) -> str | None:
    """received → validating → invalid | valid; a valid submission goes on to scoring in the same job."""
    session = db.session
    with db.write():
        ok = transition(session, submission_id, "validating", "validating the upload", from_states=("received",),
                        job="validate", attempts=Submission.attempts + 1, progress=0.0)
    if not ok:
        return None
    sub = session.get(Submission, submission_id, populate_existing=True)
    ts_row = sub.testset
    try:
        testset = scoring_testset(ts_row)
        try:
            files = _uploaded_files(sub)
        except UploadError as exc:
            report = ValidationReport(f"submission {sub.id}",
                                      findings=[Finding(ERROR, exc.code, exc.message, None, None)]).to_dict()
            with db.write():
                session.execute(update(Submission).where(Submission.id == sub.id).values(report=report))
                transition(session, sub.id, "invalid", exc.message, from_states=("validating",), job=None)
            return "invalid"
        report = validate_files(testset, files, name=f"submission {sub.id}",
                                document_level=ts_row.document_level_allowed,
                                max_bytes=current_app.config["MAX_UPLOAD_BYTES"],
                                max_line_bytes=current_app.config["MAX_LINE_BYTES"])
        data = report.to_dict()
        if not report.ok:
            n = len(report.errors)
            first = report.errors[0]
            with db.write():
                session.execute(update(Submission).where(Submission.id == sub.id).values(report=data))
                transition(session, sub.id, "invalid",
                           f"{n} error{'s' if n != 1 else ''}; the first: {first.location()} {first.message}",
                           from_states=("validating",), job=None)
            return "invalid"
        output = output_from_files(testset, files, document_level=report.document_level)
        docs = {d.name: d.id for d in ts_row.documents}
        rows = [{"submission_id": sub.id, "document_id": docs[name], "position": i, "text": text}
                for name, lines in output.items() for i, text in enumerate(lines)]
        warnings = len(report.warnings)
        message = "valid" + (f", {warnings} warning{'s' if warnings != 1 else ''}" if warnings else "")
        if report.document_level:
            message += "; document-level: d-BLEU only, BLEU chrF TER COMET n/a"
        with db.write():
            session.query(OutputSegment).filter(OutputSegment.submission_id == sub.id).delete()
            for start in range(0, len(rows), 5000):
                session.execute(insert(OutputSegment), rows[start:start + 5000])
            session.execute(update(Submission).where(Submission.id == sub.id)
                            .values(report=data, document_level=report.document_level))
            transition(session, sub.id, "valid", message, from_states=("validating",), job="score", attempts=0)
    except Exception as exc:   # a bug or a lost file: visible, never silent
        log.exception("validation of submission %s failed", submission_id)
        with db.write():
            transition(session, submission_id, "failed", f"validation failed: {type(exc).__name__}: {exc}; an "
                       "organizer can re-score it", from_states=("validating",), job=None)
        return "failed"
    return run_scoring(submission_id)


# --------------------------------------------------------------------------- scoring

_scorers: OrderedDict[tuple, Scorer] = OrderedDict()
_scorers_lock = threading.Lock()
#: Scorers kept per process (the most recently used). One dropped is not closed, since a job may
#: still be using it; its references leave the worker processes when it is garbage-collected.
SCORERS_KEPT = 8


def scorer_for(ts_row: TestSet, metrics: list[str]) -> Scorer:
    """One Scorer per test set and metric list per process: reference statistics are computed once."""
    cfg = current_app.config
    key = (ts_row.id, ts_row.fingerprint, tuple(metrics), cfg.get("COMET_MODEL"))
    with _scorers_lock:
        scorer = _scorers.get(key)
        if scorer is None:
            scorer = Scorer(scoring_testset(ts_row), metrics, workers=cfg.get("SCORING_WORKERS") or None,
                            comet_model=cfg.get("COMET_MODEL") or "", comet_batch_size=cfg.get("COMET_BATCH_SIZE", 16))
            _scorers[key] = scorer
            while len(_scorers) > SCORERS_KEPT:
                _scorers.popitem(last=False)
        _scorers.move_to_end(key)
        return scorer


def output_by_document(sub: Submission) -> dict[str, list[str]]:
    rows = db.session.execute(select(Document.name, OutputSegment.text)
                              .join(OutputSegment, OutputSegment.document_id == Document.id)
                              .where(OutputSegment.submission_id == sub.id)
                              .order_by(Document.position, OutputSegment.position))
    out: dict[str, list[str]] = {d.name: [] for d in sub.testset.documents}
    for name, text in rows:
        out[name].append(text)
    return out


class _Progress:
    """Writes progress and a heartbeat at most once a second, in a session of its own."""

    def __init__(self, submission_id: int, start: float, span: float):
        self.submission_id, self.start, self.span = submission_id, start, span
        self.last = 0.0

    def __call__(self, _name: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < 1.0 and done < total:
            return
        self.last = now
        value = self.start + self.span * (done / total if total else 1.0)
        session = db.new_session()
        try:
            begin_write(session)
            session.execute(update(Submission).where(Submission.id == self.submission_id,
                                                     Submission.state == "scoring")
                            .values(progress=value, heartbeat_at=utcnow()))
            session.commit()
        except Exception:   # progress is best effort
            session.rollback()
        finally:
            session.close()


def _store_scores(session, sub_id: int, scores, documents: dict[str, list] | None = None) -> None:
    """Corpus rows, segment rows (d-BLEU: document rows), and ``documents``: {metric: a value per document}
    (each metric on each document alone, the output browser's scores by document)."""
    delete_scores(session, sub_id, list(scores))
    for key, values in (documents or {}).items():
        score = scores.get(key)
        # (a d-BLEU with per-unit values has them per document: stored below as its document row)
        if score is not None and not (key == "dbleu" and score.segments is not None):
            session.add(ScoreRow(submission_id=sub_id, metric=key, scope="document", name=score.name, value=None,
                                 values=values, higher_is_better=score.higher_is_better, signature=score.signature,
                                 versions=score.versions or {}))
    for key, score in scores.items():
        session.add(ScoreRow(submission_id=sub_id, metric=key, scope="corpus", name=score.name, value=score.value
                             if score.available else None, higher_is_better=score.higher_is_better,
                             signature=score.signature, versions=score.versions or {}, reason=score.reason,
                             details=_jsonable(score.details)))
        if score.segments is not None:
            session.add(ScoreRow(submission_id=sub_id, metric=key,
                                 scope="document" if registry.spec(key).document_level else "segment",
                                 name=score.name, value=None, values=[float(v) for v in score.segments],
                                 higher_is_better=score.higher_is_better,
                                 signature=score.segment_signature or score.signature,
                                 versions=score.versions or {}))


def _jsonable(value):
    import json

    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return {"repr": repr(value)[:2000]}


def run_scoring(submission_id: int) -> str | None:
    """valid → scoring → scored (the cpu-queue metrics here; the gpu-queue ones here as n/a, or in their job)."""
    session = db.session
    names = " ".join(registry.spec(k).display for k in cpu_metrics())
    with db.write():
        ok = transition(session, submission_id, "scoring", f"scoring {names}",
                        from_states=("valid",), job="score", progress=0.0, attempts=Submission.attempts + 1)
    if not ok:
        return None
    sub = session.get(Submission, submission_id, populate_existing=True)
    gpu_metrics_here = not _gpu_job_wanted() or not gpu_metrics()
    try:
        metrics = cpu_metrics() + (gpu_metrics() if gpu_metrics_here else [])
        scorer = scorer_for(sub.testset, metrics)
        scorer.progress = _Progress(sub.id, 0.0, 1.0 if gpu_metrics_here else 0.8)
        try:
            result = scorer.score(output_by_document(sub), name=f"submission-{sub.id}",
                                  document_level=sub.document_level)
        finally:
            scorer.progress = None
        with db.write():
            _store_scores(session, sub.id, result.scores, scorer.document_scores(result))
            bump_scores_version(session, sub.testset_id)
            if gpu_metrics_here:
                transition(session, sub.id, "scored", _summary(result.scores), from_states=("scoring",),
                           job=None, progress=1.0)
            else:
                session.execute(update(Submission).where(Submission.id == sub.id)
                                .values(job=GPU_JOB, progress=0.8, heartbeat_at=utcnow()))
                note(session, sub.id, _summary(result.scores) + f"; {_names(gpu_metrics())} queued on the gpu queue")
    except Exception as exc:
        log.exception("scoring of submission %s failed", submission_id)
        with db.write():
            transition(session, submission_id, "failed", f"scoring failed: {type(exc).__name__}: {exc}; an "
                       "organizer can re-score it", from_states=("scoring",), job=None)
        return "failed"
    if gpu_metrics_here:
        return "scored"
    job_queue.enqueue(GPU_JOB, sub.id)
    return "scoring"


def _names(keys: list[str]) -> str:
    return ", ".join(registry.spec(k).display for k in keys)


def run_gpu_metrics(submission_id: int) -> str | None:
    """The gpu-queue metrics (COMET) of a submission in ``scoring`` whose job is ``gpu``; a failure is n/a."""
    from scoring.metrics.base import Score

    session = db.session
    sub = session.get(Submission, submission_id)
    if sub is None or sub.state != "scoring" or sub.job not in (GPU_JOB, LEGACY_GPU_JOB):
        return None
    keys = gpu_metrics()
    with db.write():
        session.execute(update(Submission).where(Submission.id == sub.id).values(heartbeat_at=utcnow(),
                                                                                  attempts=Submission.attempts + 1))
        note(session, sub.id, f"computing {_names(keys)}")
    try:
        scorer = scorer_for(sub.testset, keys)
        scorer.progress = _Progress(sub.id, 0.8, 0.2)
        try:
            result = scorer.score(output_by_document(sub), name=f"submission-{sub.id}",
                                  document_level=sub.document_level)
        finally:
            scorer.progress = None
        scores = result.scores
    except Exception as exc:
        log.exception("%s for submission %s failed", _names(keys), submission_id)
        scores = {k: Score.not_available(k, registry.spec(k).display,
                                         f"{registry.spec(k).display} failed: {type(exc).__name__}: {exc}",
                                         higher_is_better=registry.spec(k).higher_is_better) for k in keys}
    with db.write():
        _store_scores(session, sub.id, scores)
        bump_scores_version(session, sub.testset_id)
        transition(session, sub.id, "scored", _summary(scores), from_states=("scoring",), job=None, progress=1.0)
    return "scored"


def _summary(scores) -> str:
    parts = [f"{s.name} {s.value:.2f}" if s.available else f"{s.name} n/a" for s in scores.values()]
    return "scored: " + ", ".join(parts)


# --------------------------------------------------------------------------- the sweeper


def sweep(stuck_after: int | None = None, now=None) -> list[tuple[int, str]]:
    """Requeue work whose worker died (no heartbeat for ``stuck_after`` seconds); give up after N attempts.

    Returns (submission id, what was done) pairs.
    """
    cfg = current_app.config
    stuck_after = cfg["STUCK_AFTER_SECONDS"] if stuck_after is None else stuck_after
    max_attempts = cfg["MAX_JOB_ATTEMPTS"]
    now = now or utcnow()
    cutoff = now - timedelta(seconds=stuck_after)
    session = db.session
    stuck = session.scalars(select(Submission).where(Submission.state.in_(PENDING_STATES),
                                                     Submission.heartbeat_at < cutoff)
                            .order_by(Submission.id)).all()
    done: list[tuple[int, str]] = []
    for sub in stuck:
        why = f"no progress for {int((now - sub.heartbeat_at).total_seconds())} s"
        with db.write():
            if sub.attempts >= max_attempts and sub.state in ("validating", "scoring"):
                ok = transition(session, sub.id, "failed", f"gave up after {sub.attempts} attempts ({why}); an "
                                "organizer can re-score it", from_states=(sub.state,), job=None)
                if ok:
                    done.append((sub.id, "failed"))
                continue
            if sub.state == "validating":
                ok = transition(session, sub.id, "received", f"requeued: the worker stopped ({why})",
                                from_states=("validating",), job="validate")
                job = "validate"
            elif sub.state == "scoring" and sub.job in (GPU_JOB, LEGACY_GPU_JOB):
                n = session.execute(update(Submission).where(Submission.id == sub.id, Submission.state == "scoring",
                                                             Submission.heartbeat_at < cutoff)
                                    .values(heartbeat_at=utcnow())).rowcount
                ok = n == 1
                if ok:
                    note(session, sub.id, f"{_names(gpu_metrics())} requeued ({why})")
                job = GPU_JOB
            elif sub.state == "scoring":
                ok = transition(session, sub.id, "valid", f"requeued: the worker stopped ({why})",
                                from_states=("scoring",), job="score")
                job = "score"
            else:   # received or valid: the message was lost, or the queue is long; a duplicate is harmless
                n = session.execute(update(Submission).where(Submission.id == sub.id, Submission.state == sub.state,
                                                             Submission.heartbeat_at < cutoff)
                                    .values(heartbeat_at=utcnow())).rowcount
                ok = n == 1
                if ok:
                    note(session, sub.id, f"queued again ({why} in {sub.state})")
                job = "validate" if sub.state == "received" else "score"
        if ok:
            job_queue.enqueue(job, sub.id)
            done.append((sub.id, f"requeued {job}"))
    return done
