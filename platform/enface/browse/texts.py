"""The texts the browser shows: a document's source, references and system outputs, line by line."""

from __future__ import annotations

from sqlalchemy import select

from ..extensions import db
from ..models import Document, OutputSegment, Segment, TestSet
from ..services import NotFound, is_ascii_int


def get_document(ts: TestSet, name: str) -> Document:
    doc = db.session.scalar(select(Document).where(Document.testset_id == ts.id, Document.name == name))
    if doc is None:
        raise NotFound(f"document {name[:100]!r}")
    return doc


def document_lines(doc: Document, submission_ids: list[int]) -> list[dict]:
    """[{"position", "source", "refs": [ref1, ref2, ...], "outputs": {submission id: text}}] by line."""
    lines = [{"position": pos, "source": src, "refs": [r for r in (ref1, ref2, *(more or [])) if r is not None],
              "outputs": {}}
             for pos, src, ref1, ref2, more in db.session.execute(
                 select(Segment.position, Segment.source, Segment.ref1, Segment.ref2, Segment.more_refs)
                 .where(Segment.document_id == doc.id).order_by(Segment.position))]
    if submission_ids:
        for sid, pos, text in db.session.execute(
                select(OutputSegment.submission_id, OutputSegment.position, OutputSegment.text)
                .where(OutputSegment.document_id == doc.id, OutputSegment.submission_id.in_(submission_ids))):
            if 0 <= pos < len(lines):
                lines[pos]["outputs"][sid] = text
    return lines


def version_text(line: dict, key: str) -> str | None:
    """The text of version ``key`` (a submission id as a string, or ref1/ref2) on one line."""
    if key.startswith("ref") and is_ascii_int(key[3:]):
        n = int(key[3:]) - 1
        return line["refs"][n] if 0 <= n < len(line["refs"]) else None
    return line["outputs"].get(int(key)) if is_ascii_int(key) else None
