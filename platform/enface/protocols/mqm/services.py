"""MQM on the campaign core: the scheme the page shows, marks, attention checks, results, exports, charts.

Scores, agreement, error counts, significance and the TSV format all come from the
:mod:`mqm` library, fed with an :class:`mqm.MQMData` built from the database by
:func:`build_data`; nothing here re-implements them.

Blindness: :func:`item_state` and :meth:`Mark.to_json` are the only things an
annotator receives. They hold the item's opaque id, its per-annotator number,
the document name and texts, and the annotator's own marks; never a system,
team or submission.
"""

from __future__ import annotations

import threading
import warnings
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from flask import url_for
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

import mqm
from mqm.agreement import segment_alpha as mqm_segment_alpha
from mqm.scores import grouped as mqm_grouped
from mqm.scores import ranked as mqm_ranked
from mqm.words import MODES as WORD_MODES

from ...campaigns import logic, reading
from ...campaigns.models import Assignment, Campaign, CampaignAnnotator, CampaignVersion, Item, ItemVersion
from ...campaigns.services import (
    GROUPS,
    UUID_RE,
    annotation_write,
    bad,
    check_writable,
    get_assignment,
    int_field,
    lock_assignment,
    next_assignment,
    str_field,
    system_labels,
    testset_docs,
    touch,
)
from ...extensions import db
from ...models import OutputSegment, Segment, TestSet, User, utcnow
from ...services.testsets import scoring_testset
from .models import Mark

MAX_NOTE = 2000


def scheme_name(campaign: Campaign) -> str:
    return campaign.setting("scheme", mqm.DEFAULT_SCHEME)


def significance_unit(campaign: Campaign) -> str:
    return campaign.setting("significance_unit", "segment")


@lru_cache(maxsize=16)
def get_scheme(name: str) -> mqm.Scheme:
    return mqm.load_scheme(name)


def non_translation_severity(scheme: mqm.Scheme) -> str:
    """The severity a whole-segment Non-translation mark gets: the heaviest one of the scheme.

    (google-mqm weighs Non-translation 25 by a rule whatever the severity; in
    wmt23-literary the heaviest severity, Critical, is 25 too.)
    """
    return max(scheme.severities, key=lambda s: s.weight).name


@lru_cache(maxsize=16)
def scheme_for_annotators(name: str) -> dict:
    """What the annotation page needs: categories with definitions, severities, and their order.

    Cached per scheme name (schemes are files that do not change while the server runs): treat it as read-only.
    """
    scheme = get_scheme(name)
    d = scheme.to_dict()
    # ranks for colours: 0 neutral (weight 0), then 1, 2, 3 by increasing weight (minor, major, critical)
    nonzero = sorted({s.weight for s in scheme.severities if s.weight > 0})
    severities = [{"name": s.name, "description": s.description, "short": s.short,
                   "rank": 0 if s.weight == 0 else min(3, nonzero.index(s.weight) + 1)}
                  for s in scheme.severities]
    omission = None
    for c in scheme.categories:
        for sub in c.subcategories:
            if sub.name.lower().startswith("omission"):
                omission = {"category": c.name, "subcategory": sub.name}
                break
        if omission:
            break
    return {"name": scheme.name, "title": scheme.title, "higher_is_better": scheme.higher_is_better,
            "categories": [c for c in d["categories"]], "severities": severities,
            "non_translation": {"category": mqm.model.NON_TRANSLATION, "severity": non_translation_severity(scheme)},
            "omission": omission}


def word_counter(campaign: Campaign) -> mqm.WordCounter:
    return mqm.WordCounter(campaign.setting("source_words", "auto"), lang=campaign.testset.src_lang)


_WORDS: dict[tuple, tuple[list[dict], str]] = {}


_WORDS_LOCK = threading.Lock()


def document_words(ts: TestSet, mode: str) -> tuple[list[dict], str]:
    """``[{name, segments, words}]`` per document, and the counting method; cached per test set and mode.

    (A test set's sources never change: the key holds its fingerprint all the same.)
    """
    mode = mode if mode in WORD_MODES else "auto"
    key = (ts.id, ts.fingerprint, ts.src_lang, mode)
    hit = _WORDS.get(key)
    if hit is None:
        counter = mqm.WordCounter(mode, lang=ts.src_lang)
        rows = [{"name": d.name, "segments": len(d.sources), "words": sum(counter(s) for s in d.sources)}
                for d in testset_docs(ts)]
        hit = (rows, counter.method)
        with _WORDS_LOCK:
            _WORDS[key] = hit
            while len(_WORDS) > 64:
                _WORDS.pop(next(iter(_WORDS)))
    return [dict(r) for r in hit[0]], hit[1]


def output_texts(sub_id: int, doc_id: int, start: int, end: int) -> list[str]:
    rows = db.session.execute(select(OutputSegment.position, OutputSegment.text)
                              .where(OutputSegment.submission_id == sub_id, OutputSegment.document_id == doc_id,
                                     OutputSegment.position >= start, OutputSegment.position < end)
                              .order_by(OutputSegment.position)).all()
    return [t for _p, t in rows] if [p for p, _t in rows] == list(range(start, end)) else []


def _item_outputs(campaign_id: int) -> dict[tuple[int, int], dict[int, str]]:
    """{(submission id, document id): {position: text}}: the output segments of every item, in one query."""
    rows = db.session.execute(
        select(OutputSegment.submission_id, OutputSegment.document_id, OutputSegment.position, OutputSegment.text)
        .join(CampaignVersion, CampaignVersion.submission_id == OutputSegment.submission_id)
        .join(ItemVersion, ItemVersion.version_id == CampaignVersion.id)
        .join(Item, (Item.id == ItemVersion.item_id) & (Item.document_id == OutputSegment.document_id)
              & (OutputSegment.position >= Item.seg_start) & (OutputSegment.position < Item.seg_end))
        .where(Item.campaign_id == campaign_id))
    out: dict[tuple[int, int], dict[int, str]] = defaultdict(dict)
    for sub_id, doc_id, pos, text in rows:
        out[(sub_id, doc_id)][pos] = text
    return out


def _slice_outputs(texts: dict[int, str], start: int, end: int) -> list[str]:
    """Segments ``start`` .. ``end - 1`` of one output, or [] when one is missing (as :func:`_output_texts`)."""
    if any(p not in texts for p in range(start, end)):
        return []
    return [texts[p] for p in range(start, end)]


def segment_texts(asg: Assignment) -> list[dict]:
    """The item's segments as the annotator sees them (the attention check's corrupted target included).

    They never change once the campaign has started, so they are cached per assignment
    (by its public id, which is random and never reused): a save then reads no text.
    """
    key = (asg.public_id, asg.item_id)   # (an attention check is fixed at the start: no need to read it here)
    hit = _TEXTS.get(key)
    if hit is not None:
        return hit
    out = _segment_texts(asg)
    with _TEXTS_LOCK:
        _TEXTS[key] = out
        while len(_TEXTS) > 4096:
            _TEXTS.pop(next(iter(_TEXTS)))
    return out


_TEXTS: dict[tuple, list[dict]] = {}


_TEXTS_LOCK = threading.Lock()


def _segment_texts(asg: Assignment) -> list[dict]:
    item = asg.item
    check = asg.attention
    src = db.session.execute(select(Segment.position, Segment.source)
                             .where(Segment.document_id == item.document_id, Segment.position >= item.seg_start,
                                    Segment.position < item.seg_end).order_by(Segment.position)).all()
    tgt = output_texts(item.submission_id, item.document_id, item.seg_start, item.seg_end)
    out = []
    for k, ((pos, source), target) in enumerate(zip(src, tgt)):
        if check is not None and check.seg == k:
            target = check.text
        out.append({"i": k, "label": pos + 1, "source": source, "target": target})
    return out


def item_state(asg: Assignment, *, readonly: bool = False) -> dict:
    """Everything the annotation page needs, and nothing that names the system."""
    item = asg.item
    campaign = item.campaign
    ts = campaign.testset
    segs = segment_texts(asg)
    scheme = get_scheme(scheme_name(campaign))
    total = db.session.scalar(select(func.count()).select_from(Assignment)
                              .where(Assignment.annotator_id == asg.annotator_id))
    nxt = next_assignment(asg)
    return {
        "item": {"id": asg.public_id, "number": asg.number, "total": total, "campaign": campaign.name,
                 "instructions": campaign.instructions,
                 "document": item.document.name, "first": item.seg_start + 1, "last": item.seg_end,
                 "finished": asg.finished, "locked": asg.finished or campaign.state != "open",
                 "state": asg.state,
                 "src_lang": ts.src_lang, "tgt_lang": ts.tgt_lang,
                 "src_dir": logic.text_direction(ts.src_lang, (s["source"] for s in segs[:5])),
                 "tgt_dir": logic.text_direction(ts.tgt_lang, (s["target"] for s in segs[:5]))},
        "segments": segs,
        "marks": [m.to_json() for m in asg.marks],
        "cursor": min(max(asg.cursor, 0), max(len(segs) - 1, 0)),
        "furthest": asg.furthest,
        "times": asg.times or {},
        "dwell_ms": reading.segment_dwell_ms(segs, words_per_second(campaign)),
        "words_per_second": words_per_second(campaign),
        "scheme": scheme_for_annotators(scheme.name),
        "readonly": readonly or campaign.state != "open",
        "urls": {"api": url_for("annotate.api_item", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt is not None else None},
    }


def validate_mark(asg: Assignment, body: Any, segs: list[dict]) -> dict:
    """The checked fields of a mark, or a 400 that names the field and the problem."""
    if not isinstance(body, dict):
        raise bad("invalid_json", "the request body must be a JSON object")
    rev = int_field(body, "rev")
    if not 1 <= rev <= 10**9:
        raise bad("invalid_field", "rev must be a positive integer", field="rev")
    seg = int_field(body, "seg")
    if not 0 <= seg < len(segs):
        raise bad("bad_segment", f"segment {seg} is not in this item (0-{len(segs) - 1})", field="seg")
    side = body.get("side", "target")
    if side not in ("target", "source"):
        raise bad("invalid_field", "side must be 'target' or 'source'", field="side")
    text = segs[seg][side]
    length = len(text)
    start, end = int_field(body, "start"), int_field(body, "end")
    if not 0 <= start < end <= length:
        raise bad("bad_span", f"span [{start}, {end}) does not fit the {side} of segment {seg} "
                  f"(length {length}; a span needs 0 <= start < end <= length)", field="start")
    given = body.get("text")
    if given is not None and given != text[start:end]:
        raise bad("bad_span", f"text {given!r} is not what the span marks ({text[start:end]!r})", field="text")
    scheme = get_scheme(scheme_name(asg.item.campaign))
    category = str_field(body, "category").strip()
    subcategory = str_field(body, "subcategory", required=False).strip()
    severity_name = str_field(body, "severity").strip()
    severity = scheme.severity(severity_name)
    if severity is None:
        raise bad("unknown_severity", f"unknown severity {severity_name!r} (this campaign's scheme "
                  f"{scheme.name} has: {', '.join(scheme.severity_names)})", field="severity")
    if category == mqm.model.NON_TRANSLATION:
        if side != "target" or start != 0 or end != length or subcategory:
            raise bad("bad_span", "a Non-translation mark covers the whole translation of its segment",
                      field="category")
    else:
        cat = next((c for c in scheme.categories if c.name == category), None)
        if cat is None:
            raise bad("unknown_category", f"unknown category {category!r} (known: "
                      f"{', '.join(c.name for c in scheme.categories)})", field="category")
        if cat.subcategories:
            if subcategory not in {s.name for s in cat.subcategories}:
                raise bad("unknown_category", f"{category} needs one of these subcategories: "
                          f"{', '.join(s.name for s in cat.subcategories)} (not {subcategory!r})",
                          field="subcategory")
        elif subcategory:
            raise bad("unknown_category", f"{category} has no subcategories (got {subcategory!r})",
                      field="subcategory")
        sides = scheme.sides_for(category, subcategory)
        if side not in sides:
            raise bad("wrong_side", f"{category}{'/' + subcategory if subcategory else ''} is marked on the "
                      f"{' or '.join(sides)}, not on the {side} (scheme {scheme.name})", field="side")
    note = str_field(body, "note", required=False, max_len=MAX_NOTE).strip()
    if "\t" in note or "\x00" in note:
        raise bad("invalid_field", "the note cannot contain tabs or NUL characters", field="note")
    note = note.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return {"rev": rev, "seg": seg, "side": side, "start_pos": start, "end_pos": end, "text": text[start:end],
            "category": category, "subcategory": subcategory, "severity": severity.name, "note": note}


def save_mark(user: User, public_id: str, uuid: str, body: Any) -> tuple[dict, bool]:
    """Creates or updates mark ``uuid`` (idempotent). Returns (mark, changed).

    A request whose ``rev`` is not newer than the stored one changes nothing and
    returns the stored mark: a retried or replayed request is harmless, and the
    same UUID sent twice makes one mark.
    """
    if not isinstance(uuid, str) or not UUID_RE.match(uuid):
        raise bad("invalid_field", "the mark id must be a UUID", field="uuid")
    uuid = uuid.lower()
    asg = get_assignment(user, public_id, write=True)
    fields = validate_mark(asg, body, segment_texts(asg))
    for _attempt in range(3):
        try:
            with annotation_write():
                asg, campaign_state = lock_assignment(asg.id)
                check_writable(asg, campaign_state)
                mark = db.session.scalar(select(Mark).where(Mark.assignment_id == asg.id, Mark.uuid == uuid))
                if mark is not None and fields["rev"] <= mark.rev:
                    return mark.to_json(), False
                now = utcnow()
                if mark is None:
                    mark = Mark(assignment_id=asg.id, uuid=uuid, created_at=now, **fields)
                    db.session.add(mark)
                else:
                    for key, value in fields.items():
                        setattr(mark, key, value)
                    mark.deleted = False
                mark.updated_at = now
                touch(asg)
                db.session.flush()
                out = mark.to_json()
            return out, True
        except IntegrityError:
            continue   # the same new UUID raced in twice (PostgreSQL): the loser re-reads it
    raise bad("busy", "could not save the mark, try again", 409)


def delete_mark(user: User, public_id: str, uuid: str, body: Any) -> dict:
    if not isinstance(uuid, str) or not UUID_RE.match(uuid):
        raise bad("invalid_field", "the mark id must be a UUID", field="uuid")
    uuid = uuid.lower()
    body = body if isinstance(body, dict) else {}
    asg = get_assignment(user, public_id, write=True)
    with annotation_write():
        asg, campaign_state = lock_assignment(asg.id)
        check_writable(asg, campaign_state)
        mark = db.session.scalar(select(Mark).where(Mark.assignment_id == asg.id, Mark.uuid == uuid))
        if mark is None:
            return {"uuid": uuid, "deleted": True, "known": False}
        rev = body.get("rev", mark.rev + 1)
        if isinstance(rev, bool) or not isinstance(rev, int) or rev < 1:
            raise bad("invalid_field", "rev must be a positive integer", field="rev")
        if rev > mark.rev:
            mark.deleted = True
            mark.rev = rev
            mark.updated_at = utcnow()
            touch(asg)
        return mark.to_json()


def words_per_second(campaign: Campaign) -> float:
    return campaign.setting("words_per_second", reading.DEFAULT_WORDS_PER_SECOND)


def furthest_clipper(asg: Assignment):
    """A segment counts as read after its minimum dwell time: never further than the first one read too fast."""
    dwell = reading.segment_dwell_ms(segment_texts(asg), words_per_second(asg.item.campaign))
    return lambda furthest, times: reading.clip_furthest(furthest, times, dwell)


def check_read(asg: Assignment) -> None:
    """Refuses to finish before every segment has been read, each for at least its dwell time."""
    segs = segment_texts(asg)
    n = asg.item.num_segments
    dwell = reading.segment_dwell_ms(segs, words_per_second(asg.item.campaign))
    unread = reading.unread_segments(asg.times or {}, dwell)
    if unread:
        raise bad("not_read", f"read every segment before finishing: {len(unread)} of {n} not read yet, or "
                  f"read too fast (segment {reading.describe_segments(unread, [s['label'] for s in segs])})",
                  409, read=n - len(unread), segments=n, unread=unread)
    asg.furthest = n - 1


def attention_found(asg: Assignment, marks: list[Mark] | None = None) -> bool | None:
    """Whether a live mark on the check's segment overlaps the injected span (None: no check)."""
    check = asg.attention
    if check is None:
        return None
    span = (check.start_pos, check.end_pos)
    for m in marks if marks is not None else asg.marks:
        if (not m.deleted and m.seg == check.seg and m.side == "target"
                and logic.overlaps((m.start_pos, m.end_pos), span)):
            return True
    return False


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


def load_rows(campaign: Campaign) -> CampaignRows:
    """Three queries' worth (and their eager loads): pass the result to the functions below to share it."""
    items = db.session.scalars(select(Item).options(selectinload(Item.document), selectinload(Item.versions))
                               .where(Item.campaign_id == campaign.id).order_by(Item.position)).all()
    asgs = db.session.scalars(select(Assignment).options(selectinload(Assignment.marks),
                                                         selectinload(Assignment.attention),
                                                         selectinload(Assignment.annotator)
                                                         .selectinload(CampaignAnnotator.user))
                              .where(Assignment.campaign_id == campaign.id)).all()
    return CampaignRows(labels=system_labels(campaign), items=list(items), assignments=list(asgs))


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
    labels = rows.labels
    offsets = _global_offsets(campaign.testset)
    sources = {d.name: d.source for d in scoring_testset(campaign.testset).documents}
    outputs = _item_outputs(campaign.id)
    data = mqm.MQMData(path=f"campaign {campaign.id}")
    by_item: dict[int, list[Assignment]] = defaultdict(list)
    for a in rows.assignments:
        by_item[a.item_id].append(a)
    line = 1
    for item in rows.items:
        if doc is not None and item.document.name != doc:
            continue
        system = labels.get(item.submission_id, str(item.submission_id))
        src = sources[item.document.name][item.seg_start:item.seg_end]
        tgt = _slice_outputs(outputs.get((item.submission_id, item.document_id), {}), item.seg_start, item.seg_end)
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
                           "unit": significance_unit(campaign), "doc": doc, "systems": {}, "order": [], "groups": [], "agreement": None, "errors": {},
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
                                  "group": sub.group if sub else "contrastive",
                                  "team": sub.owner_name if sub else "", "constrained": sub.constrained if sub else True}
    # each group's systems best first, those without a score last; the order of the table is group by group
    members_of = {key: {s: r for s, r in scores.items() if out["systems"][s]["group"] == key} for key, _t in GROUPS}
    ranked = {key: mqm_ranked(members, hib) for key, members in members_of.items()}
    others = {s: r for s, r in scores.items() if out["systems"][s]["group"] not in members_of}
    out["order"] = [s for key in ranked for s in ranked[key]] + mqm_ranked(others, hib)
    unit = significance_unit(campaign)
    units = None
    for key, title in GROUPS:
        members = members_of[key]
        if not members:
            continue
        order = [s for s in ranked[key] if members[s]["score"] is not None]
        pairs = []
        if len(order) > 1:
            if units is None:
                units = mqm.unit_scores(prepared, unit)
            pairs = mqm.wilcoxon_pairs(units, scheme, unit=unit, systems=order)
        clusters = mqm.clusters(order, pairs) if order else []
        rows_out, position = [], 0
        for c_index, cluster in enumerate(clusters, 1):
            first = position + 1
            for system in cluster:
                position += 1
                rows_out.append({"system": system, "rank": position, "cluster": c_index,
                                 "rank_range": f"{first}–{first + len(cluster) - 1}" if len(cluster) > 1 else str(first),
                                 "score": members[system]["score"], "submission_id": label_to_sub.get(system),
                                 "team": out["systems"][system]["team"],
                                 "constrained": out["systems"][system]["constrained"]})
        out["groups"].append({"key": key, "title": title, "rows": rows_out, "unit": unit,
                              "pairs": [{k: (_round(v) if isinstance(v, float) else v) for k, v in p.items()}
                                        for p in pairs]})
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
            "systems": {rows.labels[cs.submission_id]: {"group": cs.submission.group} for cs in campaign.systems}}


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
        per_item[item.id] = {"item": item, "system": rows.labels.get(item.submission_id, "?"),
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
    for ann_id, pace in reading.pace_outliers(pace_samples).items():
        per_ann[ann_id]["pace"] = pace
    total = sum(p["items"] for p in per_ann.values())
    done = sum(p["finished"] for p in per_ann.values())
    return {"annotators": list(per_ann.values()), "items": list(per_item.values()), "total": total, "finished": done,
            "reading": {"words_per_second": words_per_second(campaign), "factor": reading.PACE_FACTOR,
                        "min_words": reading.PACE_MIN_WORDS}}


def leaderboard_mqm(camp: Campaign) -> dict | None:
    """The official human ranking of a released campaign, for its test set's leaderboard.

    ``{"campaign": {...}, "higher_is_better", "by_submission": {id: {score, rank, rank_range, cluster}},
    "groups": [{key, title, rows}]}``.
    """
    res = camp.results
    by_sub = {}
    for group in res.get("groups", []):
        for row in group["rows"]:
            if row.get("submission_id") is not None:
                by_sub[int(row["submission_id"])] = {"score": row["score"], "rank": row["rank"],
                                                     "rank_range": row["rank_range"], "cluster": row["cluster"],
                                                     "group": group["key"]}
    return {"campaign": {"id": camp.id, "name": camp.name, "scheme": scheme_name(camp),
                         "released_at": camp.released_at.isoformat() if camp.released_at else None},
            "higher_is_better": res.get("higher_is_better", True), "source_words_method": res.get("source_words_method"),
            "unit": significance_unit(camp), "by_submission": by_sub, "groups": res.get("groups", [])}


SEVERITY_COLORS = {0: "#6b7280", 1: "#f2b705", 2: "#c2410c", 3: "#7b1fa2"}   # as annotate.css --r0..--r3


def error_chart(results: dict, scheme: mqm.Scheme) -> dict:
    """Geometry for Figure 4: per system, bars per top-level category stacked by severity."""
    errors = results.get("errors") or {}
    info = scheme_for_annotators(scheme.name)
    sev_order = sorted(info["severities"], key=lambda s: s["rank"])
    cats = [c["name"] for c in info["categories"]]
    for counts in errors.values():
        for c in counts:
            if c not in cats:
                cats.append(c)
    short = {c: (c[:3] + ".") if len(c) > 4 else c for c in cats}
    systems = sorted(errors, key=lambda s: (results["systems"].get(s, {}).get("group", ""), s))
    top = max([sum(v.values()) for counts in errors.values() for v in counts.values()] + [1])
    step = max(1, -(-top // 5))
    axis_max = step * (-(-top // step))
    if axis_max - top < step / 2:   # room above the tallest bar for its count
        axis_max += step
    bar_w, gap, left, height, panel_gap = 16, 6, 34, 150, 24
    panel_w = len(cats) * (bar_w + gap) + gap
    per_row = max(1, min(len(systems), 4))
    panels = []
    for n, system in enumerate(systems):
        col, row = n % per_row, n // per_row
        x0 = left + col * (panel_w + panel_gap + left)
        y0 = 28 + row * (height + 56)
        bars = []
        for k, cat in enumerate(cats):
            counts = errors[system].get(cat, {})
            y = y0 + height
            segs = []
            for s in sev_order:
                c = counts.get(s["name"], 0)
                if not c:
                    continue
                h = height * c / axis_max
                y -= h
                segs.append({"y": round(y, 1), "h": round(h, 1), "color": SEVERITY_COLORS[s["rank"]],
                             "title": f"{system}: {cat}, {s['name']}: {c}"})
            bars.append({"x": x0 + gap + k * (bar_w + gap), "w": bar_w, "segs": segs, "label": short[cat],
                         "total": sum(counts.values())})
        ticks = [{"y": round(y0 + height - height * v / axis_max, 1), "v": v} for v in range(0, axis_max + 1, step)]
        panels.append({"system": system, "x": x0, "y": y0, "w": panel_w, "h": height, "bars": bars, "ticks": ticks})
    rows = -(-len(systems) // per_row) if systems else 0
    return {"panels": panels, "width": left + per_row * (panel_w + panel_gap + left),
            "height": 28 + rows * (height + 56) + 8, "legend": [{"name": s["name"], "color": SEVERITY_COLORS[s["rank"]]}
                                                               for s in sev_order],
            "categories": [{"short": short[c], "name": c} for c in cats]}
