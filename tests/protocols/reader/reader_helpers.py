"""Helpers of the reader-study tests: a fr->en test set with book-like documents, two systems, readers.

System and team names are distinctive (the blind tests search every page and answer for them).
Reference 1 uses typographic quotes and the systems straight ones, so that the display
normalisation has something to do.
"""

from __future__ import annotations

import uuid as uuidlib
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.campaigns import PASSWORD, add_submission, annotator_assignments, fast_user  # noqa: F401  (shared with MQM's)

__all__ = ["PASSWORD", "ReaderWorld", "build_reader_world", "new_study", "books_of", "uid"]


_SENTENCES = [
    "The lamplighter came down the hill at dusk, as he had every evening for thirty years.",
    "Nobody in the village remembered a night without him, and nobody thought to thank him.",
    "“You are late,” said the baker’s widow from her doorway… “The fog will beat you.”",
    "He lifted his pole, lit the first lamp, and watched the small flame steady itself in the glass.",
    "Children followed him in the summer; in the winter only the dogs, and only as far as the bridge.",
    "At the bridge he always stopped, because the river spoke louder there than anywhere else.",
    "His daughter had written from the city that the lamps there were lit by a clock, not a man.",
    "He had read the letter twice, folded it into his coat, and said nothing about it to anyone.",
    "“A clock does not know when the fog comes early,” he told the river, which did not answer.",
    "The last lamp stood by the chapel, crooked since the storm, and it took him the longest.",
    "When it was lit he sat on the step and counted the lights back up the hill, one by one.",
    "Some nights he counted eleven, some nights twelve; he never knew which number was true.",
]


def _paragraphs(n: int, offset: int = 0) -> list[str]:
    out = []
    for i in range(n):
        a = _SENTENCES[(i + offset) % len(_SENTENCES)]
        b = _SENTENCES[(i + offset + 5) % len(_SENTENCES)]
        out.append(f"{a} {b}")
    return out


DOCS = {"lantern": 12, "harbour": 8, "orchard": 6, "mill": 6}


def _system_variant(text: str, system: str) -> str:
    """A system's version: straight quotes and three dots, a few words changed (never a system name)."""
    t = text.replace("“", '"').replace("”", '"').replace("’", "'").replace("…", "...")
    if system == "nightjar-mt":
        return t.replace("came down", "descended").replace("watched", "observed").replace("crooked", "bent")
    return t.replace("dusk", "nightfall").replace("village", "hamlet")


# system name -> (team, label, constrained)
SYSTEMS = {"nightjar-mt": ("Heron", "primary", True), "owlet-nmt": ("Kestrel", "primary", False)}


def write_testset(folder: Path, docs: dict[str, int]) -> Path:
    import json

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "testset.json").write_text(json.dumps({"name": "Novels fr-en", "src_lang": "fr", "tgt_lang": "en",
                                                     "documents": list(docs)}), encoding="utf-8")
    for sub in ("source", "ref1", "ref2"):
        (folder / sub).mkdir(exist_ok=True)
    for k, (doc, n) in enumerate(docs.items()):
        paras = _paragraphs(n, k)
        (folder / "source" / f"{doc}.txt").write_text("\n".join(f"Paragraphe {i} du livre." for i in range(n)) + "\n",
                                                      encoding="utf-8")
        (folder / "ref1" / f"{doc}.txt").write_text("\n".join(paras) + "\n", encoding="utf-8")
        (folder / "ref2" / f"{doc}.txt").write_text("\n".join(p.replace("lamplighter", "lamp man") for p in paras)
                                                    + "\n", encoding="utf-8")
    return folder


@dataclass
class ReaderWorld:
    app: object
    testset_id: int
    subs: dict[str, int]
    users: dict[str, int] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)

    def client(self, email: str | None = None):
        c = self.app.test_client()
        if email:
            r = c.post("/auth/login", data={"email": email, "password": PASSWORD})
            assert r.status_code in (302, 303), (email, r.status_code)
        return c

    def ctx(self):
        return self.app.app_context()


def build_reader_world(app, tmp_path: Path, *, readers: int = 4, docs=DOCS) -> ReaderWorld:
    from enface.services.testsets import import_testset

    with app.app_context():
        folder = write_testset(tmp_path / f"ts-{uuidlib.uuid4().hex[:6]}", docs)
        ts = import_testset(folder, "Literary 2026")
        texts = {doc: _paragraphs(n, k) for k, (doc, n) in enumerate(docs.items())}
        subs = {}
        for system, (team, label, constrained) in SYSTEMS.items():
            outs = {d: [_system_variant(t, system) for t in lines] for d, lines in texts.items()}
            subs[system] = add_submission(ts.id, system, team, label, constrained, outs)
        users = {"org@example.org": fast_user("org@example.org", "organizer", "Olga Organizer")}
        for n in range(1, readers + 1):
            users[f"reader{n}@example.org"] = fast_user(f"reader{n}@example.org", "annotator", f"Rita Reader {n}")
        users["heron-reader@example.org"] = fast_user("heron-reader@example.org", "participant", "Hal Heron",
                                                      team="Heron")
        return ReaderWorld(app=app, testset_id=ts.id, subs=subs, users=users, texts=texts)


def new_study(world: ReaderWorld, *, readers=("reader1@example.org", "reader2@example.org"),
              ranges="lantern\nharbour", versions=("ref1", "nightjar-mt"), start=True, seed=11, **settings) -> int:
    """Create (and start) a reader study through the services; returns its id."""
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet, User

    settings.setdefault("chunk_words", 60)
    refs = [int(v[-1]) for v in versions if v.startswith("ref")]
    subs = [world.subs[v] for v in versions if not v.startswith("ref")]
    with world.ctx():
        org = db.session.get(User, world.users["org@example.org"])
        ts = db.session.get(TestSet, world.testset_id)
        camp = svc.create_campaign(org, ts, svc.CampaignInput(
            name="Lantern study", submission_ids=subs, references=refs, protocol="reader", strategy="pairs",
            redundancy=int(settings.get("readers_per_document", 2)), ranges=ranges, settings=settings, seed=seed))
        for email in readers:
            svc.add_annotator(camp, db.session.get(User, world.users[email]))
        if start:
            svc.start_campaign(svc.get_campaign(camp.id))
        return camp.id


def books_of(world: ReaderWorld, campaign_id: int, email: str) -> list[dict]:
    """The reader's assignments by number: public id, document, plan."""

    with world.ctx():
        rows = annotator_assignments(world, campaign_id, email)
        return [{"public_id": a.public_id, "number": a.number, "id": a.id, "document": a.item.document.name,
                 "plan": dict(a.plan), "stage": a.stage, "state": a.state} for a in rows]


def uid() -> str:
    return str(uuidlib.uuid4())
