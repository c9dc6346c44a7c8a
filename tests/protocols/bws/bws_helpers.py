"""Helpers of the BWS-protocol tests: the demo task (data/demo: both references) with three of its systems as
scored submissions, an organizer and annotators, BWS campaigns on it, and a judging policy."""

from __future__ import annotations

import uuid as uuidlib

from tests.support import ROOT
from tests.support.campaigns import PASSWORD, World, add_submission, annotator_assignments, fast_user

__all__ = ["PASSWORD", "QUALITY", "BwsWorld", "build_bws_world", "new_bws", "put_choice", "judge_all",
           "annotator_assignments"]

DEMO = ROOT / "data" / "demo"
# system name -> (demo folder, team, label, constrained); names are distinctive (the blind tests look for them)
# (in the order `enface demo` submits them, so that a campaign's versions come in the demo's order)
SYSTEMS = {"literal-baseline": ("literal-mt", None, "baseline", True),
           "lantern-nmt": ("strong-mt", "Lantern Lab", "primary", True),
           "inkstone-llm": ("weak-mt", "Inkstone MT", "primary", False)}
# the judging policy's order, best first (the demo's systems are written to be this good)
QUALITY = ["reference 1", "lantern-nmt", "reference 2", "literal-baseline", "inkstone-llm"]

BwsWorld = World


def build_bws_world(app, annotators: int = 3) -> BwsWorld:
    from enface.services.testsets import import_testset

    with app.app_context():
        ts = import_testset(DEMO / "testset", "Demo BWS")
        subs = {}
        for name, (folder, team, label, constrained) in SYSTEMS.items():
            outputs = {p.stem: p.read_text(encoding="utf-8").splitlines()
                       for p in (DEMO / "systems" / folder).glob("*.txt")}
            subs[name] = add_submission(ts.id, name, team, label, constrained, outputs)
        users = {"org@example.org": fast_user("org@example.org", "organizer", "Olga Organizer")}
        for n in range(1, annotators + 1):
            users[f"ann{n}@example.org"] = fast_user(f"ann{n}@example.org", "annotator", f"Annotator {n}")
        return BwsWorld(app=app, testset_id=ts.id, subs=subs, users=users)


def new_bws(world: BwsWorld, *, annotators=("ann1@example.org", "ann2@example.org"), redundancy=1,
            systems=None, references=(1, 2), ranges="jade-lantern.1:1-4", start=True, seed=5, **settings) -> int:
    """Create (and start) a BWS campaign through the services; returns its id."""
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of
    from enface.extensions import db
    from enface.models import TestSet, User

    with world.ctx():
        org = db.session.get(User, world.users["org@example.org"])
        ts = db.session.get(TestSet, world.testset_id)
        ids = [world.subs[s] for s in (systems if systems is not None else list(SYSTEMS))]
        data = protocol_of("bws").campaign_input(name="Demo BWS", submission_ids=ids, references=list(references),
                                                 redundancy=redundancy, ranges=ranges, seed=seed, **settings)
        camp = svc.create_campaign(org, ts, data)
        for email in annotators:
            svc.add_annotator(camp, db.session.get(User, world.users[email]))
        if start:
            svc.start_campaign(svc.get_campaign(camp.id))
        return camp.id


def put_choice(client, public_id: str, data: dict, uid: str | None = None, rev: int = 1, kind="choice", key="bws"):
    uid = uid or str(uuidlib.uuid4())
    return client.put(f"/annotate/api/items/{public_id}/responses/{uid}",
                      json={"rev": rev, "kind": kind, "key": key, "data": data}), uid


def versions_by_slot(world: BwsWorld, public_id: str) -> dict[int, str]:
    """{slot: organizer-facing version name} of an assignment's item (the test's view, not the annotator's)."""
    from enface.campaigns.models import Assignment
    from enface.campaigns.services import version_labels
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        asg = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        labels = version_labels(asg.item.campaign)
        return {iv.slot: labels[iv.version_id] for iv in asg.item.versions}


def judge_all(world: BwsWorld, campaign_id: int, email: str, order=QUALITY) -> int:
    """The annotator judges every item by ``order`` (best and worst of the tuple) and finishes it."""
    with world.ctx():
        ids = [a.public_id for a in annotator_assignments(world, campaign_id, email)]
    client = world.client(email)
    for pid in ids:
        slots = versions_by_slot(world, pid)
        ranked = sorted(slots, key=lambda s: order.index(slots[s]))
        r, _uid = put_choice(client, pid, {"best": ranked[0], "worst": ranked[-1]})
        assert r.status_code == 200, r.get_json()
        r = client.post(f"/annotate/api/items/{pid}/finish", json={})
        assert r.status_code == 200, r.get_json()
    return len(ids)
