"""Helpers of the campaign tests (the core and MQM): the world (test set, systems, annotators),
API shortcuts, and the ``app`` and ``world`` fixtures their conftest files import."""

from __future__ import annotations

import json
import uuid as uuidlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .services import require_service  # noqa: F401  (the browser tests take it from here)

PASSWORD = "correct horse battery"
ROOT = Path(__file__).resolve().parents[2]


DOCS = {
    "river.1": [
        "The old ferryman rowed slowly across the grey river.",
        "Nobody on the bank knew his name.",
        "He carried letters, salt and sometimes a frightened child.",
        "When the fog came down, he sang to find the other shore.",
    ],
    "orchard": [
        "My grandmother planted the orchard before the war.",
        "Every autumn the apples fell faster than we could gather them.",
        "She said the trees remembered everyone who had climbed them.",
    ],
}

# System outputs (en->de). Names are distinctive: the blind tests search every page for them.
SYSTEMS = {
    "zephyr-mt": ("Alder", "primary", True),
    "quokka-nmt": ("Birch", "primary", False),
    "quokka-nmt-c": ("Birch", "contrastive", False),
    "walrus-baseline": (None, "baseline", True),
}
OUTPUTS = {
    "river.1": [
        "Der alte Fährmann ruderte langsam über den grauen Fluss.",
        "Niemand am Ufer kannte seinen Namen.",
        "Er trug Briefe, Salz und manchmal ein verängstigtes Kind.",
        "Als der Nebel herabkam, sang er, um das andere Ufer zu finden.",
    ],
    "orchard": [
        "Meine Großmutter pflanzte den Obstgarten vor dem Krieg.",
        "Jeden Herbst fielen die Äpfel schneller, als wir sie sammeln konnten.",
        "Sie sagte, die Bäume erinnerten sich an jeden, der auf sie geklettert war.",
    ],
}




# --------------------------------------------------------------------------- the world


def write_testset(folder: Path, docs: dict[str, list[str]], src: str = "en", tgt: str = "de",
                  name: str = "Tales en-de") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "testset.json").write_text(json.dumps({"name": name, "src_lang": src, "tgt_lang": tgt,
                                                     "documents": list(docs)}), encoding="utf-8")
    for sub in ("source", "ref1"):
        (folder / sub).mkdir(exist_ok=True)
    for doc, lines in docs.items():
        (folder / "source" / f"{doc}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (folder / "ref1" / f"{doc}.txt").write_text("\n".join(f"ref {i}" for i in range(len(lines))) + "\n",
                                                   encoding="utf-8")
    return folder


def add_submission(testset_id: int, system: str, team: str | None, label: str, constrained: bool,
                   outputs: dict[str, list[str]]) -> int:
    """A scored submission with its output segments, written directly (no upload, no jobs)."""
    from enface.extensions import db
    from enface.models import Document, OutputSegment, Submission
    from enface.services import accounts

    team_id = None
    if team is not None:
        t, _created = accounts.get_or_create_team(team)
        team_id = t.id
    with db.write():
        sub = Submission(testset_id=testset_id, team_id=team_id, label=label,
                         slot=None if label == "baseline" else 1, constrained=constrained, system_name=system,
                         description=f"{system} description", state="scored")
        db.session.add(sub)
        db.session.flush()
        docs = {d.name: d.id for d in db.session.query(Document).filter_by(testset_id=testset_id)}
        for doc, lines in outputs.items():
            for i, line in enumerate(lines):
                db.session.add(OutputSegment(submission_id=sub.id, document_id=docs[doc], position=i, text=line))
    return sub.id


@dataclass
class World:
    app: object
    testset_id: int
    subs: dict[str, int]                   # system name -> submission id
    users: dict[str, int] = field(default_factory=dict)

    def client(self, email: str | None = None):
        c = self.app.test_client()
        if email:
            r = c.post("/auth/login", data={"email": email, "password": PASSWORD})
            assert r.status_code in (302, 303), (email, r.status_code)
        return c

    def ctx(self):
        return self.app.app_context()


def _variant(text: str, system: str) -> str:
    """Slightly different outputs per system (so that systems differ), never containing a system name."""
    if system == "zephyr-mt":
        return text
    if system == "walrus-baseline":
        return text.replace("der", "die", 1)
    if system == "quokka-nmt-c":
        return text.replace(".", " !", 1)
    return text.replace(" ", "  ", 1).replace("  ", " ")  # same text, different object


_FAST_HASH = None


def fast_user(email: str, role: str, name: str = "", team: str | None = None) -> int:
    """A user whose password hash is cheap to check (scrypt costs ~0.2 s a login; tests log in a lot)."""
    global _FAST_HASH
    from enface.extensions import db
    from enface.models import User
    from enface.services import accounts
    from werkzeug.security import generate_password_hash

    if _FAST_HASH is None:
        _FAST_HASH = generate_password_hash(PASSWORD, method="pbkdf2:sha256:1000")
    with db.write():
        user = User(email=email, role=role, name=name, password_hash=_FAST_HASH)
        db.session.add(user)
    if team:
        t, _created = accounts.get_or_create_team(team)
        accounts.add_to_team(user, t, "member")
    return user.id


def build_world(app, tmp_path: Path, *, annotators: int = 4, docs=DOCS, outputs=OUTPUTS, src="en", tgt="de",
                systems=SYSTEMS) -> World:
    from enface.services.testsets import import_testset

    with app.app_context():
        folder = write_testset(tmp_path / f"ts-{uuidlib.uuid4().hex[:6]}", docs, src, tgt)
        ts = import_testset(folder, "Literary 2026")
        subs = {}
        for system, (team, label, constrained) in systems.items():
            outs = {d: [_variant(t, system) for t in lines] for d, lines in outputs.items()}
            subs[system] = add_submission(ts.id, system, team, label, constrained, outs)
        users = {}
        users["org@example.org"] = fast_user("org@example.org", "organizer", "Olga Organizer")
        for n in range(1, annotators + 1):
            users[f"ann{n}@example.org"] = fast_user(f"ann{n}@example.org", "annotator", f"Annotator {n}")
        # a member of team Alder who also annotates: must never see zephyr-mt
        users["alder-ann@example.org"] = fast_user("alder-ann@example.org", "participant", "Alder Annotator",
                                                   team="Alder")
        return World(app=app, testset_id=ts.id, subs=subs, users=users)


MQM_SETTINGS = ("attention_kind", "significance_unit", "significance_test", "words_per_second")


def new_campaign(world: World, *, annotators=("ann1@example.org", "ann2@example.org"), redundancy=2,
                 systems=None, ranges="river.1\norchard", attention=0.0, scheme="wmt23-literary",
                 source_words="whitespace", start=True, seed=7, protocol="mqm", settings_override=None, **kw):
    """Create (and start) a campaign through the services; returns its id."""
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet, User

    with world.ctx():
        org = db.session.get(User, world.users["org@example.org"])
        ts = db.session.get(TestSet, world.testset_id)
        ids = [world.subs[s] for s in (systems or ["zephyr-mt", "quokka-nmt", "walrus-baseline"])]
        settings = {"scheme": scheme, "attention_share": attention, "source_words": source_words}
        settings.update({k: kw.pop(k) for k in list(kw) if k in MQM_SETTINGS})
        if settings_override is not None:    # another protocol's settings
            settings = settings_override
        camp = svc.create_campaign(org, ts, svc.CampaignInput(
            name="Tales MQM", submission_ids=ids, redundancy=redundancy, ranges=ranges, settings=settings,
            protocol=protocol,
            seed=seed, **kw))
        for email in annotators:
            svc.add_annotator(camp, db.session.get(User, world.users[email]))
        if start:
            svc.start_campaign(svc.get_campaign(camp.id))
        return camp.id


def annotator_assignments(world, campaign_id: int, email: str) -> list:
    """One annotator's assignments in a campaign, by number (call inside ``world.ctx()``)."""
    from enface.campaigns.models import Assignment, CampaignAnnotator
    from enface.extensions import db
    from sqlalchemy import select

    return list(db.session.scalars(select(Assignment).join(CampaignAnnotator, Assignment.annotator_id == CampaignAnnotator.id)
                                   .where(Assignment.campaign_id == campaign_id,
                                          CampaignAnnotator.user_id == world.users[email])
                                   .order_by(Assignment.number)))


def assignments_of(world: World, campaign_id: int, email: str) -> list[dict]:
    """[{public_id, number, item_id, submission_id, segments, attention_seg, ...}] of one annotator."""

    with world.ctx():
        rows = annotator_assignments(world, campaign_id, email)
        return [{"public_id": a.public_id, "number": a.number, "item_id": a.item_id, "id": a.id,
                 "submission_id": a.item.submission_id, "document": a.item.document.name,
                 "segments": a.item.seg_end - a.item.seg_start,
                 "attention_seg": a.attention.seg if a.attention else None,
                 "attention_start": a.attention.start_pos if a.attention else None,
                 "attention_end": a.attention.end_pos if a.attention else None,
                 "attention_text": a.attention.text if a.attention else None} for a in rows]


def mark_uuid() -> str:
    return str(uuidlib.uuid4())


def put_mark(client, public_id: str, body: dict, uid: str | None = None, rev: int = 1):
    uid = uid or mark_uuid()
    payload = {"rev": rev, "side": "target", **body}
    return client.put(f"/annotate/api/items/{public_id}/marks/{uid}", json=payload), uid


def read_all(client, public_id: str, n: int, ms: int = 30_000):
    """Reports every segment read, ``ms`` each (more than any test segment's minimum dwell)."""
    return client.post(f"/annotate/api/items/{public_id}/progress",
                       json={"cursor": n - 1, "furthest": n - 1, "times": {str(i): ms for i in range(n)}})


def finish(client, public_id: str):
    return client.post(f"/annotate/api/items/{public_id}/finish", json={})


def set_testset_released(world, released: bool = True) -> None:
    """Releases (or hides) the world's test set, its other settings unchanged."""
    from enface.services.testsets import get_testset, update_settings

    with world.ctx():
        ts = get_testset(world.testset_id)
        update_settings(ts, deadline=ts.deadline, opens_at=ts.opens_at, quota_per_day=ts.quota_per_day,
                        quota_total=ts.quota_total, document_level_allowed=ts.document_level_allowed,
                        released=released, references_public=ts.references_public)


# The fixtures of the campaign tests (tests/platform/campaigns, tests/protocols/mqm): their conftest files import them.

@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def world(app, tmp_path) -> World:
    return build_world(app, tmp_path)


ONE_MINOR_STYLE_MARK = {"seg": 0, "start": 0, "end": 3, "category": "Style", "subcategory": "Unidiomatic",
                        "severity": "Minor"}


def annotate_all(world: World, campaign_id: int, marks=None,
                 annotators=("ann1@example.org", "ann2@example.org"), release: bool = False, *,
                 errors_in=(), severity: str = "Critical") -> None:
    """Each annotator saves ``marks(email, n, assignment)`` (mark bodies) on their n-th item, reads and
    finishes every item; ``release``: then the campaign is released. Without ``marks``: the systems in
    ``errors_in`` get an Accuracy error of ``severity`` per segment, or, with neither, every item gets one
    minor Style mark on segment 0."""
    if marks is None and errors_in:
        bad = {world.subs[s] for s in errors_in}

        def marks(_email, _n, a):
            if a["submission_id"] not in bad:
                return ()
            return [{"seg": seg, "start": 0, "end": 3, "category": "Accuracy", "subcategory": "Addition",
                     "severity": severity} for seg in range(a["segments"])]
    elif marks is None:
        def marks(_email, _n, _a):
            return (ONE_MINOR_STYLE_MARK,)
    for email in annotators:
        c = world.client(email)
        for n, a in enumerate(assignments_of(world, campaign_id, email)):
            for body in marks(email, n, a):
                r, _ = put_mark(c, a["public_id"], body)
                assert r.status_code == 200, r.get_json()
            assert read_all(c, a["public_id"], a["segments"]).status_code == 200
            assert finish(c, a["public_id"]).status_code == 200
    if release:
        from enface.campaigns import services as svc

        with world.ctx():
            svc.release(svc.get_campaign(campaign_id))
