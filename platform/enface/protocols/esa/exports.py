"""An ESA campaign's exports: every answer as JSON Lines and as CSV, and Appraise's score-export CSV.

Every answer (finished or not, scored or not) is one line / row: rater, item number, system,
document, line (1-based in the document), whether it is an attention-check copy (BAD), the score,
the spans (JSON: inclusive offsets or ``"missing"``, severity, provenance, suggestion), the
reading time on the segment, the page's first/last change (epoch ms), and when it was first and
last saved. The Appraise export (:func:`humaneval.esa.appraise.format_scores`) has the twelve
columns of an Appraise score export, scored segments of finished items only (see :mod:`enface.protocols.esa.rows`).
"""

from __future__ import annotations

import io
import json
from typing import Any

from humaneval.esa import format_scores
from scoring import csvsafe

from ...campaigns.models import Campaign
from .rows import answer_rows, score_row

COLUMNS = ("rater", "item", "system", "document", "line", "type", "score", "spans", "errors_minor",
           "errors_major", "missing", "reading_ms", "started_ms", "ended_ms", "created_at", "updated_at", "state")


def _records(campaign: Campaign, rows_of) -> list[dict[str, Any]]:
    out = []
    for r in rows_of(campaign, finished_only=False, scored_only=False):
        resp = next(x for x in r.assignment.responses if x.uuid == r.answer.uuid)
        errors = r.answer.errors
        out.append({"rater": r.assignment.annotator.rater, "item": r.assignment.number, "system": r.system,
                    "document": r.document, "line": r.line + 1, "type": "BAD" if r.is_bad else "TGT",
                    "score": r.answer.score, "spans": [s.to_json() for s in r.answer.spans],
                    "errors_minor": sum(s.severity == "minor" for s in errors),
                    "errors_major": sum(s.severity == "major" for s in errors),
                    "missing": sum(s.missing for s in errors), "reading_ms": round(r.seconds * 1000),
                    "started_ms": r.answer.started_ms, "ended_ms": r.answer.ended_ms,
                    "created_at": resp.created_at.isoformat(), "updated_at": resp.updated_at.isoformat(),
                    "state": r.assignment.state})
    out.sort(key=lambda x: (x["rater"], x["item"], x["line"]))
    return out


def export_jsonl(campaign: Campaign, rows_of=answer_rows) -> str:
    """``rows_of``: how the campaign's answers become rows (contrastive ESA passes its columns')."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _records(campaign, rows_of))


def export_csv(campaign: Campaign, rows_of=answer_rows) -> str:
    buf = io.StringIO()
    writer = csvsafe.writer(buf, lineterminator="\n")   # (notes and texts are typed by people: no formulas)
    writer.writerow(COLUMNS)
    for r in _records(campaign, rows_of):
        writer.writerow([json.dumps(r[c], ensure_ascii=False, separators=(",", ":")) if c == "spans"
                         else "" if r[c] is None else r[c] for c in COLUMNS])
    return buf.getvalue()


def export_appraise(campaign: Campaign, rows_of=answer_rows) -> str:
    return format_scores([score_row(r, campaign, appraise=True) for r in rows_of(campaign)])
