"""The demo's phenomenon-tagged set (data/demo/phenomena) and its rubric campaign, for ``enface demo``."""

from __future__ import annotations

from pathlib import Path

import click

PHENOMENA_TASK = "Demo"
PHENOMENA_SUBMISSIONS = [
    # submitter, system dir, label, constrained, system name, description
    ("organizer@demo.enface.org", "literal-mt", "baseline", True, "literal-baseline",
     "Word-for-word baseline: idioms and cultivation terms translated literally."),
    ("captain@lantern-lab.example", "careful-mt", "primary", True, "lantern-nmt",
     "Document-level NMT fine-tuned on web novels, with a glossary of cultivation terms."),
    ("captain@inkstone.example", "chatty-llm", "primary", False, "inkstone-llm",
     "A prompted LLM, no fine-tuning (unconstrained): fluent, with tense slips and one refusal."),
]
DEMO_RUBRIC = {"name": "Demo rubric (DITING phenomena)", "annotators": ["annotator@demo.enface.org"]}


def phenomena_testset(demo_dir: Path):
    """The tagged test set, imported once into the task "Demo" (call in an app context)."""
    from sqlalchemy import select

    from ..extensions import db
    from ..models import Task, TestSet
    from ..services.testsets import import_testset

    folder = demo_dir / "phenomena" / "testset"
    ts = db.session.scalar(select(TestSet).join(Task).where(Task.name == PHENOMENA_TASK,
                                                            TestSet.name == "Demo phenomena zh-en"))
    if ts is None:
        ts = import_testset(folder, PHENOMENA_TASK)
        click.echo(f"imported the demo phenomena set: {ts.num_segments} segments, tagged phenomena included")
    return ts


def demo_rubric_campaign(testset_id: int) -> list[str]:
    """Creates and starts the demo's rubric campaign once; returns what to tell the user."""
    from sqlalchemy import select

    from ..campaigns import services as svc
    from ..campaigns.models import Campaign
    from ..campaigns.protocol import protocol_of
    from ..extensions import db
    from ..models import TestSet
    from ..services import accounts

    if db.session.scalar(select(Campaign.id).where(Campaign.testset_id == testset_id).limit(1)) is not None:
        return []
    ts = db.session.get(TestSet, testset_id)
    subs = svc.eligible_submissions(ts)
    if len(subs) < len(PHENOMENA_SUBMISSIONS):
        return ["(no rubric campaign created: the demo phenomena systems were not scored)"]
    org = accounts.get_user_by_email("organizer@demo.enface.org")
    data = protocol_of("rubric").campaign_input(name=DEMO_RUBRIC["name"], submission_ids=[s.id for s in subs],
                                                redundancy=1, seed=1, testset=ts)
    campaign = svc.create_campaign(org, ts, data)
    for email in DEMO_RUBRIC["annotators"]:
        svc.add_annotator(campaign, accounts.get_user_by_email(email))
    out = svc.start_campaign(svc.get_campaign(campaign.id))
    return [f"rubric campaign {campaign.id} started for annotator@demo.enface.org ({out['items']} items: "
            "17 tagged phenomena in 3 systems' translations)"]
