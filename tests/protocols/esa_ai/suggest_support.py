"""Helpers of the ESA^AI tests: a campaign, a source, the scripted endpoint's rules for the span prompt."""

from __future__ import annotations

from tests.support.campaigns import OUTPUTS, new_campaign

PROMPT = "You are an experienced"          # how the error-span prompt starts (humaneval/esa/prompts/spans.txt)
ORCHARD = OUTPUTS["orchard"]               # zephyr-mt's output is the text as written


def campaign(world, *, start=False, systems=("zephyr-mt",), ranges="orchard", **kw) -> int:
    return new_campaign(world, systems=list(systems), ranges=ranges, start=start, redundancy=1,
                        annotators=("ann1@example.org",), **kw)


def answer(*errors, score=None) -> dict:
    body = {"errors": list(errors)}
    if score is not None:
        body["score"] = score
    return {"json": body}


def rule(marker: str, *replies) -> dict:
    return {"prefix": PROMPT, "match": [marker], "replies": list(replies)}


def add_llm(world, cid, base_url, **fields) -> int:
    from enface.campaigns import services as svc
    from enface.protocols.esa.suggestions.source import LlmInput, set_llm_source

    with world.ctx():
        return set_llm_source(svc.get_campaign(cid), LlmInput(base_url=base_url, model="m", **fields)).id


def run(world, suggester_id) -> dict:
    from enface.protocols.esa.suggestions.running import run_suggester

    with world.ctx():
        return run_suggester(suggester_id)


def rows(world, suggester_id) -> dict:
    """{(document name, 1-based segment): Suggestion row}"""
    from enface.extensions import db
    from enface.models import Document
    from enface.protocols.esa.suggestions.models import Suggestion
    from sqlalchemy import select

    with world.ctx():
        found = db.session.execute(select(Suggestion, Document.name).join(Document, Document.id == Suggestion.document_id)
                                   .where(Suggestion.suggester_id == suggester_id)).all()
        for s, _ in found:
            db.session.expunge(s)
        return {(name, s.position + 1): s for s, name in found}
