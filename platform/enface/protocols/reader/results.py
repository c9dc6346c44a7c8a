"""Results (through humaneval), progress, and the counterbalanced design shown before and after the start."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from ...campaigns import clock
from ...campaigns.models import Campaign, CampaignAnnotator
from ...campaigns.services import bad, counterbalanced_pairs, version_labels
from ...services import ServiceError
from . import answers as ans
from .design import STAGES, VERSIONS, reading_order
from .exports import export_records, reader_label, study_assignments
from .questions import CHUNK
from .responses import answer_data, immersive_step, live


def results(campaign: Campaign) -> dict[str, Any]:
    from humaneval.export import parse_export
    from humaneval.reader import study_results

    records = export_records(campaign)
    if not records:
        return {"empty": True, "records": {"excerpt": 0, "chunk": 0, "post": 0}}
    export = parse_export([json.dumps(r) for r in records])
    out = study_results(export.study(campaign.name))
    out["empty"] = False
    return out


def readers_of(campaign: Campaign) -> dict[int, CampaignAnnotator]:
    return {a.id: a for a in campaign.annotators}


def progress(campaign: Campaign) -> dict[str, Any]:
    """Per reader and book: stage, lock, reading times, flags; per stage counts."""
    rows = []
    counts = {"immersive": 0, "locked": 0, "close": 0, "post": 0, "finished": 0}
    now = clock.now()
    for asg in study_assignments(campaign):
        found = live(asg)
        if asg.state == "finished":
            where = "finished"
        elif asg.opens_at is not None and now < asg.opens_at:
            where = "locked"
        else:
            where = STAGES[min(asg.stage, 2)]
        counts[where] += 1
        times = asg.times or {}
        order = reading_order(asg.plan)
        n_chunks = len(asg.plan.get("chunks", []))
        done_chunks = sum(1 for n in range(1, n_chunks + 1)
                          if not ans.missing_answers(CHUNK, answer_data(found, "chunk", str(n))))
        rows.append({
            "assignment": asg, "reader": asg.annotator, "book": asg.number, "item": asg.item,
            "where": where, "step": immersive_step(found), "opens_at": asg.opens_at,
            "first": asg.plan.get("first"), "read_ms": {order[label]: times.get(f"read:{label}", 0)
                                                        for label in VERSIONS},
            "chunks": n_chunks, "chunks_done": done_chunks,
            "close_ms": sum(v for k, v in times.items() if k.startswith("chunk:")),
            "flags": asg.plan.get("flags", []), "last_active_at": asg.last_active_at,
        })
    rows.sort(key=lambda r: (r["reader"].position, r["book"]))
    return {"rows": rows, "counts": counts, "total": len(rows)}




def plan_preview(campaign: Campaign, protocol) -> dict[str, Any]:
    """The counterbalanced design the start would make with today's readers and documents (drafts only)."""
    labels = version_labels(campaign)
    out: dict[str, Any] = {"error": None, "readers": [], "documents": [],
                           "versions": {k: labels.get(v.id, "?") for k, v in
                                        zip(VERSIONS, campaign.versions)}}
    try:
        items = protocol.build_items(campaign)
        slots = design_slots(campaign, items, list(campaign.annotators))
    except ServiceError as exc:
        out["error"] = exc.message
        return out
    annotators = readers_of(campaign)
    docs = {d.id: d.name for d in campaign.testset.documents}
    names = [f"{docs[p.document_id]}:{p.seg_start + 1}-{p.seg_end}" for p in items]
    by_reader: dict[str, list] = defaultdict(list)
    by_doc: dict[int, list] = defaultdict(list)
    for reader, doc, first in slots:
        a = annotators[int(reader)]
        by_reader[reader].append({"document": names[int(doc)], "first": str(first)})
        by_doc[int(doc)].append({"reader": reader_label(a), "name": a.user.display_name, "first": str(first)})
    out["readers"] = [{"reader": reader_label(a), "name": a.user.display_name, "books": by_reader.get(str(a.id), [])}
                      for a in campaign.annotators]
    out["documents"] = [{"document": names[i], "readers": by_doc.get(i, [])} for i in range(len(items))]
    return out


def design_table(campaign: Campaign) -> list[dict[str, Any]]:
    """After the start: per document, its readers with the version each read first and their book number."""
    by_item: dict[int, dict] = {}
    for asg in study_assignments(campaign):
        row = by_item.setdefault(asg.item_id, {"item": asg.item, "readers": []})
        row["readers"].append({"reader": reader_label(asg.annotator), "name": asg.annotator.user.display_name,
                               "first": asg.plan.get("first"), "book": asg.number,
                               "chunks": len(asg.plan.get("chunks", []))})
    return [by_item[k] for k in sorted(by_item, key=lambda k: by_item[k]["item"].position)]


def design_slots(campaign: Campaign, items: list, annotators: list[Any]) -> list[tuple[str, str, int]]:
    """(annotator id, item index, first version) triples: the core's counterbalanced pairs with the study's
    readers per document and documents per reader."""
    if not annotators:
        raise bad("too_few_annotators", "the study has no readers yet: invite or add some first", 409)
    pairs = counterbalanced_pairs(campaign, items, annotators, int(campaign.setting("readers_per_document", 2)),
                                  int(campaign.setting("documents_per_reader", 2)))
    return [(str(a), str(i), first) for i, a, first in pairs]
