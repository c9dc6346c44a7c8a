"""Finding and creating campaigns: the test set's evaluable versions, the documents, the settings."""

from __future__ import annotations

import secrets
from collections import Counter

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ...extensions import db
from ...models import Submission, TestSet, User
from ...services import NotFound
from ...services.accounts import check_text
from ...services.testsets import scoring_testset
from .. import sampling, selection
from ..models import STRATEGIES, Campaign, CampaignAnnotator, CampaignVersion
from ..options import CampaignInput, default_selected  # noqa: F401  (the services' names for them)
from ..protocol import PROTOCOLS, default_protocol, protocol_of
from .common import ELIGIBLE_STATES, MAX_REDUNDANCY, MAX_SEED, bad, whole_number


def get_campaign(campaign_id: int) -> Campaign:
    campaign = db.session.get(Campaign, campaign_id)
    if campaign is None:
        raise NotFound("campaign")
    return campaign


def dashboard_campaign(campaign_id: int) -> Campaign:
    """:func:`get_campaign` with what the dashboard shows of it loaded at once: the versions'
    submissions and teams, the annotators' accounts, teams and assignments, the invites."""
    campaign = db.session.scalar(select(Campaign).where(Campaign.id == campaign_id).options(
        selectinload(Campaign.versions).selectinload(CampaignVersion.submission).selectinload(Submission.team),
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


def testset_docs(ts: TestSet) -> list[sampling.DocInfo]:
    """The test set's documents and their sources, in order (from the per-process scoring view: no query once cached)."""
    return [sampling.DocInfo(d.name, d.source) for d in scoring_testset(ts).documents]


def system_labels(campaign: Campaign) -> dict[int, str]:
    """{submission id: the name used for the system in results and exports} (unique per campaign)."""
    names = Counter(cs.submission.system_name for cs in campaign.systems)
    out = {}
    for cs in campaign.systems:
        sub = cs.submission
        out[sub.id] = sub.system_name if names[sub.system_name] == 1 else f"{sub.system_name} ({sub.owner_name})"
    return out


def version_labels(campaign: Campaign) -> dict[int, str]:
    """{campaign version id: its organizer-facing name}: systems as in :func:`system_labels`, "reference N"."""
    systems = system_labels(campaign)
    return {v.id: (f"reference {v.reference}" if v.reference is not None else systems[v.submission_id])
            for v in campaign.versions}


def create_campaign(user: User | None, ts: TestSet, data: CampaignInput,
                    docs: list[sampling.DocInfo] | None = None) -> Campaign:
    """``docs``: the test set's :func:`testset_docs`, when the caller has them already."""
    name = check_text(data.name, "name", max_len=200)
    key = data.protocol or default_protocol().key
    if key not in PROTOCOLS:
        raise bad("invalid_field", f"unknown protocol {key!r} (known: {', '.join(sorted(PROTOCOLS))})",
                  field="protocol")
    protocol = protocol_of(key)
    settings = protocol.clean_settings(dict(data.settings or {}), ts)
    strategy = data.strategy or protocol.strategies[0]
    if strategy not in STRATEGIES or strategy not in protocol.strategies:
        raise bad("invalid_field", f"a {protocol.title} campaign assigns items by: {', '.join(protocol.strategies)}"
                  f" (not {strategy!r})", field="strategy")
    redundancy = whole_number(data.redundancy, "redundancy", 1, MAX_REDUNDANCY)
    instructions = check_text(data.instructions, "instructions", max_len=20000, required=False, multiline=True)
    # a seed is stored in an integer column: bounded here, with a sentence, not by the database
    seed = (whole_number(data.seed, "seed", 0, MAX_SEED) if data.seed not in (None, "")
            else secrets.randbelow(MAX_SEED + 1))

    ids = sorted({int(i) for i in data.submission_ids})
    refs = sorted({int(r) for r in data.references})
    if any(r not in (1, 2) for r in refs):
        raise bad("invalid_field", "references are numbered 1 and 2", field="references")
    if any(r > ts.num_refs for r in refs):
        raise bad("invalid_field", f"this test set has {ts.num_refs} reference(s)", field="references")
    if not ids and not refs:
        raise bad("invalid_field", "choose at least one system", field="systems")
    eligible = {s.id: s for s in eligible_submissions(ts)}
    missing = [i for i in ids if i not in eligible]
    if missing:
        raise bad("invalid_field", f"submission(s) {', '.join(map(str, missing))} cannot be evaluated: not in this "
                  "test set, not validated, withdrawn, or document-level (not line-aligned)", field="systems",
                  submissions=missing)

    docs = docs if docs is not None else testset_docs(ts)
    method = selection.check_method(data.doc_selection)
    metric = check_text(str(data.doc_selection_metric or selection.DEFAULT_METRIC), "selection metric", max_len=50)
    if data.ranges.strip() and method != selection.UNIFORM:
        raise bad("invalid_field", "a selection chooses among sampled documents: leave the ranges empty, or "
                  "choose a uniform sample", field="doc_selection")
    try:
        if data.ranges.strip():
            ranges = sampling.parse_ranges(data.ranges, docs)
            chosen = {"method": "ranges"}
        else:
            n_docs = whole_number(data.sample_docs, "number of documents", 1, 10000)
            words = whole_number(data.sample_words, "source words", 0, 10**8)
            count = protocol.word_counter(settings, ts)
            if method == selection.UNIFORM:
                ranges = sampling.sample_ranges(docs, n_docs, words, count, seed)
                chosen = {"method": method}
            else:
                subs = [eligible[i] for i in ids]
                labels = {s.id: f"{s.system_name} (submission {s.id})" for s in subs}   # (unique, for errors)
                ranges = selection.choose_documents(ts, subs, labels, docs, n_docs, words, count, method, metric,
                                                    seed)
                chosen = {"method": method, "metric": metric, "systems": len(subs)}
    except sampling.CampaignError as exc:
        raise bad("invalid_ranges", str(exc), field="ranges") from None

    order = [f"ref{r}" for r in refs] + [f"sub{i}" for i in ids]
    if data.version_order:
        if sorted(data.version_order) != sorted(order):
            raise bad("invalid_field", "the version order must list exactly the chosen versions", field="versions")
        order = list(data.version_order)
    with db.write():
        campaign = Campaign(testset_id=ts.id, name=name, protocol=protocol.key, settings=settings, strategy=strategy,
                            redundancy=redundancy, instructions=instructions, ranges=[str(r) for r in ranges],
                            seed=seed, doc_selection=chosen, created_by_id=user.id if user is not None else None)
        db.session.add(campaign)
        db.session.flush()
        for pos, key in enumerate(order):
            number = int(key[3:])
            db.session.add(CampaignVersion(campaign_id=campaign.id, position=pos,
                                           **({"reference": number} if key.startswith("ref")
                                              else {"submission_id": number})))
    return campaign


def parsed_ranges(campaign: Campaign, docs: list[sampling.DocInfo] | None = None) -> list[sampling.Range]:
    docs = docs if docs is not None else testset_docs(campaign.testset)
    return sampling.parse_ranges("\n".join(campaign.ranges), docs)


def editable_setup(campaign: Campaign) -> None:
    if campaign.state != "draft":
        raise bad("campaign_started", "the campaign has started: systems, documents and redundancy are fixed", 409)


def update_systems(campaign: Campaign, submission_ids: list[int]) -> None:
    """Replaces the campaign's system versions (references stay)."""
    editable_setup(campaign)
    eligible = {s.id for s in eligible_submissions(campaign.testset)}
    ids = sorted({int(i) for i in submission_ids})
    if not ids or any(i not in eligible for i in ids):
        raise bad("invalid_field", "choose at least one system, among the evaluable submissions", field="systems")
    with db.write():
        campaign = db.session.merge(campaign)
        refs = [v for v in campaign.versions if v.reference is not None]
        for v in list(campaign.versions):
            if v.submission_id is not None:
                campaign.versions.remove(v)
        db.session.flush()
        for pos, sid in enumerate(ids, len(refs)):
            campaign.versions.append(CampaignVersion(submission_id=sid, position=pos))
