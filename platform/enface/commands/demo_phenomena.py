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
#: the scripted demo judge's answer key: per tagged segment and system, the scores a careful judge would give
JUDGE_ANSWERS = "judge-answers.tsv"
DEMO_RUBRIC = {"name": "Demo rubric (DITING phenomena)", "annotators": ["annotator@demo.enface.org"]}


def phenomena_testset(demo_dir: Path):
    """The tagged test set, imported once into the task "Demo" (call in an app context)."""
    from sqlalchemy import select

    from ..extensions import db
    from ..models import Task, TestSet, utcnow
    from ..services.testsets import change_settings, import_testset

    folder = demo_dir / "phenomena" / "testset"
    ts = db.session.scalar(select(TestSet).join(Task).where(Task.name == PHENOMENA_TASK,
                                                            TestSet.name == "Demo phenomena zh-en"))
    if ts is None:
        ts = import_testset(folder, PHENOMENA_TASK)
        ts = change_settings(ts, opens_at=utcnow())   # an import starts closed; the demo systems are submitted now
        click.echo(f"imported the demo phenomena set: {ts.num_segments} segments, tagged phenomena included")
    return ts


def demo_rubric_campaign(testset_id: int) -> list[str]:
    """Creates and starts the demo's rubric campaign once; returns what to tell the user."""
    from sqlalchemy import select

    from ..campaigns import services as svc
    from ..campaigns.models import Campaign
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
    from ..protocols.rubric.protocol import campaign_input

    data = campaign_input(name=DEMO_RUBRIC["name"], submission_ids=[s.id for s in subs], redundancy=1, seed=1,
                          testset=ts)
    campaign = svc.create_campaign(org, ts, data)
    for email in DEMO_RUBRIC["annotators"]:
        svc.add_annotator(campaign, accounts.get_user_by_email(email))
    out = svc.start_campaign(svc.get_campaign(campaign.id))
    return [f"rubric campaign {campaign.id} started for annotator@demo.enface.org ({out['items']} items: "
            "17 tagged phenomena in 3 systems' translations)"]


def judge_answers(demo_dir: Path) -> dict[tuple[str, str, int, str], dict]:
    """{(system name, document, 1-based segment, dimension): {"sp", "g_1", "g_2", "reason"}} from the demo's
    answer key (data/demo/phenomena/judge-answers.tsv; its systems named by their folders, which name them too);
    {} without it."""
    import csv

    file = demo_dir / "phenomena" / JUDGE_ANSWERS
    if not file.is_file():
        return {}
    names = {folder: name for _who, folder, _label, _constrained, name, _desc in PHENOMENA_SUBMISSIONS}
    out = {}
    with file.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            answer = {"sp": int(row["sp"]), "g_1": int(row["g_1"]), "g_2": int(row["g_2"]), "reason": row["reason"]}
            for system in {row["system"], names.get(row["system"], row["system"])}:   # its folder and demo name
                out[(system, row["document"], int(row["segment"]), row["dimension"])] = answer
    return out


def answered_items(tasks, answers: dict) -> list[dict]:
    """The judge tasks' items, each with its entry of the answer key (``"answer"``) where it has one."""
    out = []
    for item, task in tasks:
        version = item.versions[0].version
        system = version.submission.system_name if version.submission is not None else version.label
        key = (system, item.document.name, item.seg_start + 1, task.item["dimension"])
        out.append({**task.item, **({"answer": answers[key]} if key in answers else {})})
    return out
