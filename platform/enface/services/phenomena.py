"""Phenomenon tags of a test set (``phenomena.jsonl``, format in :mod:`humaneval.rubric.phenomena`).

Read and checked before anything is written, with every problem's line number; stored in
``testset_phenomena`` in the test set's import transaction. The dimensions allowed are those of
the rubric named by ``testset.json``'s optional ``"rubric"`` (a shipped rubric; default DITING's).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import delete, insert, select

from humaneval.errors import HumanEvalInputError
from humaneval.rubric import DEFAULT_RUBRIC, PHENOMENA_FILE, PhenomenaError, load_rubric, parse_phenomena
from humaneval.rubric.phenomena import TESTSET_RUBRIC_FIELD
from humaneval.rubric.phenomena import Phenomenon as TaggedSegment
from scoring.testset import TestSet as ScoringTestSet

from ..extensions import db
from ..models import Document, Phenomenon, TestSet
from . import ServiceError


def rubric_dimensions(meta: dict) -> tuple[str, ...]:
    name = meta.get(TESTSET_RUBRIC_FIELD) or DEFAULT_RUBRIC
    try:
        return load_rubric(str(name)).keys
    except HumanEvalInputError as exc:
        raise ServiceError("invalid_testset", f"testset.json: rubric: {exc}", 400) from None


def check_phenomena(text: str, documents: dict[str, int], dimensions: tuple[str, ...],
                    filename: str = PHENOMENA_FILE) -> list[TaggedSegment]:
    """The checked phenomena; a ServiceError lists every problem as ``file:line: message``."""
    try:
        return parse_phenomena(text, documents, dimensions, filename)
    except PhenomenaError as exc:
        raise ServiceError("invalid_phenomena", str(exc), 400,
                           {"errors": [{"line": line, "message": message} for line, message in exc.errors],
                            "more": exc.more}) from None


def read_phenomena_dir(path: Path, loaded: ScoringTestSet) -> list[TaggedSegment]:
    """The phenomena file of a test-set directory, checked against it; [] when there is none."""
    file = Path(path) / PHENOMENA_FILE
    if not file.is_file():
        return []
    try:
        text = file.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ServiceError("invalid_phenomena", f"{PHENOMENA_FILE}: cannot read it as UTF-8 text ({exc})", 400) \
            from None
    documents = {d.name: len(d) for d in loaded.documents}
    return check_phenomena(text, documents, rubric_dimensions(loaded.meta))


def store_phenomena(ts: TestSet, found: list[TaggedSegment]) -> int:
    """Inserts the phenomena of ``ts`` (inside the caller's write transaction)."""
    if not found:
        return 0
    doc_ids = dict(db.session.execute(select(Document.name, Document.id).where(Document.testset_id == ts.id)).all())
    db.session.execute(insert(Phenomenon), [
        {"testset_id": ts.id, "document_id": doc_ids[p.document], "position": p.segment - 1,
         "dimension": p.dimension, "requirement": p.requirement, "context": p.context, "line": p.line}
        for p in found])
    return len(found)


def testset_phenomena(ts: TestSet) -> list[Phenomenon]:
    """The test set's phenomena in document and segment order."""
    return list(db.session.scalars(
        select(Phenomenon).join(Document, Phenomenon.document_id == Document.id)
        .where(Phenomenon.testset_id == ts.id).order_by(Document.position, Phenomenon.position, Phenomenon.id)))


def count_phenomena(ts: TestSet) -> int:
    from sqlalchemy import func

    return db.session.scalar(select(func.count()).select_from(Phenomenon).where(Phenomenon.testset_id == ts.id)) or 0


def phenomena_locked_by(ts: TestSet) -> str | None:
    """The name of a started campaign whose items are built from the test set's phenomena, or None.

    Only such campaigns (a protocol with ``uses_phenomena``: the rubric) fix the tags; an MQM or
    reader campaign never reads them, so it never blocks a change."""
    from ..campaigns.models import Campaign  # (the core's table and registry: only names and states are read)
    from ..campaigns.protocol import PROTOCOLS

    keys = [key for key, protocol in PROTOCOLS.items() if protocol.uses_phenomena]
    return db.session.scalar(select(Campaign.name).where(Campaign.testset_id == ts.id, Campaign.state != "draft",
                                                         Campaign.protocol.in_(keys)).order_by(Campaign.id).limit(1))


def replace_phenomena(ts: TestSet, text: str, filename: str = PHENOMENA_FILE) -> int:
    """Sets (or replaces) a test set's phenomena from a file's text; refused once a campaign whose items
    are built from them (a rubric campaign) has started on it."""
    started = phenomena_locked_by(ts)
    if started is not None:
        raise ServiceError("campaign_started", f"the rubric campaign {started!r} on this test set has started: "
                           "its items are the tagged segments, so the tags can no longer change", 409)
    documents = {d.name: d.num_segments for d in ts.documents}
    found = check_phenomena(text, documents, rubric_dimensions(ts.meta or {}), filename)
    with db.write():
        db.session.execute(delete(Phenomenon).where(Phenomenon.testset_id == ts.id))
        return store_phenomena(ts, found)
