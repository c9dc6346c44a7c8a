"""Per-document scores of a system: the evidence behind a leaderboard cell.

d-BLEU is stored per document; the sentence-level metrics (BLEU, chrF, TER, COMET) per
segment, and a document's value here is the mean of its segments' scores (said so on the
page: it is not the corpus score of that document). MQM: the released errors per document.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select

from ..extensions import db
from ..models import ScoreRow, Submission, TestSet
from ..services import NotFound
from ..services.leaderboard import COLUMNS
from .overlay import severity_rank


def get_submission(ts: TestSet, submission_id: int, visible_ids: set[int]) -> Submission:
    sub = db.session.get(Submission, submission_id)
    if sub is None or sub.testset_id != ts.id or submission_id not in visible_ids:
        raise NotFound("system")
    return sub


def document_scores(ts: TestSet, sub: Submission, evidence: list[dict]) -> dict:
    """{"columns": [{key, name, higher_is_better, how}], "rows": [{document, segments, values, errors}],
    "corpus": {key: value}}."""
    docs = list(ts.documents)
    offsets, total = [], 0
    for d in docs:
        offsets.append((total, total + d.num_segments))
        total += d.num_segments
    stored = {(s.metric, s.scope): s for s in db.session.scalars(
        select(ScoreRow).where(ScoreRow.submission_id == sub.id))}
    columns, per_doc = [], []
    for key, name, higher in COLUMNS:
        doc_row = stored.get((key, "document"))
        seg_row = stored.get((key, "segment"))
        if doc_row is not None and doc_row.values and len(doc_row.values) == len(docs):
            columns.append({"key": key, "name": name, "higher_is_better": higher, "how": "document score"})
            per_doc.append(list(doc_row.values))
        elif seg_row is not None and seg_row.values and len(seg_row.values) == total:
            columns.append({"key": key, "name": name, "higher_is_better": higher,
                            "how": "mean of the segment scores"})
            per_doc.append([_mean(seg_row.values[a:b]) for a, b in offsets])
    errors = Counter((e["document"], e["severity"]) for e in evidence
                     if e["kind"] == "span" and e["submission_id"] == sub.id)
    severities = sorted({sev for _d, sev in errors}, key=severity_rank)
    rows = []
    for i, d in enumerate(docs):
        rows.append({"document": d.name, "segments": d.num_segments,
                     "values": {c["key"]: per_doc[j][i] for j, c in enumerate(columns)},
                     "errors": {sev: errors.get((d.name, sev), 0) for sev in severities}})
    corpus = {s.metric: s.value for (_m, scope), s in stored.items() if scope == "corpus"}
    return {"columns": columns, "rows": rows, "corpus": corpus, "severities": severities}


def _mean(values: list) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None
