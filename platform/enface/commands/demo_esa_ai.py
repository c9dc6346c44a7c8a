"""The demo's ESA^AI campaign: an ESA campaign for the demo annotator whose error spans are suggested by an
LLM suggester talking to the demo's scripted endpoint (started by :mod:`.demo_judge`; no model involved)."""

from __future__ import annotations

DEMO_ESA_AI = {"name": "Demo ESA^AI", "annotators": ["annotator@demo.enface.org"],
               "ranges": "jade-lantern.1:1-6\nmountain-inn:1-6", "suggester": "Demo suggester (scripted endpoint)"}
#: until the endpoint has started and its port is known (start_demo_judge points the suggester at it)
PLACEHOLDER_URL = "http://127.0.0.1:9/v1"


def _campaign():
    from sqlalchemy import select

    from ..campaigns.models import Campaign
    from ..extensions import db

    return db.session.scalars(select(Campaign).where(Campaign.name == DEMO_ESA_AI["name"],
                                                     Campaign.protocol == "esa").order_by(Campaign.id)).first()


def demo_esa_ai_campaign(testset_id: int, organizer: str, endpoint_key: str) -> list[str]:
    """Creates and starts the demo's ESA^AI campaign once (its suggester is pointed at the endpoint later);
    ``endpoint_key``: what the demo's scripted endpoint asks as a Bearer token (stored encrypted)."""
    from ..campaigns import services as svc
    from ..campaigns.protocol import PROTOCOLS
    from ..extensions import db
    from ..models import Submission, TestSet
    from ..protocols.esa.suggestions.source import LlmInput, set_llm_source
    from ..services import accounts

    if "esa" not in PROTOCOLS or _campaign() is not None:
        return []
    ts = db.session.get(TestSet, testset_id)
    org = accounts.get_user_by_email(organizer)
    ids = [s.id for s in svc.eligible_submissions(ts) if db.session.get(Submission, s.id).label != "contrastive"]
    if not ids:
        return ["(no ESA^AI campaign created: the demo systems were not scored)"]
    camp = svc.create_campaign(org, ts, svc.CampaignInput(
        name=DEMO_ESA_AI["name"], submission_ids=ids, protocol="esa", redundancy=1, ranges=DEMO_ESA_AI["ranges"],
        settings={"attention_share": 0.0}, seed=1))
    set_llm_source(svc.get_campaign(camp.id), LlmInput(base_url=PLACEHOLDER_URL, model="scripted-demo",
                                                        name=DEMO_ESA_AI["suggester"], api_key=endpoint_key,
                                                        concurrency=4, demo=True))
    for email in DEMO_ESA_AI["annotators"]:
        svc.add_annotator(svc.get_campaign(camp.id), accounts.get_user_by_email(email))
    svc.start_campaign(svc.get_campaign(camp.id))
    return [f"ESA^AI campaign {camp.id} started for annotator@demo.enface.org (its spans are suggested by the "
            "demo's scripted endpoint)"]


def demo_span_rules() -> list[dict]:
    """The scripted endpoint's answers to the error-span prompt for every segment of the demo campaign."""
    from humaneval.esa.demo_script import span_rules

    from ..protocols.esa.suggestions.targets import campaign_targets

    campaign = _campaign()
    return span_rules(t.translation for t in campaign_targets(campaign)) if campaign is not None else []


def point_demo_suggester(base_url: str, url: str) -> list[str]:
    """Points the demo suggester at the endpoint's URL and queues its run (once: suggested segments stay)."""
    from ..extensions import db
    from ..protocols.esa.suggestions.models import Suggester
    from ..protocols.esa.suggestions.report import progress
    from ..protocols.esa.suggestions.running import queue_run
    from ..protocols.esa.suggestions.source import get_suggester

    campaign = _campaign()
    suggester = get_suggester(campaign) if campaign is not None else None
    if suggester is None or not suggester.demo:
        return []
    with db.write():
        db.session.get(Suggester, suggester.id).base_url = base_url
    db.session.refresh(suggester)
    p = progress(suggester)
    if p["done"] < p["total"] and not p["alive"]:
        queue_run(suggester)
    return [f"ESA^AI suggester on campaign {campaign.id}, against the demo's scripted endpoint: "
            f"{url}/protocols/esa/campaigns/{campaign.id}/suggestions"]


def demo_suggester_states() -> list[str]:
    from sqlalchemy import select

    from ..extensions import db
    from ..protocols.esa.suggestions.models import Suggester

    return list(db.session.scalars(select(Suggester.state).where(Suggester.demo.is_(True))))
