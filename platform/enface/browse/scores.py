"""Per-document scores of a system: the evidence behind a leaderboard cell.

BLEU, chrF, TER and d-BLEU: each document scored on its own (the corpus metric restricted to
that document, same signature), stored by the scoring pipeline (:meth:`scoring.Scorer.document_scores`).
A submission scored before they were stored gets them computed on view when the test set is small
(:data:`ON_VIEW_SEGMENTS`), kept per process until the scores change; on a larger one the page says
to re-score. COMET: the mean of its stored segment scores (no model is loaded for a page).
MQM: the released error spans per document and severity.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select

from scoring import Scorer
from scoring.metrics import REGISTRY
from scoring.testset import TestSet as ScoringTestSet

from ..extensions import db
from ..models import OutputSegment, ScoreRow, Submission, TestSet
from ..services import NotFound
from ..services.leaderboard import columns as leaderboard_columns
from ..services.testsets import scoring_testset
from .lru import app_cache
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
    corpus = {m: s.value for (m, scope), s in stored.items() if scope == "corpus"}
    by_doc = {m: list(s.values) for (m, scope), s in stored.items()
              if scope == "document" and s.values and len(s.values) == len(docs)}
    metric_columns = [(c["key"], c["name"], c["higher_is_better"]) for c in leaderboard_columns()]
    missing = [k for k, _n, _h in metric_columns
               if REGISTRY[k].engine == "sacrebleu" and corpus.get(k) is not None and k not in by_doc]
    computed = _computed(ts, sub, missing) if total <= ON_VIEW_SEGMENTS else {}
    columns, per_doc, not_stored = [], [], []
    for key, name, higher in metric_columns:
        seg_row = stored.get((key, "segment"))
        if key in by_doc:
            columns.append({"key": key, "name": name, "higher_is_better": higher,
                            "how": "this document scored on its own"})
            per_doc.append(by_doc[key])
        elif key in computed:
            columns.append({"key": key, "name": name, "higher_is_better": higher,
                            "how": "this document scored on its own"})
            per_doc.append(computed[key])
        elif seg_row is not None and seg_row.values and len(seg_row.values) == total:
            columns.append({"key": key, "name": name, "higher_is_better": higher,
                            "how": "mean of the segment scores"})
            per_doc.append([_mean(seg_row.values[a:b]) for a, b in offsets])
        elif key in missing:
            not_stored.append(name)
    errors = Counter((e["document"], e["severity"]) for e in evidence
                     if e["kind"] == "span" and e["submission_id"] == sub.id)
    severities = sorted({sev for _d, sev in errors}, key=severity_rank)
    rows = []
    for i, d in enumerate(docs):
        rows.append({"document": d.name, "segments": d.num_segments,
                     "values": {c["key"]: per_doc[j][i] for j, c in enumerate(columns)},
                     "errors": {sev: errors.get((d.name, sev), 0) for sev in severities}})
    return {"columns": columns, "rows": rows, "corpus": corpus, "severities": severities, "not_stored": not_stored}


#: Test sets up to this many segments get per-document scores computed on view when none are stored.
ON_VIEW_SEGMENTS = 3000


def _computed(ts: TestSet, sub: Submission, metrics: list[str]) -> dict[str, list[float | None]]:
    """{metric: [its value on each document alone]} for the sacrebleu metrics, kept per scores_version
    (for submissions scored before the pipeline stored them)."""
    if not metrics:
        return {}
    cache = app_cache("document_scores", 256)
    key = (sub.id, ts.scores_version)
    hit = cache.get(key)
    if hit is not None and all(m in hit for m in metrics):
        return hit
    loaded = scoring_testset(ts)
    lines: dict[int, list[str]] = {}
    for doc_id, text in db.session.execute(select(OutputSegment.document_id, OutputSegment.text)
                                           .where(OutputSegment.submission_id == sub.id)
                                           .order_by(OutputSegment.document_id, OutputSegment.position)):
        lines.setdefault(doc_id, []).append(text)
    out: dict[str, list[float | None]] = {m: [] for m in metrics}
    for row, doc in zip(ts.documents, loaded.documents):
        single = ScoringTestSet(ts.name, ts.src_lang, ts.tgt_lang, [doc], None, {})
        try:
            scores = Scorer(single, metrics, workers=1).score({doc.name: lines.get(row.id, [])},
                                                              document_level=sub.document_level).scores
        except ValueError:   # (lines missing for this document: nothing to show)
            scores = {}
        for m in metrics:
            s = scores.get(m)
            out[m].append(s.value if s is not None and s.available else None)
    cache.put(key, out)
    return out


def _mean(values: list) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None
