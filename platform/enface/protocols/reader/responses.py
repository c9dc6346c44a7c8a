"""A reader's saved answers as the pages and checks read them, and the check of a new answer."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ...campaigns.models import Assignment
from ...extensions import db
from . import answers as ans
from .design import STAGES, VERSIONS, chunk_sides, reading_order
from .display import paragraphs
from .texts import chunk_texts, item_texts


def live(asg: Assignment) -> dict[tuple[str, str], Any]:
    """{(kind, key): the latest live response} (highlights excluded: there are many per key)."""
    out: dict[tuple[str, str], Any] = {}
    for r in asg.responses:
        if r.deleted or r.kind == "highlight":
            continue
        k = (r.kind, r.key)
        if k not in out or (r.updated_at, r.id) > (out[k].updated_at, out[k].id):
            out[k] = r
    return out


def live_highlights(asg: Assignment) -> list[Any]:
    return sorted((r for r in asg.responses if r.kind == "highlight" and not r.deleted),
                  key=lambda r: (int(r.key), r.data.get("side", ""), r.data.get("start", 0), r.id))


def siblings(asg: Assignment) -> list[Assignment]:
    """All of this reader's books in the campaign (this one included), by number."""
    return list(db.session.scalars(select(Assignment).where(Assignment.annotator_id == asg.annotator_id)
                                   .options(selectinload(Assignment.responses)).order_by(Assignment.number)))


def passphrase_accepted(asg: Assignment, books: list[Assignment] | None = None) -> bool:
    if not asg.item.campaign.setting("passphrase"):
        return True
    return any(r.kind == "passphrase" and not r.deleted for a in (books or siblings(asg)) for r in a.responses)


def immersive_step(found: dict) -> int:
    r = found.get(("step", "immersive"))
    return int(r.data.get("step", 0)) if r is not None else 0


def context(asg: Assignment) -> ans.Context:
    """What :func:`answers.check` needs to judge an answer to this assignment."""
    campaign = asg.item.campaign
    found = live(asg)
    stage = STAGES[min(asg.stage, len(STAGES) - 1)]
    ctx = ans.Context(stage=stage, step=immersive_step(found), post_here=bool(asg.plan.get("post")),
                      passphrase=campaign.setting("passphrase") or None,
                      answers={k: r.data for k, r in found.items()})
    if ctx.passphrase is not None and passphrase_accepted(asg):
        ctx.answers[("passphrase", "")] = {"accepted": True}
    if stage == "immersive":
        texts = item_texts(asg.item)
        order = reading_order(asg.plan)
        ctx.paragraphs = {label: len(paragraphs(texts[order[label]])) for label in VERSIONS}
    elif stage == "close":
        texts = item_texts(asg.item)
        per_chunk = chunk_texts(asg.plan, texts)
        ctx.chunks = [{side: per_chunk[i][v] for side, v in chunk_sides(asg.plan, i + 1).items()}
                      for i in range(len(per_chunk))]
    return ctx


def check_response(asg: Assignment, kind: str, key: str, data: Any) -> dict:
    return ans.check(context(asg), kind, key, data)




def answer_data(found: dict, kind: str, key: str) -> dict:
    """The data of the live answer (kind, key) among ``found`` (see :func:`live`), or {}."""
    r = found.get((kind, key))
    return r.data if r is not None else {}
