"""Judgments from a JUDGMENTS.csv file into a started BWS campaign (the demo's finished campaign, a pilot run
elsewhere): each row finishes the assignment of its rater that shows its passage and its versions."""

from __future__ import annotations

import uuid
from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from humaneval.bws import read_judgments
from humaneval.errors import HumanEvalInputError

from ...campaigns.models import Assignment, Campaign, Item, Response
from ...campaigns.services import bad, version_labels
from ...extensions import db
from ...models import utcnow
from .responses import KEY, KIND
from .results import passage_label

IMPORTED_MS = 30_000   # the time an imported judgment is said to have taken


def import_judgments(campaign: Campaign, path) -> dict:
    """Finish one assignment per row; raises ServiceError (400) naming the file and line, nothing written then."""
    if campaign.state != "open":
        raise bad("bad_transition", f"judgments go into an open campaign (this one is {campaign.state})", 409)
    try:
        rows = read_judgments(path)
    except HumanEvalInputError as exc:
        raise bad("invalid_judgments", str(exc), field="file") from None
    labels = version_labels(campaign)
    asgs = db.session.scalars(select(Assignment).where(Assignment.campaign_id == campaign.id)
                              .options(selectinload(Assignment.item).selectinload(Item.document),
                                       selectinload(Assignment.item).selectinload(Item.versions),
                                       selectinload(Assignment.annotator), selectinload(Assignment.responses))).all()
    free: dict[tuple[str, str, frozenset[str]], list[Assignment]] = defaultdict(list)
    for a in asgs:
        if a.state != "finished" and not any(not r.deleted for r in a.responses):
            versions = frozenset(labels[iv.version_id] for iv in a.item.versions)
            free[(a.annotator.rater, passage_label(a.item), versions)].append(a)
    chosen = []
    for row in rows:
        candidates = free.get((row.annotator, row.item, frozenset(row.versions)))
        if not candidates:
            raise bad("invalid_judgments", f"{path}:{row.line}: no unjudged tuple of {row.annotator} shows "
                      f"{'|'.join(row.versions)} on {row.item} in this campaign (raters are rater1, rater2, ... in "
                      "the order annotators were added)", field="file")
        asg = candidates.pop(0)
        slot = {labels[iv.version_id]: iv.slot for iv in asg.item.versions}
        chosen.append((asg.id, [slot[v] for v in row.versions], slot[row.best], slot[row.worst]))
    now = utcnow()
    with db.write():
        for asg_id, order, best, worst in chosen:
            asg = db.session.get(Assignment, asg_id)
            db.session.add(Response(assignment_id=asg.id, uuid=str(uuid.uuid4()), kind=KIND, key=KEY,
                                    data={"best": best, "worst": worst}))
            asg.plan = {**(asg.plan or {}), "order": order}   # the order the file's rater saw
            asg.state, asg.time_ms = "finished", IMPORTED_MS
            asg.started_at = asg.started_at or now
            asg.last_active_at = asg.finished_at = now
    return {"judgments": len(chosen)}
