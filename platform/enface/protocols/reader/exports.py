"""The study's answers as JSON Lines (the format humaneval reads) and CSV."""

from __future__ import annotations

import io
import json
from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from scoring import csvsafe

from ...campaigns.models import Assignment, Campaign, CampaignAnnotator, Item
from ...campaigns.services import version_labels
from ...extensions import db
from .design import VERSIONS, chunk_sides, reading_order
from .display import NORMALISATION
from .questions import POST
from .responses import answer_data, live, live_highlights
from .texts import campaign_versions, chunk_texts, item_texts, version_kind


def study_assignments(campaign: Campaign) -> list[Assignment]:
    return list(db.session.scalars(
        select(Assignment).where(Assignment.campaign_id == campaign.id)
        .options(selectinload(Assignment.responses), selectinload(Assignment.annotator),
                 selectinload(Assignment.item).selectinload(Item.document))
        .order_by(Assignment.item_id, Assignment.annotator_id)))


def export_records(campaign: Campaign, *, only_finished_stages: bool = True) -> list[dict]:
    """The JSON Lines records of :mod:`humaneval.export`, campaign versions "1"/"2" (not presentation labels).

    An excerpt record once the reader finished Part 1 of a book, chunk records once they finished
    Part 2, a post record once they answered the final questions (``only_finished_stages``: else
    whatever is saved so far).
    """
    vs = campaign_versions(campaign)
    labels = version_labels(campaign)
    versions = {k: {"label": labels[v.id], "kind": version_kind(v)} for k, v in vs.items()}
    study = campaign.name
    readers = {a.id: reader_label(a) for a in campaign.annotators}
    excerpts, chunks, posts = [], [], []
    for asg in study_assignments(campaign):
        reader = readers.get(asg.annotator_id, f"reader{asg.annotator_id}")
        doc = asg.item.document.name
        if asg.item.seg_start != 0 or asg.item.seg_end != asg.item.document.num_segments:
            doc = f"{doc}:{asg.item.seg_start + 1}-{asg.item.seg_end}"
        found = live(asg)
        done = asg.state == "finished"
        if not only_finished_stages or asg.stage >= 1 or done:
            excerpts.append(_excerpt_record(asg, found, study, doc, reader, versions))
        if not only_finished_stages or asg.stage >= 2 or done:
            chunks.extend(_chunk_records(asg, found, study, doc, reader, versions))
        post = found.get(("post", ""))
        if asg.plan.get("post") and post is not None and (done or not only_finished_stages):
            posts.append({"record": "post", "study": study, "reader": reader,
                          "answers": {q.id: post.data.get(q.id) for q in POST}})
    return excerpts + chunks + posts


def _excerpt_record(asg, found, study, doc, reader, versions) -> dict:
    order = reading_order(asg.plan)              # presentation label -> campaign version
    single = {order[label]: answer_data(found, "single", label) for label in VERSIONS}
    comp = answer_data(found, "compare", "")

    def version_of(choice):
        return order.get(choice) if choice in VERSIONS else choice   # "none" stays

    cont = comp.get("continue_choice")
    cont_version, cont_strength = (cont.split("-", 1) if isinstance(cont, str) and "-" in cont else (None, None))
    times = asg.times or {}
    return {
        "record": "excerpt", "study": study, "document": doc, "reader": reader, "versions": versions,
        "first": asg.plan.get("first", "1"),
        "ratings": {k: {q: single[k].get(q) for q in ("acceptability", "smoothness", "immersion", "continue")}
                    for k in VERSIONS},
        "positive": {k: single[k].get("positive") for k in VERSIONS},
        "negative": {k: single[k].get("negative") for k in VERSIONS},
        "origin_guess": {k: single[k].get("origin") for k in VERSIONS},
        "origin_confidence": {k: single[k].get("origin_confidence") for k in VERSIONS},
        "dialogue": version_of(comp.get("dialogue")),
        "word_choice": version_of(comp.get("word_choice")),
        "continue_choice": {"version": version_of(cont_version), "strength": cont_strength} if cont else None,
        "continue_why": comp.get("continue_why"),
        "ai_version": version_of(comp.get("ai_version")),
        "ai_confidence": comp.get("ai_confidence"),
        "ai_why": comp.get("ai_why"),
        "reading_ms": {order[label]: int(times.get(f"read:{label}", 0)) for label in VERSIONS},
        "flags": [f for f in asg.plan.get("flags", []) if f.get("stage") == "immersive"],
    }


def _chunk_records(asg, found, study, doc, reader, versions) -> list[dict]:
    texts = chunk_texts(asg.plan, item_texts(asg.item))
    hls = defaultdict(list)
    for r in live_highlights(asg):
        hls[int(r.key)].append(r.data)
    out = []
    spans = asg.plan.get("chunks", [])
    for n, chunk in enumerate(texts, 1):
        s, e = spans[n - 1]
        sides = chunk_sides(asg.plan, n)              # T1/T2 -> campaign version
        a = answer_data(found, "chunk", str(n))
        pref = a.get("preference")
        out.append({
            "record": "chunk", "study": study, "document": doc, "reader": reader, "chunk": n - 1,   # from 0
            "versions": versions, "texts": chunk, "displayed": [sides["1"], sides["2"]],
            "preference": sides.get(pref) if pref else None,
            "difficulty": a.get("difficulty"), "justification": a.get("justification"),
            "highlights": [{"version": sides[h["side"]], "start": h["start"], "end": h["end"], "label": h["label"],
                            "text": h["text"]} for h in hls.get(n, [])],
            "normalisation": NORMALISATION,
            "ms": int((asg.times or {}).get(f"chunk:{n}", 0)),
            # the chunk's segments in the test-set document (0-based, end exclusive): metric segment
            # scores average over them (python -m scoring meta, the meta-evaluation page)
            "testset_document": asg.item.document.name,
            "segments": [asg.item.seg_start + s, asg.item.seg_start + e],
        })
    return out


def export_jsonl(campaign: Campaign) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n" for r in export_records(campaign))


CSV_COLUMNS = (
    "record", "study", "document", "reader", "chunk", "version", "version_label", "version_kind", "first",
    "position", "acceptability", "smoothness", "immersion", "continue", "origin_guess", "origin_confidence",
    "positive", "negative", "reading_ms", "dialogue", "word_choice", "continue_version", "continue_strength",
    "continue_why", "ai_version", "ai_confidence", "ai_why", "preference", "difficulty", "justification",
    "good_spans", "poor_spans", "good_text", "poor_text", "chunk_text", "ms")


def export_csv(campaign: Campaign) -> str:
    """One row per excerpt judgment of each version (record "excerpt") and per chunk judgment of each
    version (record "chunk"); per-pair answers (preference, comparison questions) repeat on both rows.
    Versions are campaign versions; ``position`` is 1 if the version was read first (excerpt) or shown
    on the left (chunk), else 2. Highlights: count and texts joined by " | "."""
    buf = io.StringIO()
    w = csvsafe.dict_writer(buf, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in export_records(campaign):
        if r["record"] == "excerpt":
            cont = r["continue_choice"] or {}
            for k in VERSIONS:
                w.writerow({"record": "excerpt", "study": r["study"], "document": r["document"], "reader": r["reader"],
                            "version": k, "version_label": r["versions"][k]["label"],
                            "version_kind": r["versions"][k]["kind"], "first": r["first"],
                            "position": 1 if r["first"] == k else 2, **r["ratings"][k],
                            "origin_guess": r["origin_guess"][k], "origin_confidence": r["origin_confidence"][k],
                            "positive": r["positive"][k], "negative": r["negative"][k],
                            "reading_ms": r["reading_ms"][k], "dialogue": r["dialogue"],
                            "word_choice": r["word_choice"], "continue_version": cont.get("version"),
                            "continue_strength": cont.get("strength"), "continue_why": r["continue_why"],
                            "ai_version": r["ai_version"], "ai_confidence": r["ai_confidence"], "ai_why": r["ai_why"]})
        elif r["record"] == "chunk":
            for k in VERSIONS:
                hs = [h for h in r["highlights"] if h["version"] == k]
                w.writerow({"record": "chunk", "study": r["study"], "document": r["document"], "reader": r["reader"],
                            "chunk": r["chunk"], "version": k, "version_label": r["versions"][k]["label"],
                            "version_kind": r["versions"][k]["kind"], "position": r["displayed"].index(k) + 1,
                            "preference": r["preference"], "difficulty": r["difficulty"],
                            "justification": r["justification"],
                            "good_spans": sum(1 for h in hs if h["label"] == "good"),
                            "poor_spans": sum(1 for h in hs if h["label"] == "poor"),
                            "good_text": " | ".join(h["text"] for h in hs if h["label"] == "good"),
                            "poor_text": " | ".join(h["text"] for h in hs if h["label"] == "poor"),
                            "chunk_text": r["texts"][k], "ms": r["ms"]})
    return buf.getvalue()


def reader_label(annotator: CampaignAnnotator) -> str:
    return f"reader{annotator.position}"
