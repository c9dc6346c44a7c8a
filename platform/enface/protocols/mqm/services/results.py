"""MQM results through the mqm library: the campaign as MQMData, scores and ranking, exports, progress, leaderboard."""

from __future__ import annotations

import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

import mqm
from mqm.agreement import segment_alpha as mqm_segment_alpha
from mqm.scores import grouped as mqm_grouped
from mqm.scores import ranked as mqm_ranked

from ....campaigns import reading
from ....campaigns.models import Assignment, Campaign, CampaignAnnotator, Item
from ....campaigns.services import system_labels, version_labels
from ....campaigns.services.ranking import official_ranking
from ....extensions import db
from ....models import TestSet
from ....services.testsets import scoring_testset
from .marks import attention_found
from .scheme import get_scheme, scheme_name, significance_unit, word_counter, words_per_second
from .texts import item_outputs, output_key, slice_outputs


def _global_offsets(ts: TestSet) -> dict[int, int]:
    offsets, total = {}, 0
    for d in sorted(ts.documents, key=lambda d: d.position):
        offsets[d.id] = total
        total += d.num_segments
    return offsets


@dataclass
class CampaignRows:
    """What the results, the exports and the progress of a campaign read, loaded once (:func:`load_rows`)."""

    labels: dict[int, str]            # system_labels()
    items: list[Item]                 # by position, with their documents
    assignments: list[Assignment]     # with their marks, annotators and the annotators' accounts
    versions: dict[int, str] = field(default_factory=dict)   # version_labels(): systems and "reference N"

    def system(self, item: Item) -> str:
        """The name of what ``item`` evaluates, in results and exports: its system, or "reference N"."""
        return self.versions.get(item.versions[0].version_id, "?") if item.versions else "?"


def load_rows(campaign: Campaign) -> CampaignRows:
    """Three queries' worth (and their eager loads): pass the result to the functions below to share it."""
    items = db.session.scalars(select(Item).options(selectinload(Item.document), selectinload(Item.versions))
                               .where(Item.campaign_id == campaign.id).order_by(Item.position)).all()
    asgs = db.session.scalars(select(Assignment).options(selectinload(Assignment.marks),
                                                         selectinload(Assignment.attention),
                                                         selectinload(Assignment.annotator)
                                                         .selectinload(CampaignAnnotator.user))
                              .where(Assignment.campaign_id == campaign.id)).all()
    return CampaignRows(labels=system_labels(campaign), items=list(items), assignments=list(asgs),
                        versions=version_labels(campaign))


def build_data(campaign: Campaign, *, doc: str | None = None, only_finished: bool = True,
               rows: CampaignRows | None = None) -> mqm.MQMData:
    """The campaign's annotations as an :class:`mqm.MQMData` (raters by anonymous label).

    A finished assignment judges every segment of its item: its marks become
    error rows, an unmarked segment a ``No-error`` row, and the attention-check
    segment a ``HOTW-test`` row (``Found``/``Missed``) instead, since its target
    was corrupted on purpose. Unfinished assignments are left out unless
    ``only_finished`` is False (then the segments read so far count).
    """
    rows = rows if rows is not None else load_rows(campaign)
    offsets = _global_offsets(campaign.testset)
    sources = {d.name: d.source for d in scoring_testset(campaign.testset).documents}
    outputs = item_outputs(campaign.id)
    data = mqm.MQMData(path=f"campaign {campaign.id}")
    by_item: dict[int, list[Assignment]] = defaultdict(list)
    for a in rows.assignments:
        by_item[a.item_id].append(a)
    line = 1
    for item in rows.items:
        if doc is not None and item.document.name != doc:
            continue
        system = rows.system(item)
        src = sources[item.document.name][item.seg_start:item.seg_end]
        tgt = slice_outputs(outputs.get(output_key(item), {}), item.seg_start, item.seg_end)
        keys = []
        for k, (s, t) in enumerate(zip(src, tgt)):
            pos = item.seg_start + k
            seg = mqm.Segment(system=system, doc=item.document.name, doc_seg_id=str(pos + 1),
                              global_seg_id=str(offsets[item.document_id] + pos + 1), source=s, target=t)
            data.segments[seg.key] = seg
            keys.append(seg)
        for a in sorted(by_item[item.id], key=lambda a: a.annotator.position):
            if only_finished and a.state != "finished":
                continue
            judged = len(keys) if a.state == "finished" else a.furthest + 1
            rater = a.annotator.rater
            live = [m for m in a.marks if not m.deleted]
            for k, seg in enumerate(keys[:judged]):
                common = dict(system=system, doc=seg.doc, doc_seg_id=seg.doc_seg_id, seg_id=seg.global_seg_id,
                              rater=rater)
                if a.attention is not None and k == a.attention.seg:
                    result = a.attention.result or ("found" if attention_found(a, live) else "missed")
                    line += 1
                    data.attention_checks.append(mqm.AttentionCheck(result=result.capitalize(), line=line, **common))
                    continue
                ms = sorted((m for m in live if m.seg == k), key=lambda m: (m.side != "target", m.start_pos, m.id))
                if not ms:
                    line += 1
                    data.no_errors.append(mqm.NoError(line=line, **common))
                for m in ms:
                    line += 1
                    data.errors.append(mqm.Error(side=m.side, start=m.start_pos, end=m.end_pos, text=m.text,
                                                 category=m.category, subcategory=m.subcategory,
                                                 severity=m.severity, note=m.note, line=line, **common))
    data.header = list(mqm.tsv.DEFAULT_HEADER) + ["comment"]
    return data


def export_tsv(campaign: Campaign) -> str:
    return mqm.format_tsv(build_data(campaign))


def export_json(campaign: Campaign) -> str:
    return mqm.jsonio.dumps(build_data(campaign))


def _round(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


def _agreement(p: mqm.scores.Prepared) -> dict:
    """:func:`mqm.agreement` (the same object) from data prepared already."""
    scheme = p.scheme
    out = {"scheme": scheme.name, "higher_is_better": scheme.higher_is_better, "source_words_method": p.words_method}
    out.update(mqm.agreement_from_table(mqm.annotator_table(p)))
    out["krippendorff_alpha_segments"] = mqm_segment_alpha(p)
    return out


def compute_results(campaign: Campaign, *, doc: str | None = None, rows: CampaignRows | None = None,
                    with_agreement: bool = True) -> dict:
    """Scores, the human ranking with Wilcoxon clusters, agreement and error counts, from the mqm library.

    The annotations are prepared once (:func:`mqm.prepare`) for all of them. ``with_agreement``
    False leaves ``agreement`` None (the release does not keep it).
    """
    rows = rows if rows is not None else load_rows(campaign)
    data = build_data(campaign, doc=doc, rows=rows)
    scheme = get_scheme(scheme_name(campaign))
    hib = scheme.higher_is_better
    words = word_counter(campaign)
    labels = rows.labels
    subs = {cs.submission_id: cs.submission for cs in campaign.systems}
    label_to_sub = {labels[sid]: sid for sid in labels}
    out: dict[str, Any] = {"scheme": scheme.name, "higher_is_better": hib,
                           "unit": significance_unit(campaign), "doc": doc, "systems": {}, "order": [],
                           "ranking": None, "agreement": None, "errors": {},
                           "raters": data.raters, "attention": data.attention_summary()}
    if not data.errors and not data.no_errors:
        out["source_words_method"] = words.method
        return out
    prepared = mqm.prepare(data, scheme, words)
    scores = mqm_grouped(prepared, "system")          # = mqm.score(data, scheme, words=words)["scores"]
    out["source_words_method"] = prepared.words_method
    for system, row in scores.items():
        sid = label_to_sub.get(system)
        sub = subs.get(sid)
        out["systems"][system] = {"submission_id": sid, "score": row["score"], "segments": row["segments"],
                                  "source_words": row["source_words"], "errors": row["errors"],
                                  "group": sub.group if sub else "reference" if sid is None else "contrastive",
                                  "team": sub.owner_name if sub else "", "constrained": sub.constrained if sub else True}
    # all systems best first, those without a score last
    out["order"] = mqm_ranked(scores, hib)
    unit = significance_unit(campaign)
    out["ranking"] = official_ranking(campaign, mqm.unit_scores(prepared, unit),
                                      scores={s: r["score"] for s, r in scores.items()}, higher_is_better=hib,
                                      unit=unit, name="MQM")
    by_rater = mqm_grouped(prepared, "rater")
    out["by_rater"] = {s: {r: row["score"] for r, row in raters.items()} for s, raters in by_rater.items()}
    if with_agreement and len(data.raters) >= 2:
        with warnings.catch_warnings():
            # krippendorff divides 0 by 0 when no unit has two raters (alpha is then None anyway)
            warnings.simplefilter("ignore", RuntimeWarning)
            out["agreement"] = _agreement(prepared)
    out["errors"] = mqm.error_counts(data, scheme)
    return out


def error_results(campaign: Campaign) -> dict:
    """The part of :func:`compute_results` that :func:`error_chart` reads (``errors``, each system's
    ``group``), from the error counts alone: nothing is scored."""
    rows = load_rows(campaign)
    data = build_data(campaign, rows=rows)
    return {"errors": mqm.error_counts(data, get_scheme(scheme_name(campaign))),
            "systems": {**{rows.labels[cs.submission_id]: {"group": cs.submission.group} for cs in campaign.systems},
                        **{rows.versions[v.id]: {"group": "reference"} for v in campaign.versions if v.is_reference}}}


def results_for(campaign: Campaign, organizer: bool = False, *, errors_only: bool = False) -> dict:
    """What a results page shows: a released campaign's frozen snapshot, else the live results.

    Organizers see the live results of a released campaign too (``organizer``: their
    dashboard's chart); the public results pages pass False and show them the snapshot.
    ``errors_only``: live results for :func:`error_chart` only (:func:`error_results`).
    """
    if campaign.state == "released" and not organizer:
        return campaign.results
    return error_results(campaign) if errors_only else compute_results(campaign)


def progress(campaign: Campaign, rows: CampaignRows | None = None) -> dict:
    """Per annotator and per item: status, segments read, marks, time spent, attention checks."""
    rows = rows if rows is not None else load_rows(campaign)
    per_ann: dict[int, dict] = {}
    for ann in campaign.annotators:
        per_ann[ann.id] = {"annotator": ann, "rater": ann.rater, "user": ann.user, "items": 0, "finished": 0,
                           "started": 0, "segments": 0, "read": 0, "marks": 0, "time_ms": 0, "found": 0,
                           "missed": 0, "pending_checks": 0, "last_active": None, "pace": None}
    pace_samples: dict[int, list[tuple[float, float]]] = {ann.id: [] for ann in campaign.annotators}
    per_item: dict[int, dict] = {}
    for item in rows.items:
        per_item[item.id] = {"item": item, "system": rows.system(item),
                             "range": f"{item.document.name}:{item.seg_start + 1}-{item.seg_end}",
                             "assignments": []}
    for a in sorted(rows.assignments, key=lambda a: (a.annotator.position, a.number)):
        p = per_ann[a.annotator_id]
        n = a.item.num_segments
        live = [m for m in a.marks if not m.deleted]
        p["items"] += 1
        p["segments"] += n
        p["read"] += min(a.furthest + 1, n)
        p["marks"] += len(live)
        p["time_ms"] += a.time_ms
        pace_samples[a.annotator_id].append((a.time_ms, a.item.source_words * min(a.furthest + 1, n) / max(n, 1)))
        p["finished"] += a.finished
        p["started"] += a.state == "started"
        if a.last_active_at and (p["last_active"] is None or a.last_active_at > p["last_active"]):
            p["last_active"] = a.last_active_at
        if a.attention is not None:
            result = a.attention.result
            if result is None:
                p["pending_checks"] += 1
            else:
                p[result] += 1
        per_item[a.item_id]["assignments"].append(
            {"assignment": a, "rater": a.annotator.rater, "state": a.state, "read": min(a.furthest + 1, n),
             "segments": n, "marks": len(live), "time_ms": a.time_ms, "attention": a.attention.result
             if a.attention is not None else None, "has_check": a.attention is not None})
    for it in per_item.values():   # (the dashboard folds a document whose items are all finished)
        it["finished"] = bool(it["assignments"]) and all(a["state"] == "finished" for a in it["assignments"])
    for ann_id, pace in reading.pace_outliers(pace_samples).items():
        per_ann[ann_id]["pace"] = pace
    total = sum(p["items"] for p in per_ann.values())
    done = sum(p["finished"] for p in per_ann.values())
    return {"annotators": list(per_ann.values()), "items": list(per_item.values()), "total": total, "finished": done,
            "reading": {"words_per_second": words_per_second(campaign), "factor": reading.PACE_FACTOR,
                        "min_words": reading.PACE_MIN_WORDS}}


def leaderboard_mqm(camp: Campaign) -> dict | None:
    """The official human ranking of a released campaign, for its test set's leaderboard.

    ``{"campaign": {...}, "higher_is_better", "by_submission": {id: {score, rank, rank_range, cluster, kind}},
    "ranking": official_ranking(...)}``: all systems ranked together. A snapshot released before the
    cross-group ranking existed keeps what it showed then (:func:`_legacy_leaderboard`: rankings within
    each group, no ``ranking``) until the campaign is released again.
    """
    res = camp.results
    ranking = res.get("ranking")
    if not ranking:
        return _legacy_leaderboard(camp)
    by_sub = {int(r["submission_id"]): {"score": r["score"], "rank": r["rank"], "rank_range": r["rank_range"],
                                        "cluster": r["cluster"], "kind": r["kind"], "group": r["kind"]}
              for r in ranking["rows"] if r.get("submission_id") is not None}
    return {"campaign": _campaign_info(camp), "higher_is_better": res.get("higher_is_better", True),
            "source_words_method": res.get("source_words_method"), "unit": significance_unit(camp),
            "by_submission": by_sub, "ranking": ranking}


def _campaign_info(camp: Campaign) -> dict:
    return {"id": camp.id, "name": camp.name, "scheme": scheme_name(camp),
            "released_at": camp.released_at.isoformat() if camp.released_at else None}


def _legacy_leaderboard(camp: Campaign) -> dict:
    """A snapshot of the per-group rankings (released before issue 10), as the leaderboard showed it then."""
    res = camp.results
    by_sub = {}
    for group in res.get("groups", []):
        for row in group["rows"]:
            if row.get("submission_id") is not None:
                by_sub[int(row["submission_id"])] = {"score": row["score"], "rank": row["rank"],
                                                     "rank_range": row["rank_range"], "cluster": row["cluster"],
                                                     "group": group["key"]}
    return {"campaign": _campaign_info(camp), "higher_is_better": res.get("higher_is_better", True),
            "source_words_method": res.get("source_words_method"), "unit": significance_unit(camp),
            "by_submission": by_sub, "groups": res.get("groups", [])}
