"""Tasks and test sets: import from the scoring library's on-disk format, settings, and the scoring view."""

from __future__ import annotations

import hashlib
import json
import tempfile
import threading
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import contains_eager

from scoring.testset import Document as ScoringDocument
from scoring.testset import TestSet as ScoringTestSet
from scoring.testset import TestSetError, load_testset

from ..extensions import db
from ..models import Document, Segment, Task, TestSet, utcnow
from . import NotFound, ServiceError
from .accounts import check_text
from .archive_names import safe_part
from .phenomena import read_phenomena_dir, store_phenomena


def get_testset(testset_id: int) -> TestSet:
    ts = db.session.get(TestSet, testset_id)
    if ts is None:
        raise NotFound("test set")
    return ts


def list_testsets() -> list[TestSet]:
    return list(db.session.scalars(select(TestSet).join(Task).options(contains_eager(TestSet.task))
                                   .order_by(Task.id, TestSet.id)))


def example_testsets(user, limit: int = 3) -> list[TestSet]:
    """The test sets the token page's examples name: those the user's team submitted to (latest first), else
    the open ones, else the first one; at most ``limit``."""
    from ..models import Submission

    testsets = list_testsets()
    if getattr(user, "team_id", None) is not None:
        latest = dict(db.session.execute(select(Submission.testset_id, func.max(Submission.id))
                                         .where(Submission.team_id == user.team_id)
                                         .group_by(Submission.testset_id)).all())
        if latest:
            return sorted((ts for ts in testsets if ts.id in latest), key=lambda ts: -latest[ts.id])[:limit]
    return ([ts for ts in testsets if ts.is_open()] or testsets[:1])[:limit]


def get_or_create_task(name: str) -> Task:
    name = check_text(name, "task name", max_len=100)
    task = db.session.scalar(select(Task).where(func.lower(Task.name) == name.lower()))
    if task is None:
        with db.write():
            task = Task(name=name)
            db.session.add(task)
    return task


def fingerprint(testset: ScoringTestSet) -> str:
    digest = hashlib.sha256()
    for doc in testset.documents:
        digest.update(doc.name.encode() + b"\0")
        for seg in doc.source:
            digest.update(seg.encode() + b"\1")
        for ref in doc.refs:
            digest.update("\n".join(ref).encode() + b"\2")
    return digest.hexdigest()


def import_testset(path: str | Path, task_name: str, *, name: str | None = None, quota_per_day: int | None = None,
                   quota_total: int | None = None) -> TestSet:
    """Import a test-set directory (testset.json, source/, ref1/, ref2/) into a task, creating the task.

    The test set starts closed (no opening time) and hidden (its leaderboard not released), with no
    deadline: an organizer opens it (web settings, or ``enface testset set ID --opens now``).
    """
    try:
        loaded = load_testset(path)
    except TestSetError as exc:
        raise ServiceError("invalid_testset", str(exc), 400) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ServiceError("invalid_testset", f"cannot read the test set: {exc}", 400) from None
    ts_name = check_text(name or loaded.name, "test set name", max_len=200)
    phenomena = read_phenomena_dir(Path(path), loaded)   # checked before anything is written
    task = get_or_create_task(task_name)
    from flask import current_app

    with db.write():
        if db.session.scalar(select(TestSet.id).where(TestSet.task_id == task.id, TestSet.name == ts_name)):
            raise ServiceError("testset_exists", f"task {task.name!r} already has a test set called {ts_name!r}", 409)
        meta = {k: v for k, v in loaded.meta.items() if k not in ("documents",)}
        ts = TestSet(task_id=task.id, name=ts_name, src_lang=loaded.src_lang, tgt_lang=loaded.tgt_lang,
                     description=str(meta.get("description", ""))[:5000], meta=meta,
                     num_documents=len(loaded.documents), num_segments=loaded.num_segments,
                     num_refs=loaded.num_refs, fingerprint=fingerprint(loaded),
                     quota_per_day=quota_per_day if quota_per_day is not None
                     else current_app.config["DEFAULT_QUOTA_PER_DAY"],
                     quota_total=quota_total if quota_total is not None else current_app.config["DEFAULT_QUOTA_TOTAL"])
        db.session.add(ts)
        db.session.flush()
        rows = []
        for position, doc in enumerate(loaded.documents):
            d = Document(testset_id=ts.id, position=position, name=doc.name, num_segments=len(doc))
            db.session.add(d)
            db.session.flush()
            for i, src in enumerate(doc.source):
                refs = [r[i] for r in doc.refs]
                rows.append({"document_id": d.id, "position": i, "source": src,
                             "ref1": refs[0] if refs else None, "ref2": refs[1] if len(refs) > 1 else None,
                             "more_refs": refs[2:] or None})
        for start in range(0, len(rows), 5000):
            db.session.execute(insert(Segment), rows[start:start + 5000])
        store_phenomena(ts, phenomena)
    return ts


def import_testset_zip(zip_path: Path, task_name: str, max_bytes: int, *, name: str | None = None) -> TestSet:
    """Import a test set uploaded as a zip of its directory (checked for bombs and traversal first);
    ``name``: the test set's name (None: the one in testset.json)."""
    from .uploads import UploadError, safe_extract

    with tempfile.TemporaryDirectory(prefix="enface-testset-") as tmp:
        try:
            safe_extract(zip_path, Path(tmp), max_total=max_bytes)
        except UploadError as exc:
            raise ServiceError(exc.code, exc.message, 400, exc.details) from None
        root = Path(tmp)
        # The zip may hold the directory itself or its contents.
        if not (root / "testset.json").is_file() and not (root / "src.txt").is_file():
            subdirs = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX"))]
            if len(subdirs) == 1:
                root = subdirs[0]
        try:
            return import_testset(root, task_name, name=name)
        except ServiceError as exc:
            # The library names files by their path: here a server's temporary folder, meaningless to the
            # organizer (and not theirs to see). Paths inside the archive say the same thing.
            exc.message = in_archive(exc.message, Path(tmp))
            exc.args = (exc.message,)
            raise


def in_archive(message: str, folder: Path) -> str:
    """``message`` with the paths under ``folder`` (an extracted archive) written relative to the archive."""
    for prefix in {str(folder.resolve()), str(folder)}:
        message = message.replace(prefix + "/", "").replace(prefix, "the archive")
    return message


def same_data_as(ts: TestSet) -> list[TestSet]:
    """Other test sets imported from the same documents, sources and references (a second import warns)."""
    return list(db.session.scalars(select(TestSet).where(TestSet.fingerprint == ts.fingerprint, TestSet.id != ts.id)
                                   .order_by(TestSet.id)))


def update_settings(ts: TestSet, *, deadline: datetime | None, opens_at: datetime | None = None,
                    quota_per_day: int | None, quota_total: int | None, document_level_allowed: bool,
                    released: bool, references_public: bool, description: str | None = None) -> TestSet:
    for value, label in ((quota_per_day, "quota per day"), (quota_total, "total quota")):
        if value is not None and not 0 <= value <= 100000:
            raise ServiceError("invalid_field", f"{label} must be between 0 and 100000", 400)
    if deadline is not None and opens_at is not None and _aware(deadline) <= _aware(opens_at):
        raise ServiceError("invalid_field", f"the deadline ({_aware(deadline):%Y-%m-%d %H:%M} UTC) must come after "
                           f"the opening ({_aware(opens_at):%Y-%m-%d %H:%M} UTC)", 400)
    with db.write():
        ts = db.session.merge(ts)
        ts.deadline = _aware(deadline)
        ts.opens_at = _aware(opens_at)
        ts.quota_per_day = quota_per_day
        ts.quota_total = quota_total
        ts.document_level_allowed = document_level_allowed
        if released and not ts.released:
            ts.released_at = utcnow()
        if not released:
            ts.released_at = None
        ts.released = released
        ts.references_public = references_public
        if description is not None:
            ts.description = check_text(description, "description", max_len=5000, required=False, multiline=True)
        ts.scores_version = TestSet.scores_version + 1
        note_leaderboard_change(db.session, ts.id)
    db.session.refresh(ts)
    return ts


def change_settings(ts: TestSet, **changes) -> TestSet:
    """``update_settings`` with only ``changes`` given; every other setting keeps its value."""
    current = dict(deadline=ts.deadline, opens_at=ts.opens_at, quota_per_day=ts.quota_per_day,
                   quota_total=ts.quota_total, document_level_allowed=ts.document_level_allowed,
                   released=ts.released, references_public=ts.references_public)
    unknown = set(changes) - set(current) - {"description"}
    if unknown:
        raise ValueError(f"unknown settings: {sorted(unknown)}")
    current.update(changes)
    return update_settings(ts, **current)


def settings_dict(ts: TestSet) -> dict:
    """A test set's settings as ``enface testset list --json`` prints them."""
    return {"id": ts.id, "task": ts.task.name, "name": ts.name, "src_lang": ts.src_lang, "tgt_lang": ts.tgt_lang,
            "documents": ts.num_documents, "segments": ts.num_segments, "references": ts.num_refs,
            "open": ts.is_open(), "opens_at": ts.opens_at.isoformat() if ts.opens_at else None,
            "deadline": ts.deadline.isoformat() if ts.deadline else None,
            "daily_quota": ts.quota_per_day, "total_quota": ts.quota_total,
            "document_level": ts.document_level_allowed, "released": ts.released,
            "released_at": ts.released_at.isoformat() if ts.released_at else None,
            "references_public": ts.references_public, "fingerprint": ts.fingerprint}


def parse_moment(text: str, option: str, *, allow: str) -> datetime | None:
    """An ISO 8601 date-time (UTC when it names no offset), or ``allow``: ``now`` (this moment) or
    ``none`` (no value). ValueError with a sentence otherwise."""
    value = text.strip()
    if value.lower() == allow:
        return utcnow() if allow == "now" else None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{option} {text!r} is not an ISO date-time such as 2026-06-30T23:59 or "
                         f"2026-06-30T23:59+02:00, nor {allow!r}") from None
    if not 2000 <= moment.year <= 9998:
        raise ValueError(f"{option} {text!r} is out of range (years 2000 to 9998)")
    return _aware(moment)


def parse_quota(text: str, option: str) -> int | None:
    """A quota: a whole number from 0 to 100000, or ``none`` (no limit). ValueError with a sentence otherwise."""
    value = text.strip()
    if value.lower() == "none":
        return None
    if not (value.lstrip("-").isascii() and value.lstrip("-").isdigit()) or len(value) > 12:
        raise ValueError(f"{option} {text!r} is not a whole number (or none for no limit)")
    number = int(value)
    if not 0 <= number <= 100000:
        raise ValueError(f"{option} must be between 0 and 100000, not {number}")
    return number


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


#: the session.info key under which a write transaction lists the test sets whose leaderboard it changed
LEADERBOARD_CHANGES = "leaderboard_changes"
#: session.info key: test sets whose scores_version this session raised (their clusters are due)
SCORES_CHANGES = "scores_changes"


def bump_scores_version(session, testset_id: int) -> None:
    """The test set's scores (or what the board shows of them) changed: the cached boards are stale, and once
    the write commits the automatic clusters are queued for the new version (:mod:`~enface.services.leaderboard`)."""
    session.execute(update(TestSet).where(TestSet.id == testset_id)
                    .values(scores_version=TestSet.scores_version + 1))
    note_leaderboard_change(session, testset_id)
    session.info.setdefault(SCORES_CHANGES, set()).add(testset_id)


def note_leaderboard_change(session, testset_id: int) -> None:
    """Marks the session: once it commits, this process's leaderboard reads the test set's versions again
    at once (the listener is in :mod:`~enface.services.leaderboard`; other processes see it within a second)."""
    session.info.setdefault(LEADERBOARD_CHANGES, set()).add(testset_id)


def document_counts(ts: TestSet) -> list[dict]:
    return [{"name": d.name, "segments": d.num_segments} for d in ts.documents]


# --------------------------------------------------------------------------- the scoring library's view

_cache_lock = threading.Lock()
_scoring_cache: dict[int, tuple[str, ScoringTestSet]] = {}


def scoring_testset(ts: TestSet) -> ScoringTestSet:
    """The test set as the scoring library sees it, built from the database and kept per process."""
    with _cache_lock:
        hit = _scoring_cache.get(ts.id)
        if hit is not None and hit[0] == ts.fingerprint:
            return hit[1]
    rows = db.session.execute(select(Document.name, Segment.source, Segment.ref1, Segment.ref2, Segment.more_refs)
                              .join(Segment).where(Document.testset_id == ts.id)
                              .order_by(Document.position, Segment.position))
    sources: dict[str, list[str]] = {d.name: [] for d in ts.documents}
    refs: dict[str, list[list[str]]] = {d.name: [[] for _ in range(ts.num_refs)] for d in ts.documents}
    for name, source, ref1, ref2, more in rows:
        sources[name].append(source)
        for i, ref in enumerate([ref1, ref2, *(more or [])][: ts.num_refs]):
            refs[name][i].append(ref or "")
    docs = [ScoringDocument(d.name, tuple(sources[d.name]), tuple(tuple(r) for r in refs[d.name]))
            for d in ts.documents]
    loaded = ScoringTestSet(ts.name, ts.src_lang, ts.tgt_lang, docs, None, dict(ts.meta or {}))
    with _cache_lock:
        _scoring_cache[ts.id] = (ts.fingerprint, loaded)
    return loaded


def forget_scoring_view(testset_id: int) -> None:
    """Drops this process's scoring view of a deleted test set."""
    with _cache_lock:
        _scoring_cache.pop(testset_id, None)


def testset_files(ts: TestSet, *, with_references: bool) -> Iterator[tuple[str, str]]:
    """The test set in the on-disk format that ``scoring.load_testset`` reads, as (relative path, text) pairs."""
    loaded = scoring_testset(ts)
    # Each document's file name is safe_part(name): the name itself for every name the import lets in.
    meta = {"name": ts.name, "src_lang": ts.src_lang, "tgt_lang": ts.tgt_lang,
            "documents": [safe_part(n) for n in loaded.doc_names]}
    yield "testset.json", json.dumps(meta, ensure_ascii=False, indent=2) + "\n"
    for doc in loaded.documents:
        yield f"source/{safe_part(doc.name)}.txt", "".join(line + "\n" for line in doc.source)
    if with_references:
        for doc in loaded.documents:
            for i, lines in enumerate(doc.refs):
                yield f"ref{i + 1}/{safe_part(doc.name)}.txt", "".join(line + "\n" for line in lines)
