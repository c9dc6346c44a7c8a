"""The output browser's pages (thin: the work is in the modules beside this one)."""

from __future__ import annotations

from flask import render_template, request
from flask_login import current_user

from ..services import NotFound, ServiceError, is_ascii_int
from . import bp
from .context import browse_context
from .diff import similarity, word_diff
from .evidence import SpanFilter, facets, testset_evidence, version_key
from .overlay import pieces
from .page_cache import cached_page
from .scores import document_scores, get_submission
from .texts import document_lines, get_document, version_text

MAX_SYSTEMS = 6      # columns of systems on one page of the document view
MAX_SPANS = 500      # rows of the span list (the filters narrow it)


@bp.get("/<int:testset_id>")
@cached_page
def index(testset_id: int):
    b = browse_context(current_user, testset_id)
    evidence = testset_evidence(testset_id)
    return render_template("browse/index.html", b=b, ts=b.ts, docs=b.ts.documents,
                           counts=facets(evidence), spans=sum(1 for e in evidence if e["kind"] == "span"))


@bp.get("/<int:testset_id>/doc/<path:name>")
@cached_page
def document(testset_id: int, name: str):
    b = browse_context(current_user, testset_id)
    doc = get_document(b.ts, name)
    chosen = _chosen_systems(b, request.args.getlist("sys"))
    flt = SpanFilter.from_args(request.args)
    flt.doc = doc.name
    evidence = [e for e in testset_evidence(testset_id) if e["document"] == doc.name and b.may_see(e)]
    shown = [e for e in evidence if flt.matches(e)]
    lines = document_lines(doc, chosen)
    keys = b.ref_keys + [str(s) for s in chosen]
    by_cell: dict[tuple[str, int], list[dict]] = {}
    for e in shown:
        if e["seg"] is not None:
            by_cell.setdefault((version_key(e), e["seg"]), []).append(e)
    cells = {(k, ln["position"]): pieces(version_text(ln, k) or "",
                                         [e for e in by_cell.get((k, ln["position"]), []) if e["side"] == "target"])
             for ln in lines for k in keys}
    source_side = {cell: [e for e in es if e["side"] == "source"] for cell, es in by_cell.items()}
    whole = [e for e in shown if e["seg"] is None and version_key(e) in keys]
    return render_template("browse/document.html", b=b, ts=b.ts, doc=doc, lines=lines, keys=keys, cells=cells,
                           source_side=source_side, whole=whole, chosen=chosen, flt=flt,
                           counts=facets(evidence), n_shown=len(shown))


@bp.get("/<int:testset_id>/diff")
@cached_page
def diff(testset_id: int):
    b = browse_context(current_user, testset_id)
    doc = get_document(b.ts, request.args.get("doc", b.ts.documents[0].name if b.ts.documents else ""))
    default = ([str(r["submission_id"]) for r in b.systems] + b.ref_keys)[:2]
    if not default:
        raise NotFound("versions to compare (no system, no reference you may read)")
    a = request.args.get("a") or default[0]
    c = request.args.get("b") or default[-1]
    for key in (a, c):
        if key not in b.names:
            raise ServiceError("invalid_field", f"unknown version {key[:40]!r}: give the id of a system you "
                               "may see, or ref1/ref2 where the references are public", 400,
                               {"field": "a" if key == a else "b"})
    ids = [int(k) for k in (a, c) if is_ascii_int(k)]
    rows = []
    for ln in document_lines(doc, ids):
        left_text, right_text = version_text(ln, a) or "", version_text(ln, c) or ""
        left, right = word_diff(left_text, right_text)
        rows.append({"position": ln["position"], "source": ln["source"], "left": left, "right": right,
                     "same": left_text == right_text, "similarity": similarity(left_text, right_text)})
    return render_template("browse/diff.html", b=b, ts=b.ts, doc=doc, a=a, c=c, rows=rows, ids=ids)


@bp.get("/<int:testset_id>/spans")
@cached_page
def spans(testset_id: int):
    b = browse_context(current_user, testset_id)
    flt = SpanFilter.from_args(request.args)
    evidence = [e for e in testset_evidence(testset_id) if b.may_see(e)]
    shown = [e for e in evidence if flt.matches(e)]
    texts = _span_texts(b, shown[:MAX_SPANS])
    rows = []
    for e in shown[:MAX_SPANS]:
        text = texts.get((e["document"], version_key(e), e["seg"])) if e["seg"] is not None else None
        if e["side"] == "source" and e["seg"] is not None:
            text = texts.get((e["document"], "source", e["seg"]))
        rows.append({"e": e, "pieces": pieces(text, [e]) if text is not None and e["start"] is not None else None})
    return render_template("browse/spans.html", b=b, ts=b.ts, flt=flt, rows=rows, total=len(shown),
                           limit=MAX_SPANS, counts=facets(shown), all_counts=facets(evidence))


@bp.get("/<int:testset_id>/system/<int:submission_id>")
@cached_page
def system(testset_id: int, submission_id: int):
    b = browse_context(current_user, testset_id)
    sub = get_submission(b.ts, submission_id, b.visible_ids)
    evidence = [e for e in testset_evidence(testset_id) if e.get("submission_id") == sub.id]
    table = document_scores(b.ts, sub, evidence)
    return render_template("browse/system.html", b=b, ts=b.ts, sub=sub, table=table,
                           metric=request.args.get("metric", ""))


# --------------------------------------------------------------------------- helpers


def _chosen_systems(b, requested: list[str]) -> list[int]:
    visible = [r["submission_id"] for r in b.systems]
    ids = [int(x) for x in requested if is_ascii_int(x) and int(x) in visible]
    ids = list(dict.fromkeys(ids))[:MAX_SYSTEMS]
    return ids or visible[:2]


def _span_texts(b, shown: list[dict]) -> dict[tuple[str, str, int], str]:
    """{(document, version key or "source", line): text} for the spans listed."""
    out: dict[tuple[str, str, int], str] = {}
    wanted: dict[str, set[int]] = {}
    for e in shown:
        if e["submission_id"] is not None:
            wanted.setdefault(e["document"], set()).add(e["submission_id"])
        else:
            wanted.setdefault(e["document"], set())
    for name, ids in wanted.items():
        doc = get_document(b.ts, name)
        for ln in document_lines(doc, sorted(ids)):
            out[(name, "source", ln["position"])] = ln["source"]
            for n, ref in enumerate(ln["refs"], 1):
                if f"ref{n}" in b.ref_keys:
                    out[(name, f"ref{n}", ln["position"])] = ref
            for sid, text in ln["outputs"].items():
                out[(name, str(sid), ln["position"])] = text
    return out
