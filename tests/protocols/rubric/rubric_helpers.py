"""Helpers of the rubric-protocol tests: the demo phenomena set (data/demo/phenomena) imported, its three
demo systems as scored submissions, an organizer and annotators, and rubric campaigns on it."""

from __future__ import annotations

import uuid as uuidlib
from pathlib import Path

from tests.support import ROOT
from tests.support.campaigns import PASSWORD, World, add_submission, annotator_assignments, fast_user

__all__ = ["PASSWORD", "PHENOMENA_DIR", "RubricWorld", "build_rubric_world", "new_rubric", "put_score", "items_of",
           "annotator_assignments"]

PHENOMENA_DIR = ROOT / "data" / "demo" / "phenomena"
# system name -> (team, label, constrained); names are distinctive (the blind tests look for them)
SYSTEMS = {"careful-mt": ("Heron", "primary", True), "literal-mt": (None, "baseline", True),
           "chatty-llm": ("Kestrel", "primary", False)}


RubricWorld = World   # the campaign tests' world: app, test set, submissions by system name, users


def system_outputs(system: str, folder: Path = PHENOMENA_DIR) -> dict[str, list[str]]:
    return {p.stem: p.read_text(encoding="utf-8").splitlines() for p in (folder / "systems" / system).glob("*.txt")}


def build_rubric_world(app, annotators: int = 3) -> RubricWorld:
    from enface.services.testsets import import_testset

    with app.app_context():
        ts = import_testset(PHENOMENA_DIR / "testset", "Phenomena 2026")
        subs = {name: add_submission(ts.id, name, team, label, constrained, system_outputs(name))
                for name, (team, label, constrained) in SYSTEMS.items()}
        users = {"org@example.org": fast_user("org@example.org", "organizer", "Olga Organizer")}
        for n in range(1, annotators + 1):
            users[f"ann{n}@example.org"] = fast_user(f"ann{n}@example.org", "annotator", f"Annotator {n}")
        return RubricWorld(app=app, testset_id=ts.id, subs=subs, users=users)


def new_rubric(world: RubricWorld, *, annotators=("ann1@example.org", "ann2@example.org"), redundancy=2,
               systems=None, ranges="", start=True, seed=3, rubric="diting", **settings) -> int:
    """Create (and start) a rubric campaign through the services; returns its id."""
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet, User
    from enface.protocols.rubric.protocol import campaign_input as rubric_campaign_input

    with world.ctx():
        org = db.session.get(User, world.users["org@example.org"])
        ts = db.session.get(TestSet, world.testset_id)
        ids = [world.subs[s] for s in (systems or list(SYSTEMS))]
        data = rubric_campaign_input(name="Phenomena rubric", submission_ids=ids,
                                                    redundancy=redundancy, ranges=ranges, seed=seed, rubric=rubric,
                                                    testset=ts, **settings)
        camp = svc.create_campaign(org, ts, data)
        for email in annotators:
            svc.add_annotator(camp, db.session.get(User, world.users[email]))
        if start:
            svc.start_campaign(svc.get_campaign(camp.id))
        return camp.id


def items_of(world: RubricWorld, campaign_id: int, email: str) -> list[dict]:
    """The annotator's items as the API shows them (item state), by number."""
    with world.ctx():
        ids = [a.public_id for a in annotator_assignments(world, campaign_id, email)]
    client = world.client(email)
    return [client.get(f"/annotate/api/items/{pid}").get_json() for pid in ids]


def put_score(client, public_id: str, key: str, data: dict, uid: str | None = None, rev: int = 1):
    uid = uid or str(uuidlib.uuid4())
    return client.put(f"/annotate/api/items/{public_id}/responses/{uid}",
                      json={"rev": rev, "kind": "score", "key": key, "data": data}), uid
