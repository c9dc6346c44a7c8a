"""A campaign's life: start (items, assignment), open/close, rebalance, release, and the leaderboard hook."""

from __future__ import annotations

import json
import random
import secrets
from collections import defaultdict
from dataclasses import replace

from sqlalchemy import func, select

from humaneval.reader_design import counterbalance

from ...extensions import db
from ...models import utcnow
from ...services import NotFound
from .. import assignment
from ..models import Assignment, Campaign, CampaignAnnotator, CampaignVersion, Item, ItemVersion, Response
from ..protocol import PROTOCOLS, ItemPlan, default_protocol, protocol_of
from .common import bad


def _annotator_specs(campaign: Campaign) -> list[assignment.AnnotatorSpec]:
    return [assignment.AnnotatorSpec(key=a.id, teams=frozenset({a.user.team_id} if a.user.team_id else ()))
            for a in campaign.annotators]


def _item_specs(plans: list[ItemPlan]) -> list[assignment.ItemSpec]:
    return [assignment.ItemSpec(key=i, team=None, teams=p.team_ids, words=p.source_words, doc=p.group or str(i))
            for i, p in enumerate(plans)]


MAX_REDRAWS = 200


def counterbalanced_pairs(campaign: Campaign, plans: list[ItemPlan], annotators: list[CampaignAnnotator],
                          per_item: int, per_annotator: int) -> list[tuple[int, int, int]]:
    """(item index, annotator id, version read first: 1 or 2) for items of two versions, counterbalanced
    (:func:`humaneval.reader_design.counterbalance`: each item's annotators split between the two orders,
    each annotator's items too), no annotator on an item that holds their own team's work.

    The design ignores teams; a draw that breaks the rule is redrawn with the next seed (the design
    stays balanced), up to :data:`MAX_REDRAWS` times.
    """
    if not annotators:
        raise bad("too_few_annotators", "the campaign has no annotators yet: invite or add some first", 409)
    readers = [str(a.id) for a in annotators]
    teams = {str(a.id): a.user.team_id for a in annotators}
    items = [str(i) for i in range(len(plans))]
    clash_seen = ""
    for attempt in range(MAX_REDRAWS):
        try:
            slots = counterbalance(readers, items, readers_per_document=per_item, documents_per_reader=per_annotator,
                                   seed=campaign.seed + attempt)
        except ValueError as exc:
            raise bad("cannot_assign", f"cannot counterbalance: {exc}", 409) from None
        clash = [s for s in slots if teams[s.reader] and teams[s.reader] in plans[int(s.document)].team_ids]
        if not clash:
            return [(int(s.document), int(s.reader), s.first_version) for s in slots]
        clash_seen = f"annotator {clash[0].reader} would get their own team's work"
    raise bad("cannot_assign", f"no counterbalanced design keeps every annotator off their own team's work "
              f"({clash_seen}): add annotators from other teams", 409)


def plan_by_strategy(campaign: Campaign, plans: list[ItemPlan]) -> list[tuple[int, int, dict]]:
    """(item index, annotator id, plan) for the campaign's strategy (see :mod:`~enface.campaigns.assignment`); "pairs" plans say
    which version is read first ({"first": 1 or 2})."""
    if campaign.strategy == "pairs":
        annotators = list(campaign.annotators)
        per_annotator = -(-len(plans) * campaign.redundancy // max(len(annotators), 1))
        return [(i, a, {"first": first}) for i, a, first in
                counterbalanced_pairs(campaign, plans, annotators, campaign.redundancy, per_annotator)]
    if len(campaign.annotators) < campaign.redundancy:
        raise bad("too_few_annotators", f"redundancy is {campaign.redundancy} but the campaign has "
                  f"{len(campaign.annotators)} annotator(s): invite or add more first", 409)
    planner = assignment.plan_by_document if campaign.strategy == "document" else assignment.plan_assignments
    try:
        plan = planner(_item_specs(plans), _annotator_specs(campaign), campaign.redundancy, seed=campaign.seed)
    except assignment.CampaignError as exc:
        raise bad("cannot_assign", str(exc), 409) from None
    return [(i, a, {}) for i, anns in plan.items() for a in anns]


def start_campaign(campaign: Campaign) -> dict:
    """Builds the protocol's items, assigns them (the protocol's design or the campaign's strategy),
    lets the protocol prepare the assignments (attention checks, orders); opens the campaign."""
    if campaign.state != "draft":
        raise bad("campaign_started", "the campaign has already started", 409)
    if not campaign.versions:
        raise bad("no_systems", "choose at least one system first", 409)
    protocol = protocol_of(campaign)
    plans = protocol.build_items(campaign)
    if not campaign.annotators:
        raise bad("too_few_annotators", "the campaign has no annotators yet: invite or add some first", 409)
    triples = protocol.plan_assignments(campaign, plans, list(campaign.annotators))
    if triples is None:
        triples = plan_by_strategy(campaign, plans)

    rng = random.Random(campaign.seed + 1)
    per_annotator: dict[int, list[tuple[int, dict]]] = defaultdict(list)
    for i, a, plan in triples:
        per_annotator[a].append((i, plan))
    with db.write():
        camp = db.session.get(Campaign, campaign.id)
        if camp.state != "draft":
            raise bad("campaign_started", "the campaign has already started", 409)
        rows = []
        for pos, p in enumerate(plans):
            item = Item(campaign_id=camp.id, document_id=p.document_id, seg_start=p.seg_start, seg_end=p.seg_end,
                        position=pos, source_words=p.source_words)
            item.versions = [ItemVersion(slot=slot, version_id=vid) for slot, vid in enumerate(p.version_ids, 1)]
            db.session.add(item)
            rows.append(item)
        db.session.flush()
        assignments = []
        for a in sorted(per_annotator):
            order = list(per_annotator[a])
            rng.shuffle(order)   # random item order: no system or document order to read into
            for number, (i, plan) in enumerate(order, 1):
                asg = Assignment(campaign_id=camp.id, item_id=rows[i].id, annotator_id=a, number=number,
                                 public_id=secrets.token_urlsafe(12), plan=plan)
                db.session.add(asg)
                assignments.append(asg)
        db.session.flush()
        extra = protocol.on_assigned(camp, assignments)
        camp.state = "open"
        camp.started_at = utcnow()
    return {"items": len(rows), "assignments": len(assignments), **extra}


def _unstarted(campaign_id: int) -> list[Assignment]:
    """Assignments nobody has touched: pending, and without any saved answer."""
    answered = select(Response.assignment_id).where(Response.assignment_id == Assignment.id).exists()
    return list(db.session.scalars(
        select(Assignment).where(Assignment.campaign_id == campaign_id, Assignment.state == "pending",
                                 Assignment.started_at.is_(None), ~answered).order_by(Assignment.id)))


def rebalance(campaign: Campaign) -> dict:
    """Moves unstarted items from the most loaded annotators to the least loaded ones (annotators who
    joined after the start included), never to an annotator who has the item already or whose team's
    system it shows. Started and finished work never moves. Returns how many items moved."""
    if campaign.state not in ("open", "closed"):
        raise bad("bad_transition", f"a {campaign.state} campaign has nothing to rebalance", 409)
    protocol = protocol_of(campaign)
    moved = 0
    with db.write():
        camp = db.session.get(Campaign, campaign.id)
        # Inactive accounts take no new work: a disabled annotator, or an LLM judge's machine account.
        annotators = {a.id: a for a in camp.annotators if a.user.active}
        teams = {a.id: {a.user.team_id} - {None} for a in annotators.values()}
        load = dict.fromkeys(annotators, 0)
        holders: dict[int, set[int]] = defaultdict(set)
        for asg in db.session.scalars(select(Assignment).where(Assignment.campaign_id == camp.id)):
            load[asg.annotator_id] = load.get(asg.annotator_id, 0) + 1
            holders[asg.item_id].add(asg.annotator_id)
        movable = [a for a in _unstarted(camp.id) if protocol.movable(a)]
        for asg in sorted(movable, key=lambda a: -load[a.annotator_id]):
            item_teams = {v.version.submission.team_id for v in asg.item.versions if v.version.submission}
            choices = [k for k in annotators if k not in holders[asg.item_id] and not (teams[k] & item_teams)]
            if not choices:
                continue
            target = min(choices, key=lambda k: (load[k], annotators[k].position))
            if load[target] + 1 >= load[asg.annotator_id]:
                continue   # moving would not even out the load
            holders[asg.item_id].discard(asg.annotator_id)
            holders[asg.item_id].add(target)
            load[asg.annotator_id] -= 1
            load[target] += 1
            asg.annotator_id = target
            asg.number = -asg.id   # placeholder, renumbered below (numbers are unique per annotator)
            moved += 1
        db.session.flush()
        for ann_id in annotators:
            _renumber(ann_id)
    return {"moved": moved}


def _renumber(annotator_id: int) -> None:
    """Numbers 1..n again for one annotator, keeping the order of what they have (moved items last)."""
    rows = list(db.session.scalars(select(Assignment).where(Assignment.annotator_id == annotator_id)))
    rows.sort(key=lambda a: (a.number < 0, a.number if a.number > 0 else -a.number))
    top = (db.session.scalar(select(func.max(Assignment.number)).where(Assignment.annotator_id == annotator_id))
           or 0) + 1 + len(rows)
    for k, a in enumerate(rows):   # two passes: (annotator, number) is unique at every flush
        a.number = top + k
    db.session.flush()
    for k, a in enumerate(rows, 1):
        a.number = k
    db.session.flush()


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
        protocol_of(campaign).on_reopen(asg)


def delete_campaign(campaign: Campaign) -> None:
    if campaign.state == "released":
        raise bad("campaign_released", "withdraw the release before deleting the campaign", 409)
    with db.write():
        db.session.delete(db.session.get(Campaign, campaign.id))


# --------------------------------------------------------------------------- release and the leaderboard


def results_public(campaign: Campaign) -> bool:
    """Whether everyone may see the campaign's results: released, on a released test set.

    A campaign released before its test set waits: its results name systems and teams and quote
    their outputs, which the test set keeps private until its own release.
    """
    return campaign.state == "released" and bool(campaign.testset.released)


def annotating_blind(user, testset_id: int) -> bool:
    """Whether ``user`` annotates in a started, unreleased campaign on this test set: such an annotator
    judges outputs without their systems' names, so nothing may tie the two for them (the output
    browser, the release bundle, a released campaign's results and exports) until that campaign is
    released, even after the test set's own release."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return db.session.scalar(
        select(CampaignAnnotator.id).join(Campaign, CampaignAnnotator.campaign_id == Campaign.id)
        .where(CampaignAnnotator.user_id == user.id, Campaign.testset_id == testset_id,
               Campaign.state.in_(("open", "closed"))).limit(1)) is not None


def finished_work(campaign: Campaign) -> tuple[int, int]:
    """(assignments with finished work, all assignments): finished items, or items whose first part
    (a stage) is done, since a protocol with stages has results before its last stage."""
    done, total = db.session.execute(
        select(func.count().filter((Assignment.state == "finished") | (Assignment.stage > 0)), func.count())
        .where(Assignment.campaign_id == campaign.id)).one()
    return done or 0, total or 0


def release(campaign: Campaign) -> dict:
    """Freezes the protocol's results and puts them on the test set's leaderboard (public once the test set
    is released: :func:`results_public`)."""
    if campaign.state not in ("open", "closed"):
        raise bad("bad_transition", f"a {campaign.state} campaign cannot be released", 409)
    if finished_work(campaign)[0] == 0:
        raise bad("nothing_finished", "no item is finished yet: there are no results to release", 409)
    snapshot = json.loads(json.dumps(protocol_of(campaign).release_snapshot(campaign), default=str))
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
    from ...services.testsets import bump_scores_version

    bump_scores_version(db.session, testset_id)


def released_campaign(testset_id: int, protocol: str | None = None) -> Campaign | None:
    """The latest released campaign of a protocol (None: the default protocol) for a test set."""
    protocol = protocol or default_protocol().key
    return db.session.scalar(select(Campaign).where(Campaign.testset_id == testset_id, Campaign.state == "released",
                                                    Campaign.protocol == protocol)
                             .order_by(Campaign.released_at.desc(), Campaign.id.desc()).limit(1))


def attach_to_leaderboard(board: dict) -> dict:
    """Asks each protocol with a released campaign on this test set for its leaderboard part.

    A protocol's part lands in ``board[key]`` and, per submission, in ``row[key]`` (e.g. its
    column and its human ranking); ``board["human_columns"]``: the
    :class:`~enface.campaigns.contract.LeaderboardColumn` of each protocol that gave one, in
    the protocols' order; ``board["api_row_fields"]``: the keys the API's rows always carry.
    Protocols without a released campaign give None.
    """
    keys = set(db.session.scalars(select(Campaign.protocol).where(Campaign.testset_id == board["testset_id"],
                                                                  Campaign.state == "released").distinct()))
    always = [p.key for p in PROTOCOLS.values() if p.leaderboard_column and p.leaderboard_column.api_row_field]
    columns = []
    for key in sorted(keys & set(PROTOCOLS) | set(always)):
        protocol = protocol_of(key)
        camp = released_campaign(board["testset_id"], key)
        info = protocol.leaderboard(camp) if camp is not None and camp.results else None
        board[key] = info
        if info:
            board.setdefault("human_keys", []).append(key)
            if protocol.leaderboard_column is not None:
                columns.append(replace(protocol.leaderboard_column, key=key))
        if info and info.get("ranking"):
            info["ranking"] = _mark_switched(info["ranking"], board.get("rows", []))
        for row in board.get("rows", []):
            row[key] = info["by_submission"].get(row["submission_id"]) if info else None
    order = list(PROTOCOLS)
    board["human_columns"] = sorted(columns, key=lambda c: order.index(c.key))
    board["api_row_fields"] = always
    return board


def _mark_switched(ranking: dict, board_rows: list[dict]) -> dict:
    """A copy of the ranking whose rows say what each evaluated submission is now, where that changed since
    the evaluation (``now``: "contrastive" after a primary switch, "off the board" after a withdrawal); the ranking stays."""
    group_now = {r["submission_id"]: r["group"] for r in board_rows}
    rows = []
    for row in ranking["rows"]:
        sid, now = row.get("submission_id"), None
        if sid is not None and row.get("kind") != "reference":
            current = group_now.get(sid)
            if current is None:
                now = "off the board"
            elif current != row.get("kind") and current == "contrastive":
                now = "contrastive"
        rows.append({**row, "now": now})
    return {**ranking, "rows": rows, "switched": [r for r in rows if r["now"]]}


def released_campaigns_of(submission_id: int) -> list[Campaign]:
    """The released campaigns that evaluated this submission."""
    return list(db.session.scalars(select(Campaign).join(CampaignVersion, CampaignVersion.campaign_id == Campaign.id)
                                   .where(CampaignVersion.submission_id == submission_id,
                                          Campaign.state == "released").order_by(Campaign.id)))


def annotators_without_items(campaign: Campaign) -> list[CampaignAnnotator]:
    have = set(db.session.scalars(select(Assignment.annotator_id).where(Assignment.campaign_id == campaign.id)))
    return [a for a in campaign.annotators if a.id not in have]
