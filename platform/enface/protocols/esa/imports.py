"""An Appraise score export (an ESA campaign run in Appraise, e.g. WMT24's) imported into an open ESA
campaign of Enface, so that it can be re-analysed here.

The mapping (every problem is refused with the file and line, and nothing is written):

* rows that do not count in Appraise (tutorials, ``#duplicate`` documents) are skipped; a re-submitted
  item keeps its later submission;
* **annotator** -> rater: when every annotator id is one of the campaign's rater labels (``rater1``, ...)
  it is taken as such; otherwise the k-th distinct annotator id, in order of first appearance, is
  ``rater<k>`` (the campaign's k-th annotator);
* **system** -> the campaign's version with that label (a system's name, or ``reference N``);
* **document id** ``<document>#<system>[#bad<n>]`` -> the test set's document ``<document>``;
* **segment**: within one annotator's copy of a document, the item ids in increasing order are the
  lines of that rater's items of that system and document, in order (:mod:`humaneval.esa.segments`):
  Appraise's queue positions and Enface's own export (the item id is the 0-based line) both land on
  the right line;
* ``TGT`` rows fill the rater's item holding that line; ``BAD`` rows fill the rater's attention-check copy
  of it when the campaign built one, and are skipped (and counted) otherwise;
* error spans keep their offsets (inclusive, or ``"missing"``) and severity (``minor``/``major``; spans
  Appraise left ``undecided`` are skipped and counted); each is checked against the campaign's text
  like a span marked on the page;
* the reading time of a segment is ``end - start`` (capped at the core's limit), ``started_ms`` /
  ``ended_ms`` the row's times; every segment of an imported item must have a row, and the item is
  finished.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from humaneval.errors import HumanEvalInputError
from humaneval.esa import ScoreRow, parse_scores
from humaneval.esa.segments import latest, positions, source_document

from ...campaigns.models import Assignment, Campaign, Item, Response
from ...campaigns.services import bad, version_labels
from ...campaigns.services.annotating import MAX_TIME_PER_SEGMENT_MS
from ...extensions import db
from ...models import utcnow
from ...services import ServiceError
from .responses import KIND, MAX_MS, MIN_MS, check_answer
from .texts import bad_plan, segment_texts


def _refuse(path: str, line: int, message: str) -> ServiceError:
    return bad("invalid_scores", f"{path}:{line}: {message}", field="file")


def _raters(rows: list[ScoreRow], campaign: Campaign, path: str) -> dict[str, str]:
    labels = {a.rater for a in campaign.annotators}
    ids = list(dict.fromkeys(r.annotator for r in rows))
    if all(i in labels for i in ids):
        return {i: i for i in ids}
    out = {}
    for k, annotator in enumerate(ids, 1):
        if f"rater{k}" not in labels:
            first = next(r for r in rows if r.annotator == annotator)
            raise _refuse(path, first.line, f"annotator {annotator!r} would be rater{k}, but the campaign has "
                          f"{len(labels)} annotator(s): add annotators first")
        out[annotator] = f"rater{k}"
    return out


def _ms(seconds: float) -> int | None:
    ms = round(seconds * 1000)
    return ms if MIN_MS <= ms <= MAX_MS else None


def import_scores(campaign: Campaign, text: str, *, path: str = "scores.csv") -> dict[str, Any]:
    """Writes the export's answers into the campaign and finishes the items it covers; returns counts."""
    if campaign.state != "open":
        raise bad("bad_transition", f"scores go into an open campaign (this one is {campaign.state})", 409)
    try:
        parsed = parse_scores(text, path)
    except HumanEvalInputError as exc:
        raise bad("invalid_scores", str(exc), field="file") from None
    rows = latest(r for r in parsed.rows if r.counts)
    rows.sort(key=lambda r: r.line)
    raters = _raters(rows, campaign, path)
    versions = {label: vid for vid, label in version_labels(campaign).items()}
    asgs = db.session.scalars(select(Assignment).where(Assignment.campaign_id == campaign.id).options(
        selectinload(Assignment.item).selectinload(Item.document), selectinload(Assignment.annotator),
        selectinload(Assignment.responses))).all()
    holders: dict[tuple[str, int, str, bool], list[Assignment]] = defaultdict(list)
    for a in asgs:
        holders[(a.annotator.rater, a.item.versions[0].version_id, a.item.document.name,
                 bad_plan(a) is not None)].append(a)
    lines_of = {key: sorted(a.item.seg_start + k for a in held for k in range(a.item.num_segments))
                for key, held in holders.items()}
    answers: dict[int, dict[int, tuple[ScoreRow, Any]]] = defaultdict(dict)
    skipped = {"bad_rows": 0, "undecided_spans": 0}
    for row, pos in zip(rows, positions(rows), strict=True):
        vid = versions.get(row.system)
        if vid is None:
            raise _refuse(path, row.line, f"system {row.system!r} is not in this campaign "
                          f"(its systems: {', '.join(sorted(versions))})")
        doc = source_document(row.document)
        key = (raters[row.annotator], vid, doc, row.is_bad)
        lines = lines_of.get(key)
        if not lines:
            if row.is_bad:
                skipped["bad_rows"] += 1
                continue
            raise _refuse(path, row.line, f"no item of {key[0]} holds {row.system} in document {doc!r}")
        if pos >= len(lines):
            raise _refuse(path, row.line, f"{key[0]} has {len(lines)} segment(s) of {row.system} in {doc!r}; "
                          f"this row is segment {pos + 1}")
        line = lines[pos]
        asg = next(a for a in holders[key] if a.item.seg_start <= line < a.item.seg_end)
        if asg.state == "finished" or any(not r.deleted for r in asg.responses):
            raise _refuse(path, row.line, f"{key[0]}'s item {asg.number} is answered already")
        seg = line - asg.item.seg_start
        spans = []
        for s in row.spans:
            if s.severity == "undecided":
                skipped["undecided_spans"] += 1
                continue
            spans.append({"start": "missing" if s.missing else s.start, "end": "missing" if s.missing else s.end,
                          "severity": s.severity})
        data = {"score": row.score, "spans": spans, "started_ms": _ms(row.start_time), "ended_ms": _ms(row.end_time)}
        try:
            answer = check_answer(seg, data, segment_texts(asg)[seg]["target"], read=True)
        except ServiceError as exc:
            raise _refuse(path, row.line, exc.message) from None
        answers[asg.id][seg] = (row, answer)
    by_id = {a.id: a for a in asgs}
    for asg_id, segs in answers.items():
        asg = by_id[asg_id]
        missing = sorted(set(range(asg.item.num_segments)) - set(segs))
        if missing:
            raise bad("invalid_scores", f"{path}: {asg.annotator.rater} has no row for "
                      f"{asg.item.document.name}:{asg.item.seg_start + missing[0] + 1} of "
                      f"{version_labels(campaign).get(asg.item.versions[0].version_id)} (every segment of an "
                      "imported item needs its row)", field="file")
    now = utcnow()
    with db.write():
        for asg_id, segs in answers.items():
            asg = db.session.get(Assignment, asg_id)
            times = {}
            for seg, (row, answer) in segs.items():
                db.session.add(Response(assignment_id=asg.id, uuid=str(uuid.uuid4()), rev=1, stage=0, kind=KIND,
                                        key=str(seg), data=answer.to_json(), created_at=now, updated_at=now))
                times[str(seg)] = int(min(max(row.seconds, 0) * 1000, MAX_TIME_PER_SEGMENT_MS))
            n = asg.item.num_segments
            asg.state, asg.cursor, asg.furthest = "finished", n - 1, n - 1
            asg.times, asg.time_ms = times, sum(times.values())
            asg.started_at = asg.started_at or now
            asg.last_active_at = asg.finished_at = now
    return {"rows": len(rows), "answers": sum(len(s) for s in answers.values()), "assignments": len(answers),
            "skipped": skipped}
