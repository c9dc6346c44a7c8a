"""MQM campaigns: creation, annotators and invites, assignment, annotation, results, release.

Views, the CLI and the tests call these; every rule lives here. Scores,
agreement, error counts, significance and the TSV format all come from the
:mod:`mqm` library, fed with an :class:`mqm.MQMData` built from the database by
:func:`build_data`; nothing here re-implements them.

Blindness: :func:`item_state` and :meth:`Mark.to_json` are the only things an
annotator receives. They hold the item's opaque id, its per-annotator number,
the document name and texts, and the annotator's own marks; never a system,
team or submission.
"""

from __future__ import annotations

import json
import random
import re
import secrets
import threading
import warnings
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any

from flask import url_for
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import contains_eager, selectinload

import mqm
from mqm.agreement import segment_alpha as mqm_segment_alpha
from mqm.scores import grouped as mqm_grouped
from mqm.scores import ranked as mqm_ranked
from mqm.words import MODES as WORD_MODES

from ..extensions import db
from ..models import OutputSegment, Segment, Submission, TestSet, User, utcnow
from ..services import NotFound, ServiceError
from ..services.accounts import check_text
from ..services.testsets import scoring_testset
from . import logic, reading
from .models import (
    ATTENTION_KINDS,
    SIGNIFICANCE_UNITS,
    Assignment,
    Campaign,
    CampaignAnnotator,
    CampaignInvite,
    CampaignSystem,
    Item,
    Mark,
)

ELIGIBLE_STATES = ("valid", "scoring", "scored")
MAX_NOTE = 2000
MAX_REDUNDANCY = 20
MAX_TIME_PER_SEGMENT_MS = 6 * 3600 * 1000
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
GROUPS = [("baseline", "Baselines"), ("primary-constrained", "Primary (constrained)"),
          ("primary-unconstrained", "Primary (unconstrained) ⋆"), ("contrastive", "Contrastive")]


def bad(code: str, message: str, status: int = 400, **details: Any) -> ServiceError:
    return ServiceError(code, message, status, details)


# --------------------------------------------------------------------------- schemes


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
    return mqm.WordCounter(campaign.source_words, lang=campaign.testset.src_lang)


# --------------------------------------------------------------------------- lookups


def get_campaign(campaign_id: int) -> Campaign:
    campaign = db.session.get(Campaign, campaign_id)
    if campaign is None:
        raise NotFound("campaign")
    return campaign


def dashboard_campaign(campaign_id: int) -> Campaign:
    """:func:`get_campaign` with what the dashboard shows of it loaded at once: the systems'
    submissions and teams, the annotators' accounts, teams and assignments, the invites."""
    campaign = db.session.scalar(select(Campaign).where(Campaign.id == campaign_id).options(
        selectinload(Campaign.systems).selectinload(CampaignSystem.submission).selectinload(Submission.team),
        selectinload(Campaign.annotators).selectinload(CampaignAnnotator.user).selectinload(User.team),
        selectinload(Campaign.annotators).selectinload(CampaignAnnotator.assignments),
        selectinload(Campaign.invites)))
    if campaign is None:
        raise NotFound("campaign")
    return campaign


def list_campaigns(testset_id: int | None = None) -> list[Campaign]:
    q = select(Campaign).order_by(Campaign.id.desc())
    if testset_id is not None:
        q = q.where(Campaign.testset_id == testset_id)
    return list(db.session.scalars(q))


def eligible_submissions(ts: TestSet) -> list[Submission]:
    """Submissions that can be evaluated: validated, not withdrawn, line-aligned."""
    subs = db.session.scalars(
        select(Submission).options(selectinload(Submission.team))
        .where(Submission.testset_id == ts.id, Submission.state.in_(ELIGIBLE_STATES),
               Submission.withdrawn_at.is_(None)).order_by(Submission.id)).all()
    return [s for s in subs if not s.document_level]


def default_selected(sub: Submission) -> bool:
    """Primaries and baselines are evaluated by default (as in WMT 2023)."""
    return sub.label == "baseline" or (sub.label == "primary" and sub.slot is not None)


def testset_docs(ts: TestSet) -> list[logic.DocInfo]:
    """The test set's documents and their sources, in order (from the per-process scoring view: no query once cached)."""
    return [logic.DocInfo(d.name, d.source) for d in scoring_testset(ts).documents]


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


def system_labels(campaign: Campaign) -> dict[int, str]:
    """{submission id: the name used for the system in results and exports} (unique per campaign)."""
    names = Counter(cs.submission.system_name for cs in campaign.systems)
    out = {}
    for cs in campaign.systems:
        sub = cs.submission
        out[sub.id] = sub.system_name if names[sub.system_name] == 1 else f"{sub.system_name} ({sub.owner_name})"
    return out


# --------------------------------------------------------------------------- creating a campaign


@dataclass
class CampaignInput:
    name: str
    submission_ids: list[int]
    scheme: str = mqm.DEFAULT_SCHEME
    redundancy: int = 1
    ranges: str = ""                 # "doc:1-40" lines; empty: sample
    sample_docs: int = 5
    sample_words: int = 2200
    attention_share: float = 0.1
    attention_kind: str = "mixed"
    source_words: str = "auto"
    significance_unit: str = "segment"
    instructions: str = ""
    seed: int | None = None


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        raise bad("invalid_field", f"{field} must be a whole number", field=field) from None
    if not lo <= n <= hi:
        raise bad("invalid_field", f"{field} must be between {lo} and {hi}", field=field)
    return n


def _float(value: Any, field: str, lo: float, hi: float) -> float:
    try:
        text = str(value).strip()
        x = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except (TypeError, ValueError):
        raise bad("invalid_field", f"{field} must be a number", field=field) from None
    if not lo <= x <= hi or x != x:
        raise bad("invalid_field", f"{field} must be between {lo} and {hi}", field=field)
    return x


def create_campaign(user: User, ts: TestSet, data: CampaignInput,
                    docs: list[logic.DocInfo] | None = None) -> Campaign:
    """``docs``: the test set's :func:`testset_docs`, when the caller has them already."""
    name = check_text(data.name, "name", max_len=200)
    schemes = mqm.available_schemes()
    if data.scheme not in schemes:
        raise bad("invalid_field", f"unknown scheme {data.scheme!r} (known: {', '.join(schemes)})",
                  field="scheme")
    redundancy = _int(data.redundancy, "redundancy", 1, MAX_REDUNDANCY)
    share = _float(data.attention_share, "attention-check share", 0.0, 1.0)
    if data.attention_kind not in ATTENTION_KINDS:
        raise bad("invalid_field", f"attention kind must be one of {', '.join(ATTENTION_KINDS)}",
                  field="attention_kind")
    if data.source_words not in WORD_MODES:
        raise bad("invalid_field", f"source word counting must be one of {', '.join(WORD_MODES)}",
                  field="source_words")
    if data.significance_unit not in SIGNIFICANCE_UNITS:
        raise bad("invalid_field", f"significance unit must be one of {', '.join(SIGNIFICANCE_UNITS)}",
                  field="significance_unit")
    instructions = check_text(data.instructions, "instructions", max_len=20000, required=False, multiline=True)
    seed = data.seed if data.seed is not None else secrets.randbelow(2**31)

    ids = sorted({int(i) for i in data.submission_ids})
    if not ids:
        raise bad("invalid_field", "choose at least one system", field="systems")
    eligible = {s.id: s for s in eligible_submissions(ts)}
    missing = [i for i in ids if i not in eligible]
    if missing:
        raise bad("invalid_field", f"submission(s) {', '.join(map(str, missing))} cannot be evaluated: not in this "
                  "test set, not validated, withdrawn, or document-level (not line-aligned)", field="systems",
                  submissions=missing)

    docs = docs if docs is not None else testset_docs(ts)
    try:
        if data.ranges.strip():
            ranges = logic.parse_ranges(data.ranges, docs)
        else:
            counter = mqm.WordCounter(data.source_words, lang=ts.src_lang)
            n_docs = _int(data.sample_docs, "number of documents", 1, 10000)
            words = _int(data.sample_words, "source words", 0, 10**8)
            ranges = logic.sample_ranges(docs, n_docs, words, counter, seed)
    except logic.CampaignError as exc:
        raise bad("invalid_ranges", str(exc), field="ranges") from None

    with db.write():
        campaign = Campaign(testset_id=ts.id, name=name, scheme=data.scheme, redundancy=redundancy,
                            attention_share=share, attention_kind=data.attention_kind,
                            source_words=data.source_words, significance_unit=data.significance_unit,
                            instructions=instructions, ranges=[str(r) for r in ranges], seed=seed,
                            created_by_id=user.id if user is not None else None)
        db.session.add(campaign)
        db.session.flush()
        for pos, sid in enumerate(ids):
            db.session.add(CampaignSystem(campaign_id=campaign.id, submission_id=sid, position=pos))
    return campaign


def parsed_ranges(campaign: Campaign, docs: list[logic.DocInfo] | None = None) -> list[logic.Range]:
    docs = docs if docs is not None else testset_docs(campaign.testset)
    return logic.parse_ranges("\n".join(campaign.ranges), docs)


def _editable_setup(campaign: Campaign) -> None:
    if campaign.state != "draft":
        raise bad("campaign_started", "the campaign has started: systems, documents and redundancy are fixed", 409)


def update_systems(campaign: Campaign, submission_ids: list[int]) -> None:
    _editable_setup(campaign)
    eligible = {s.id for s in eligible_submissions(campaign.testset)}
    ids = sorted({int(i) for i in submission_ids})
    if not ids or any(i not in eligible for i in ids):
        raise bad("invalid_field", "choose at least one system, among the evaluable submissions", field="systems")
    with db.write():
        campaign = db.session.merge(campaign)
        campaign.systems.clear()
        db.session.flush()
        for pos, sid in enumerate(ids):
            campaign.systems.append(CampaignSystem(submission_id=sid, position=pos))


# --------------------------------------------------------------------------- annotators and invites


def _next_position(campaign_id: int) -> int:
    return (db.session.scalar(select(func.max(CampaignAnnotator.position))
                              .where(CampaignAnnotator.campaign_id == campaign_id)) or 0) + 1


def add_annotator(campaign: Campaign, user: User, invite: CampaignInvite | None = None) -> CampaignAnnotator:
    """Adds ``user`` (idempotent: an annotator already in returns their row)."""
    if campaign.state == "released":
        raise bad("campaign_released", "this campaign is released; it takes no new annotators", 409)
    for _attempt in range(5):
        try:
            with db.write():
                existing = db.session.scalar(select(CampaignAnnotator).where(
                    CampaignAnnotator.campaign_id == campaign.id, CampaignAnnotator.user_id == user.id))
                if existing is not None:
                    return existing
                ann = CampaignAnnotator(campaign_id=campaign.id, user_id=user.id,
                                        position=_next_position(campaign.id),
                                        invite_id=invite.id if invite is not None else None)
                db.session.add(ann)
                if invite is not None:
                    used = db.session.execute(
                        update(CampaignInvite).where(CampaignInvite.id == invite.id,
                                                     CampaignInvite.uses < CampaignInvite.max_uses,
                                                     CampaignInvite.revoked_at.is_(None))
                        .values(uses=CampaignInvite.uses + 1)).rowcount
                    if not used:
                        raise bad("invite_used", "this invite link has been used up or revoked; ask the "
                                  "organizer for a new one", 410)
                db.session.flush()
            return ann
        except IntegrityError:
            continue   # two joins raced for the same position (PostgreSQL): take the next one
    raise bad("busy", "could not add the annotator, try again", 409)


def remove_annotator(campaign: Campaign, annotator_id: int) -> None:
    ann = db.session.get(CampaignAnnotator, annotator_id)
    if ann is None or ann.campaign_id != campaign.id:
        raise NotFound("annotator")
    if ann.assignments:
        raise bad("has_items", "this annotator has items; reassign is not possible after the start", 409)
    with db.write():
        db.session.delete(db.session.merge(ann))


def create_invites(campaign: Campaign, count: int = 1, label: str = "", max_uses: int = 1,
                   days: int | None = 30) -> list[tuple[CampaignInvite, str]]:
    if campaign.state == "released":
        raise bad("campaign_released", "this campaign is released", 409)
    count = _int(count, "number of links", 1, 200)
    max_uses = _int(max_uses, "uses per link", 1, 1000)
    label = check_text(label, "label", max_len=200, required=False)
    expires = utcnow() + timedelta(days=days) if days else None
    out = []
    with db.write():
        for _ in range(count):
            inv, secret = CampaignInvite.issue(campaign, label=label, max_uses=max_uses, expires_at=expires)
            db.session.add(inv)
            out.append((inv, secret))
    return out


def invite_from_secret(secret: str) -> CampaignInvite:
    inv = db.session.scalar(select(CampaignInvite).where(CampaignInvite.token_hash == CampaignInvite.hash(secret or "")))
    if inv is None:
        raise bad("bad_invite", "this invite link is not valid", 404)
    if not inv.usable():
        raise bad("invite_used", "this invite link has expired, been used up or been revoked; ask the organizer "
                  "for a new one", 410)
    return inv


def revoke_invite(campaign: Campaign, invite_id: int) -> None:
    with db.write():
        n = db.session.execute(update(CampaignInvite).where(CampaignInvite.id == invite_id,
                                                            CampaignInvite.campaign_id == campaign.id)
                               .values(revoked_at=utcnow())).rowcount
    if not n:
        raise NotFound("invite")


def invite_with_campaign(secret: str) -> tuple[CampaignInvite, Campaign]:
    """The usable invite of a link (see :func:`invite_from_secret`) and its campaign."""
    inv = invite_from_secret(secret)
    return inv, get_campaign(inv.campaign_id)


def accept_invite(inv: CampaignInvite, campaign: Campaign, user: User) -> CampaignAnnotator:
    """Makes ``user`` an annotator of ``campaign`` by the invite ``inv`` (both from :func:`invite_with_campaign`).

    The invite's use is counted atomically (:func:`add_annotator`): a link used up meanwhile is refused.
    """
    existing = db.session.scalar(select(CampaignAnnotator).where(CampaignAnnotator.campaign_id == campaign.id,
                                                                 CampaignAnnotator.user_id == user.id))
    if existing is not None:
        return existing
    return add_annotator(campaign, user, invite=inv)


# --------------------------------------------------------------------------- starting: items and assignments


def _output_texts(sub_id: int, doc_id: int, start: int, end: int) -> list[str]:
    rows = db.session.execute(select(OutputSegment.position, OutputSegment.text)
                              .where(OutputSegment.submission_id == sub_id, OutputSegment.document_id == doc_id,
                                     OutputSegment.position >= start, OutputSegment.position < end)
                              .order_by(OutputSegment.position)).all()
    return [t for _p, t in rows] if [p for p, _t in rows] == list(range(start, end)) else []


def _item_outputs(campaign_id: int) -> dict[tuple[int, int], dict[int, str]]:
    """{(submission id, document id): {position: text}}: the output segments of every item, in one query."""
    rows = db.session.execute(
        select(OutputSegment.submission_id, OutputSegment.document_id, OutputSegment.position, OutputSegment.text)
        .join(Item, (Item.submission_id == OutputSegment.submission_id)
              & (Item.document_id == OutputSegment.document_id)
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


def start_campaign(campaign: Campaign) -> dict:
    """Builds items (systems x ranges), assigns them and injects attention checks; opens the campaign."""
    if campaign.state != "draft":
        raise bad("campaign_started", "the campaign has already started", 409)
    if not campaign.systems:
        raise bad("no_systems", "choose at least one system first", 409)
    doc_infos = testset_docs(campaign.testset)
    ranges = parsed_ranges(campaign, doc_infos)
    docs = {d.name: d for d in campaign.testset.documents}
    counter = word_counter(campaign)
    sources = {d.name: d.sources for d in doc_infos}
    annotators = list(campaign.annotators)
    if len(annotators) < campaign.redundancy:
        raise bad("too_few_annotators", f"redundancy is {campaign.redundancy} but the campaign has "
                  f"{len(annotators)} annotator(s): invite or add more first", 409)

    items: list[dict] = []
    for r in ranges:
        words = sum(counter(s) for s in sources[r.doc][r.start - 1:r.end])
        for cs in campaign.systems:
            texts = _output_texts(cs.submission_id, docs[r.doc].id, r.start - 1, r.end)
            if not texts:
                raise bad("missing_output", f"submission {cs.submission_id} has no output for {r}", 409)
            items.append({"sub": cs.submission, "doc": docs[r.doc], "range": r, "words": words, "texts": texts})
    specs = [logic.ItemSpec(key=i, team=it["sub"].team_id, words=it["words"], doc=str(it["range"]))
             for i, it in enumerate(items)]
    ann_specs = [logic.AnnotatorSpec(key=a.id, teams=frozenset({a.user.team_id} if a.user.team_id else ()))
                 for a in annotators]
    try:
        plan = logic.plan_assignments(specs, ann_specs, campaign.redundancy, seed=campaign.seed)
    except logic.CampaignError as exc:
        raise bad("cannot_assign", str(exc), 409) from None

    rng = random.Random(campaign.seed + 1)
    per_annotator: dict[int, list[int]] = defaultdict(list)
    for i, anns in plan.items():
        for a in anns:
            per_annotator[a].append(i)
    pairs = [(a, i) for a in sorted(per_annotator) for i in per_annotator[a]]
    checked = logic.pick_attention_items(pairs, campaign.attention_share, campaign.seed + 2)

    with db.write():
        camp = db.session.get(Campaign, campaign.id)
        if camp.state != "draft":
            raise bad("campaign_started", "the campaign has already started", 409)
        rows = []
        for pos, it in enumerate(items):
            row = Item(campaign_id=camp.id, submission_id=it["sub"].id, document_id=it["doc"].id,
                       seg_start=it["range"].start - 1, seg_end=it["range"].end, position=pos,
                       source_words=it["words"])
            db.session.add(row)
            rows.append(row)
        db.session.flush()
        n_checks = 0
        for a in sorted(per_annotator):
            order = list(per_annotator[a])
            rng.shuffle(order)   # random item order: no system or document order to read into
            for number, i in enumerate(order, 1):
                asg = Assignment(campaign_id=camp.id, item_id=rows[i].id, annotator_id=a, number=number,
                                 public_id=secrets.token_urlsafe(12))
                if (a, i) in checked:
                    found = logic.choose_attention(items[i]["texts"], camp.attention_kind, rng)
                    if found is not None:
                        seg, cor = found
                        asg.attention_seg, asg.attention_kind = seg, cor.kind
                        asg.attention_text, asg.attention_start, asg.attention_end = cor.text, cor.start, cor.end
                        n_checks += 1
                db.session.add(asg)
        camp.state = "open"
        camp.started_at = utcnow()
    return {"items": len(items), "assignments": len(pairs), "attention_checks": n_checks}


def set_state(campaign: Campaign, state: str) -> None:
    """Organizer transitions: open <-> closed (closed: annotators can read but not change)."""
    allowed = {("open", "closed"), ("closed", "open")}
    if (campaign.state, state) not in allowed:
        raise bad("bad_transition", f"a campaign cannot go from {campaign.state} to {state}", 409)
    with db.write():
        camp = db.session.get(Campaign, campaign.id)
        camp.state = state
        if state == "closed":
            camp.closed_at = utcnow()


def reopen_assignment(campaign: Campaign, assignment_id: int) -> None:
    asg = db.session.get(Assignment, assignment_id)
    if asg is None or asg.campaign_id != campaign.id:
        raise NotFound("assignment")
    if campaign.state == "released":
        raise bad("campaign_released", "the campaign is released: withdraw the release first", 409)
    with db.write():
        asg = db.session.get(Assignment, assignment_id)
        asg.state = "started"
        asg.finished_at = None
        asg.attention_result = None


def delete_campaign(campaign: Campaign) -> None:
    if campaign.state == "released":
        raise bad("campaign_released", "withdraw the release before deleting the campaign", 409)
    with db.write():
        db.session.delete(db.session.get(Campaign, campaign.id))


# --------------------------------------------------------------------------- annotator side


def annotator_assignments(user: User) -> list[Assignment]:
    """The user's items over every open, closed or released campaign, campaign by campaign.

    With what the list of items shows: each item's document and campaign, and the marks.
    """
    return list(db.session.scalars(
        select(Assignment).join(CampaignAnnotator, Assignment.annotator_id == CampaignAnnotator.id)
        .join(Campaign, Assignment.campaign_id == Campaign.id)
        .options(selectinload(Assignment.item).selectinload(Item.document),
                 selectinload(Assignment.item).selectinload(Item.campaign),
                 selectinload(Assignment.marks), selectinload(Assignment.annotator))
        .where(CampaignAnnotator.user_id == user.id, Campaign.state != "draft")
        .order_by(Campaign.id, Assignment.number)))


def annotator_campaigns(user: User) -> list[Campaign]:
    return list(db.session.scalars(
        select(Campaign).join(CampaignAnnotator, CampaignAnnotator.campaign_id == Campaign.id)
        .where(CampaignAnnotator.user_id == user.id).order_by(Campaign.id)))


def get_assignment(user: User, public_id: str, *, write: bool = False) -> Assignment:
    """The user's own assignment by its public id.

    Another annotator's item answers exactly like an unknown one (404), so ids
    cannot be probed. Organizers may read any item (``write`` False).
    """
    asg = None
    if public_id and len(public_id) <= 24:
        # one query for the assignment, its annotator, item and campaign (every save starts here)
        asg = db.session.scalar(
            select(Assignment).join(Assignment.annotator).join(Assignment.item).join(Item.campaign)
            .options(contains_eager(Assignment.annotator),
                     contains_eager(Assignment.item).contains_eager(Item.campaign))
            .where(Assignment.public_id == public_id))
    if asg is None:
        raise NotFound("item")
    if asg.annotator.user_id == user.id:
        if asg.item.campaign.state == "draft":
            raise NotFound("item")
        return asg
    if not write and user.is_organizer:
        return asg
    raise NotFound("item")


def segment_texts(asg: Assignment) -> list[dict]:
    """The item's segments as the annotator sees them (the attention check's corrupted target included).

    They never change once the campaign has started, so they are cached per assignment
    (by its public id, which is random and never reused): a save then reads no text.
    """
    key = (asg.public_id, asg.item_id, asg.attention_seg)
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
    src = db.session.execute(select(Segment.position, Segment.source)
                             .where(Segment.document_id == item.document_id, Segment.position >= item.seg_start,
                                    Segment.position < item.seg_end).order_by(Segment.position)).all()
    tgt = _output_texts(item.submission_id, item.document_id, item.seg_start, item.seg_end)
    out = []
    for k, ((pos, source), target) in enumerate(zip(src, tgt)):
        if asg.attention_seg == k and asg.attention_text is not None:
            target = asg.attention_text
        out.append({"i": k, "label": pos + 1, "source": source, "target": target})
    return out


def next_assignment(asg: Assignment) -> Assignment | None:
    return db.session.scalar(select(Assignment).where(Assignment.annotator_id == asg.annotator_id,
                                                      Assignment.state != "finished", Assignment.id != asg.id)
                             .order_by(Assignment.number).limit(1))


def item_state(asg: Assignment, *, readonly: bool = False) -> dict:
    """Everything the annotation page needs, and nothing that names the system."""
    item = asg.item
    campaign = item.campaign
    ts = campaign.testset
    segs = segment_texts(asg)
    scheme = get_scheme(campaign.scheme)
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
        "dwell_ms": reading.segment_dwell_ms(segs, reading.DEFAULT_WORDS_PER_SECOND),
        "words_per_second": reading.DEFAULT_WORDS_PER_SECOND,
        "scheme": scheme_for_annotators(scheme.name),
        "readonly": readonly or campaign.state != "open",
        "urls": {"api": url_for("annotate.api_item", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt is not None else None},
    }


_WRITE_LOCK = threading.Lock()


@contextmanager
def _annotation_write():
    """``db.write()`` for the annotation saves, queued on a lock inside this process on SQLite.

    SQLite has one writer at a time and its busy handler polls with sleeps of up to
    100 ms, which lets unlucky requests wait for seconds under load. Threads of one
    process queue fairly on this lock instead; between processes the busy timeout
    still applies. PostgreSQL needs no such thing (row locks).
    """
    if db.session.get_bind().dialect.name != "sqlite":
        with db.write():
            yield
        return
    with _WRITE_LOCK, db.write():
        yield


def _lock_assignment(asg_id: int) -> tuple[Assignment, str]:
    """Re-reads the assignment and its campaign's state inside the current write transaction,
    the assignment's row locked against concurrent writers (SQLite: the whole database is).

    Returns (assignment, campaign state): that state, not ``asg.item.campaign.state`` (read
    before the transaction, maybe stale), is the one to check.
    """
    row = db.session.execute(
        select(Assignment, Campaign.state).join(Item, Assignment.item_id == Item.id)
        .join(Campaign, Item.campaign_id == Campaign.id).where(Assignment.id == asg_id)
        .with_for_update(of=Assignment).execution_options(populate_existing=True)).first()
    if row is None:
        raise NotFound("item")
    asg, campaign_state = row
    return asg, campaign_state


def _not_writable(asg: Assignment, campaign_state: str) -> ServiceError | None:
    """Why the annotator can no longer change this assignment (None: they can)."""
    if campaign_state != "open":
        return bad("campaign_closed", f"the campaign is {campaign_state}: marks can no longer be changed", 409)
    if asg.state == "finished":
        return bad("item_finished", "this item is finished and locked; ask the organizer to reopen it", 409)
    return None


def _check_writable(asg: Assignment, campaign_state: str) -> None:
    refusal = _not_writable(asg, campaign_state)
    if refusal is not None:
        raise refusal


def _touch(asg: Assignment) -> None:
    now = utcnow()
    if asg.state == "pending":
        asg.state = "started"
        asg.started_at = now
    if asg.last_active_at is None or (now - asg.last_active_at).total_seconds() > 15:
        asg.last_active_at = now   # (to the quarter minute: one write fewer per save)


def _str_field(body: dict, name: str, *, required: bool = True, max_len: int = 200) -> str:
    value = body.get(name, None)
    if value is None:
        if required:
            raise bad("invalid_field", f"{name} is required", field=name)
        return ""
    if not isinstance(value, str):
        raise bad("invalid_field", f"{name} must be a string", field=name)
    if len(value) > max_len:
        raise bad("invalid_field", f"{name} is longer than {max_len} characters", field=name)
    return value


def _int_field(body: dict, name: str) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad("invalid_field", f"{name} must be an integer", field=name)
    return value


def validate_mark(asg: Assignment, body: Any, segs: list[dict]) -> dict:
    """The checked fields of a mark, or a 400 that names the field and the problem."""
    if not isinstance(body, dict):
        raise bad("invalid_json", "the request body must be a JSON object")
    rev = _int_field(body, "rev")
    if not 1 <= rev <= 10**9:
        raise bad("invalid_field", "rev must be a positive integer", field="rev")
    seg = _int_field(body, "seg")
    if not 0 <= seg < len(segs):
        raise bad("bad_segment", f"segment {seg} is not in this item (0-{len(segs) - 1})", field="seg")
    side = body.get("side", "target")
    if side not in ("target", "source"):
        raise bad("invalid_field", "side must be 'target' or 'source'", field="side")
    text = segs[seg][side]
    length = len(text)
    start, end = _int_field(body, "start"), _int_field(body, "end")
    if not 0 <= start < end <= length:
        raise bad("bad_span", f"span [{start}, {end}) does not fit the {side} of segment {seg} "
                  f"(length {length}; a span needs 0 <= start < end <= length)", field="start")
    given = body.get("text")
    if given is not None and given != text[start:end]:
        raise bad("bad_span", f"text {given!r} is not what the span marks ({text[start:end]!r})", field="text")
    scheme = get_scheme(asg.item.campaign.scheme)
    category = _str_field(body, "category").strip()
    subcategory = _str_field(body, "subcategory", required=False).strip()
    severity_name = _str_field(body, "severity").strip()
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
    note = _str_field(body, "note", required=False, max_len=MAX_NOTE).strip()
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
            with _annotation_write():
                asg, campaign_state = _lock_assignment(asg.id)
                _check_writable(asg, campaign_state)
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
                _touch(asg)
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
    with _annotation_write():
        asg, campaign_state = _lock_assignment(asg.id)
        _check_writable(asg, campaign_state)
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
            _touch(asg)
        return mark.to_json()


def save_progress(user: User, public_id: str, body: Any) -> dict:
    """Reading cursor, furthest segment and per-segment times (idempotent: times only grow)."""
    if not isinstance(body, dict):
        raise bad("invalid_json", "the request body must be a JSON object")
    asg = get_assignment(user, public_id, write=True)
    n = asg.item.num_segments
    dwell = reading.segment_dwell_ms(segment_texts(asg), reading.DEFAULT_WORDS_PER_SECOND)
    cursor = body.get("cursor", asg.cursor)
    furthest = body.get("furthest", cursor)
    for name, value in (("cursor", cursor), ("furthest", furthest)):
        if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value < n:
            raise bad("bad_segment", f"{name} must be a segment of this item (0-{n - 1})", field=name)
    times = body.get("times", {})
    if not isinstance(times, dict) or len(times) > n:
        raise bad("invalid_field", "times must be an object {segment: milliseconds}", field="times")
    clean: dict[str, int] = {}
    for key, ms in times.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < n):
            raise bad("bad_segment", f"times: {key!r} is not a segment of this item", field="times")
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not 0 <= ms <= MAX_TIME_PER_SEGMENT_MS:
            raise bad("invalid_field", f"times[{key}] must be milliseconds between 0 and "
                      f"{MAX_TIME_PER_SEGMENT_MS}", field="times")
        clean[str(int(key))] = int(ms)
    with _annotation_write():
        asg, campaign_state = _lock_assignment(asg.id)
        if _not_writable(asg, campaign_state) is not None:
            return {"cursor": asg.cursor, "furthest": asg.furthest, "time_ms": asg.time_ms, "locked": True}
        merged = dict(asg.times or {})
        for key, ms in clean.items():
            merged[key] = max(int(merged.get(key, 0)), ms)
        asg.times = merged
        asg.time_ms = sum(merged.values())
        asg.cursor = max(cursor, 0)
        # a segment counts as read after its minimum dwell time: never further than the first one read too fast
        asg.furthest = max(asg.furthest, reading.clip_furthest(furthest, merged, dwell))
        _touch(asg)
        return {"cursor": asg.cursor, "furthest": asg.furthest, "time_ms": asg.time_ms, "locked": False}


def attention_found(asg: Assignment, marks: list[Mark] | None = None) -> bool | None:
    """Whether a live mark on the check's segment overlaps the injected span (None: no check)."""
    if asg.attention_seg is None:
        return None
    span = (asg.attention_start, asg.attention_end)
    for m in marks if marks is not None else asg.marks:
        if (not m.deleted and m.seg == asg.attention_seg and m.side == "target"
                and logic.overlaps((m.start_pos, m.end_pos), span)):
            return True
    return False


def finish(user: User, public_id: str) -> dict:
    asg = get_assignment(user, public_id, write=True)
    segs = segment_texts(asg)
    dwell = reading.segment_dwell_ms(segs, reading.DEFAULT_WORDS_PER_SECOND)
    with _annotation_write():
        asg, campaign_state = _lock_assignment(asg.id)
        if asg.state == "finished":
            nxt = next_assignment(asg)
            return {"finished": True, "already": True,
                    "next": url_for("annotate.item", public_id=nxt.public_id) if nxt else None}
        _check_writable(asg, campaign_state)
        n = asg.item.num_segments
        unread = reading.unread_segments(asg.times or {}, dwell)
        if unread:
            raise bad("not_read", f"read every segment before finishing: {len(unread)} of {n} not read yet, or "
                      f"read too fast (segment {reading.describe_segments(unread, [s['label'] for s in segs])})",
                      409, read=n - len(unread), segments=n, unread=unread)
        asg.furthest = n - 1
        found = attention_found(asg)
        if found is not None:
            asg.attention_result = "found" if found else "missed"
        asg.state = "finished"
        asg.finished_at = utcnow()
        asg.last_active_at = asg.finished_at
        nxt = next_assignment(asg)
        return {"finished": True, "next": url_for("annotate.item", public_id=nxt.public_id) if nxt else None}


# --------------------------------------------------------------------------- results (through the mqm library)


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
    items = db.session.scalars(select(Item).options(selectinload(Item.document))
                               .where(Item.campaign_id == campaign.id).order_by(Item.position)).all()
    asgs = db.session.scalars(select(Assignment).options(selectinload(Assignment.marks),
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
                if k == a.attention_seg:
                    result = a.attention_result or ("found" if attention_found(a, live) else "missed")
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
    scheme = get_scheme(campaign.scheme)
    hib = scheme.higher_is_better
    words = word_counter(campaign)
    labels = rows.labels
    subs = {cs.submission_id: cs.submission for cs in campaign.systems}
    label_to_sub = {labels[sid]: sid for sid in labels}
    out: dict[str, Any] = {"scheme": scheme.name, "higher_is_better": hib,
                           "unit": campaign.significance_unit, "doc": doc, "systems": {}, "order": [], "groups": [], "agreement": None, "errors": {},
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
    unit = campaign.significance_unit
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
    return {"errors": mqm.error_counts(data, get_scheme(campaign.scheme)),
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
        if a.attention_seg is not None:
            result = a.attention_result
            if result is None:
                p["pending_checks"] += 1
            else:
                p[result] += 1
        per_item[a.item_id]["assignments"].append(
            {"assignment": a, "rater": a.annotator.rater, "state": a.state, "read": min(a.furthest + 1, n),
             "segments": n, "marks": len(live), "time_ms": a.time_ms, "attention": a.attention_result
             if a.attention_seg is not None else None, "has_check": a.attention_seg is not None})
    for ann_id, pace in reading.pace_outliers(pace_samples).items():
        per_ann[ann_id]["pace"] = pace
    total = sum(p["items"] for p in per_ann.values())
    done = sum(p["finished"] for p in per_ann.values())
    return {"annotators": list(per_ann.values()), "items": list(per_item.values()), "total": total, "finished": done,
            "reading": {"words_per_second": reading.DEFAULT_WORDS_PER_SECOND, "factor": reading.PACE_FACTOR,
                        "min_words": reading.PACE_MIN_WORDS}}


# --------------------------------------------------------------------------- release and the leaderboard


def release(campaign: Campaign) -> dict:
    """Freezes the results and puts them on the test set's leaderboard (MQM column, human ranking)."""
    if campaign.state not in ("open", "closed"):
        raise bad("bad_transition", f"a {campaign.state} campaign cannot be released", 409)
    results = compute_results(campaign, with_agreement=False)
    if not results["systems"]:
        raise bad("no_results", "no finished items yet: nothing to release", 409)
    snapshot = json.loads(json.dumps(results, default=str))
    snapshot.pop("agreement", None)   # (not computed) kept live on the dashboard; the leaderboard needs the ranking
    snapshot["campaign"] = {"id": campaign.id, "name": campaign.name, "scheme": campaign.scheme,
                            "ranges": campaign.ranges, "redundancy": campaign.redundancy}
    with db.write():
        camp = db.session.get(Campaign, campaign.id)
        camp.state = "released"
        camp.released_at = utcnow()
        camp.results = snapshot
        _bump_leaderboard(camp.testset_id)
    return snapshot


def withdraw_release(campaign: Campaign) -> None:
    if campaign.state != "released":
        raise bad("bad_transition", "the campaign is not released", 409)
    with db.write():
        camp = db.session.get(Campaign, campaign.id)
        camp.state = "closed"
        camp.released_at = None
        camp.results = None
        _bump_leaderboard(camp.testset_id)


def _bump_leaderboard(testset_id: int) -> None:
    from ..services.testsets import bump_scores_version

    bump_scores_version(db.session, testset_id)


def released_campaign(testset_id: int) -> Campaign | None:
    return db.session.scalar(select(Campaign).where(Campaign.testset_id == testset_id, Campaign.state == "released")
                             .order_by(Campaign.released_at.desc(), Campaign.id.desc()).limit(1))


def leaderboard_mqm(testset_id: int) -> dict | None:
    """The official human ranking of the latest released campaign of a test set, for the leaderboard.

    ``{"campaign": {...}, "higher_is_better", "by_submission": {id: {score, rank, rank_range, cluster}},
    "groups": [{key, title, rows}]}`` or None when no campaign is released.
    """
    camp = released_campaign(testset_id)
    if camp is None or not camp.results:
        return None
    res = camp.results
    by_sub = {}
    for group in res.get("groups", []):
        for row in group["rows"]:
            if row.get("submission_id") is not None:
                by_sub[int(row["submission_id"])] = {"score": row["score"], "rank": row["rank"],
                                                     "rank_range": row["rank_range"], "cluster": row["cluster"],
                                                     "group": group["key"]}
    return {"campaign": {"id": camp.id, "name": camp.name, "scheme": camp.scheme,
                         "released_at": camp.released_at.isoformat() if camp.released_at else None},
            "higher_is_better": res.get("higher_is_better", True), "source_words_method": res.get("source_words_method"),
            "unit": camp.significance_unit, "by_submission": by_sub, "groups": res.get("groups", [])}


def attach_to_leaderboard(board: dict) -> dict:
    """Adds the MQM column (``row["mqm"]``) and the human ranking (``board["mqm"]``) to a leaderboard."""
    info = leaderboard_mqm(board["testset_id"])
    board["mqm"] = info
    for row in board.get("rows", []):
        row["mqm"] = info["by_submission"].get(row["submission_id"]) if info else None
    return board


# --------------------------------------------------------------------------- charts (server-rendered SVG)

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


def fmt_ms(ms: int | None) -> str:
    if not ms:
        return "0:00"
    s = int(ms // 1000)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def is_annotator(user: User) -> bool:
    """Whether the user annotates in any campaign."""
    return db.session.scalar(select(CampaignAnnotator.id).where(CampaignAnnotator.user_id == user.id).limit(1)) \
        is not None
