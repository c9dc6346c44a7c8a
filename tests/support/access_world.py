"""The world of the access matrix: one small shared task seeded with canary strings, in a given state.

Every secret a response could leak carries a distinctive canary (system names, outputs, references,
e-mail addresses, file names, the description of a system), so that a body can be searched for it.
The world is built through the real upload API (jobs eager), so that timelines, files and scores
exist as they do on a running platform.

States (one world each): ``open`` (before the deadline), ``closed`` (deadline passed, results
frozen until release), ``campaign_released`` (an MQM campaign released, test set still hidden),
``released`` (test set and campaign released).

Beside the MQM campaign, a rubric campaign on the same test set (one tagged segment) with one LLM judge
that has judged every item, so that the judge pages have real ids. It stays started in every state,
with ``annotator`` in it: after the test set's release that annotator is still judging blind, which is
the case the output browser answers with 403.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .campaigns import PASSWORD, fast_user

STATES = ("open", "closed", "campaign_released", "released")
ROLES = ("anonymous", "team_a", "team_b", "annotator", "organizer", "admin")

EMAILS = {"team_a": "cap-a@canary-alder.test", "team_b": "cap-b@canary-birch.test",
          "annotator": "ann@canary-ann.test", "annotator2": "ann2@canary-ann.test",
          "organizer": "org@canary-org.test", "admin": "root@canary-admin.test"}
TEAMS = {"team_a": "Alder", "team_b": "Birch"}
SYSTEM = {"team_a": "zqalder-sys", "team_b": "zqbirch-sys"}
OUTPUT_CANARY = {"team_a": "Qalderout", "team_b": "Qbirchout"}
FILE_CANARY = {"team_a": "qalderfile", "team_b": "qbirchfile"}
DESC_CANARY = {"team_a": "Qalderdesc", "team_b": "Qbirchdesc"}
REF_CANARY = "Qrefcanary"
JUDGE_KEY_CANARY = "sk-canary-judge-Qjudgekey"    # a judge's API key: write-only, no page ever shows it
PHENOMENA = '{"document": "lake", "segment": 1, "dimension": "idiom", "requirement": "a cold year, plainly"}\n'
OPENED = datetime(2000, 1, 1, tzinfo=timezone.utc)   # an import starts closed: the world's test set opens here
DOCS = {"lake": ["The lake was cold that year.", "Nobody swam in it.", "Birds left early."],
        "hill": ["He climbed the hill at dawn.", "The town slept below him."]}


def write_canary_testset(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "testset.json").write_text(json.dumps({"name": "Canary en-de", "src_lang": "en", "tgt_lang": "de",
                                                     "documents": list(DOCS)}), encoding="utf-8")
    for sub in ("source", "ref1"):
        (folder / sub).mkdir(exist_ok=True)
    for doc, lines in DOCS.items():
        (folder / "source" / f"{doc}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (folder / "ref1" / f"{doc}.txt").write_text(
            "\n".join(f"{REF_CANARY}{i} Referenz" for i in range(len(lines))) + "\n", encoding="utf-8")
    return folder


def _outputs(who: str) -> list[tuple[str, bytes]]:
    return [(f"{doc}.txt", ("\n".join(f"{OUTPUT_CANARY[who]}{i} {line}" for i, line in enumerate(lines)) + "\n")
             .encode()) for doc, lines in DOCS.items()]


def _zip_outputs(who: str) -> tuple[str, bytes]:
    """The team's files in a zip whose name carries the file canary (file names reach the API)."""
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in _outputs(who):
            zf.writestr(name, data)
    return f"{FILE_CANARY[who]}.zip", buf.getvalue()


@dataclass
class AccessWorld:
    app: object
    state: str
    testset_id: int
    subs: dict[str, int]                  # team_a / team_b -> submission id
    users: dict[str, int]
    tokens: dict[str, str]
    campaign_id: int
    invite_id: int
    invite_secret: str
    assignment: dict[str, str]            # annotator -> one public id of theirs
    annotator_ids: dict[str, int] = field(default_factory=dict)   # CampaignAnnotator ids
    assignment_db_id: int = 0
    token_ids: dict[str, int] = field(default_factory=dict)
    team_ids: dict[str, int] = field(default_factory=dict)
    rubric_campaign_id: int = 0           # the rubric campaign with the judge (started, never released)
    judge_id: int = 0
    judge_record_id: int = 0              # one JudgeItem of that judge
    database: object = None               # a tests.support.databases.FreshDatabase (snapshot after building)

    def forbidden_for(self, role: str) -> list[str]:
        """Canaries ``role`` must never read in this state."""
        out: list[str] = [JUDGE_KEY_CANARY]
        if role in ("organizer", "admin"):
            return out
        released = self.state == "released"
        for team in ("team_a", "team_b"):
            own = role == team
            if not own:
                out.append(EMAILS[team])
                out.append(FILE_CANARY[team])
                if not released:
                    out += [SYSTEM[team], DESC_CANARY[team]]
                    if role != "annotator":        # annotators read outputs blind: that is their work
                        out.append(OUTPUT_CANARY[team])
        for other in ("annotator", "annotator2", "organizer", "admin"):
            if role != other:
                out.append(EMAILS[other])
        if role != "organizer":
            out.append(REF_CANARY)                 # references are never public in this world
        return out

    def judging_blind(self, role: str) -> bool:
        """Whether ``role`` still judges outputs blind (the running rubric campaign) in a released world: names
        and outputs are public one by one, but no body may tie a system's name to its text for them."""
        return role == "annotator" and self.state == "released"

    def restore(self) -> None:
        """Puts the database back as it was after building (after a request that may have changed it)."""
        from enface.services import leaderboard

        self.app.extensions["enface_db"][0].dispose()
        self.database.restore()
        leaderboard.clear_cache()


def build_access_world(app, tmp: Path, state: str, database) -> AccessWorld:
    from enface.campaigns import services as camp_svc
    from enface.extensions import db
    from enface.models import TestSet, User, utcnow
    from enface.services import accounts
    from enface.services.phenomena import replace_phenomena
    from enface.services.testsets import import_testset, update_settings

    from .campaigns import annotator_assignments, finish, read_all

    assert state in STATES, state
    with app.app_context():
        ts = import_testset(write_canary_testset(tmp / "canary-ts"), "Canary task")
        replace_phenomena(ts, PHENOMENA)       # (before any campaign starts: the rubric campaign's items)
        update_settings(ts, deadline=utcnow() + timedelta(days=3), opens_at=OPENED, quota_per_day=None,
                        quota_total=None, document_level_allowed=False, released=False, references_public=False)
        users = {role: fast_user(email, {"organizer": "organizer", "admin": "admin"}.get(
            role, "annotator" if role.startswith("annotator") else "participant"), name=f"{role} person",
            team=TEAMS.get(role)) for role, email in EMAILS.items()}
        tokens, token_ids, team_ids = {}, {}, {}
        for role, uid in users.items():
            tok, secret = accounts.issue_token(db.session.get(User, uid))
            tokens[role], token_ids[role] = secret, tok.id
            if role in TEAMS:
                team_ids[role] = db.session.get(User, uid).team_id
    client = app.test_client()
    subs = {}
    for team in TEAMS:
        name, data = _zip_outputs(team)
        resp = client.post(f"/api/v1/testsets/{ts.id}/submissions", content_type="multipart/form-data",
                           headers={"Authorization": f"Bearer {tokens[team]}"},
                           data={"label": "primary", "constrained": "true", "system_name": SYSTEM[team],
                                 "description": f"{DESC_CANARY[team]} system", "files": [(io.BytesIO(data), name)]})
        assert resp.status_code == 202, resp.get_data(as_text=True)
        subs[team] = resp.get_json()["id"]
    with app.app_context():
        org = db.session.get(User, users["organizer"])
        testset = db.session.get(TestSet, ts.id)
        camp = camp_svc.create_campaign(org, testset, camp_svc.CampaignInput(
            name="Canary MQM", submission_ids=list(subs.values()), redundancy=1, ranges="lake\nhill",
            settings={"scheme": "wmt23-literary", "attention_share": 0.0, "source_words": "whitespace"},
            protocol="mqm", seed=3))
        annotator_ids = {}
        for role in ("annotator", "annotator2"):
            annotator_ids[role] = camp_svc.add_annotator(camp, db.session.get(User, users[role])).id
        camp_svc.start_campaign(camp_svc.get_campaign(camp.id))
        (invite, secret), = camp_svc.create_invites(camp_svc.get_campaign(camp.id), count=1)
        invite_id = invite.id
        rubric_campaign_id, judge_id, judge_record_id = _judged_rubric_campaign(ts.id, subs, users)

        class _W:    # annotator_assignments takes a world with users
            pass
        w = _W()
        w.users = {EMAILS["annotator"]: users["annotator"]}
        asg = annotator_assignments(w, camp.id, EMAILS["annotator"])
        assignment, assignment_db_id = {"annotator": asg[0].public_id}, asg[0].id
        if state != "open":
            update_settings(db.session.get(TestSet, ts.id), deadline=utcnow() - timedelta(hours=1), opens_at=OPENED,
                            quota_per_day=None, quota_total=None, document_level_allowed=False,
                            released=state == "released", references_public=False)
        if state in ("campaign_released", "released"):
            w.users[EMAILS["annotator2"]] = users["annotator2"]
            done = [(a.public_id, a.item.seg_end - a.item.seg_start)
                    for a in annotator_assignments(w, camp.id, EMAILS["annotator2"])]
    if state in ("campaign_released", "released"):
        reader = login_client_for(app, EMAILS["annotator2"])
        for public_id, segments in done:     # the other annotator finishes: release needs finished items
            assert read_all(reader, public_id, segments).status_code == 200
            assert finish(reader, public_id).status_code == 200, finish(reader, public_id).get_data(as_text=True)
        with app.app_context():
            camp_svc.release(camp_svc.get_campaign(camp.id))
    world = AccessWorld(app=app, state=state, testset_id=ts.id, subs=subs, users=users, tokens=tokens,
                        campaign_id=camp.id, invite_id=invite_id, invite_secret=secret, assignment=assignment,
                        annotator_ids=annotator_ids, assignment_db_id=assignment_db_id, token_ids=token_ids,
                        team_ids=team_ids, database=database, rubric_campaign_id=rubric_campaign_id, judge_id=judge_id,
                        judge_record_id=judge_record_id)
    app.extensions["enface_db"][0].dispose()
    database.snapshot()
    return world


def _judged_rubric_campaign(testset_id: int, subs: dict[str, int], users: dict[str, int]) -> tuple[int, int, int]:
    """A started rubric campaign (both systems, ``annotator`` in it) whose judge has judged every item,
    against a scripted endpoint that is gone afterwards (a second run has nothing left to ask it);
    returns (campaign id, judge id, one JudgeItem id)."""
    from enface.campaigns import services as camp_svc
    from enface.extensions import db
    from enface.judges.models import JudgeItem
    from enface.judges.running import run_judge, tasks_of
    from enface.judges.setup import JudgeInput, add_judge
    from enface.models import TestSet, User
    from enface.protocols.rubric.protocol import campaign_input as rubric_campaign_input
    from sqlalchemy import select

    from humaneval.judge.demo_script import demo_script
    from humaneval.judge.scripted import ScriptedServer

    testset = db.session.get(TestSet, testset_id)
    camp = camp_svc.create_campaign(db.session.get(User, users["organizer"]), testset, rubric_campaign_input(
        name="Canary rubric", submission_ids=list(subs.values()), redundancy=1, seed=3, testset=testset))
    camp_svc.add_annotator(camp, db.session.get(User, users["annotator"]))
    camp_svc.start_campaign(camp_svc.get_campaign(camp.id))
    items = [task.item for _item, task in tasks_of(camp_svc.get_campaign(camp.id))]
    assert items, "the rubric campaign has no judge tasks: is the phenomenon tagged?"
    with ScriptedServer(demo_script(items, api_key=JUDGE_KEY_CANARY, latency=0)) as server:
        judge = add_judge(camp_svc.get_campaign(camp.id), JudgeInput(
            base_url=server.base_url, model="scripted", name="Canary judge", api_key=JUDGE_KEY_CANARY, timeout=5))
        judge_id = judge.id
        out = run_judge(judge_id)
    assert out["state"] == "done" and out["failed"] == 0, out
    record_id = db.session.scalar(select(JudgeItem.id).where(JudgeItem.judge_id == judge_id).limit(1))
    return camp.id, judge_id, record_id


def login_client_for(app, email: str | None):
    client = app.test_client()
    if email:
        resp = client.post("/auth/login", data={"email": email, "password": PASSWORD})
        assert resp.status_code in (302, 303), (email, resp.status_code)
    return client


def login_client(world: AccessWorld, role: str):
    """A test client logged in as ``role`` (anonymous: not logged in)."""
    return login_client_for(world.app, None if role == "anonymous" else EMAILS[role])
