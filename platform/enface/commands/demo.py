"""``enface demo``: the demo task set up, submitted through the API like a team does, and served."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import click

from ._common import fail, load_app
from .demo_crowd import demo_esa_link_campaign
from .demo_esa_ai import demo_esa_ai_campaign
from .demo_judge import DEMO_ENDPOINT_KEY, start_demo_judge, wait_for_demo_judge
from .demo_phenomena import PHENOMENA_SUBMISSIONS, demo_rubric_campaign, phenomena_testset
from .serve import Services, prepare
from .submit import ApiClient, SubmitError, collect_files, wait_for

DEMO_USERS = [
    # email, role, team, display name
    ("organizer@demo.enface.org", "organizer", None, "Olga Organizer"),
    ("captain@lantern-lab.example", "participant", "Lantern Lab", "Lin Captain"),
    ("captain@inkstone.example", "participant", "Inkstone MT", "Ines Captain"),
    ("annotator@demo.enface.org", "annotator", None, "Ana Annotator"),
    ("reader1@demo.enface.org", "annotator", None, "Rosa Reader"),
    ("reader2@demo.enface.org", "annotator", None, "Ravi Reader"),
    ("mqm-rater1@demo.enface.org", "annotator", None, "Mia Rater"),
    ("mqm-rater2@demo.enface.org", "annotator", None, "Max Rater"),
]
# The demo's human evaluations: an MQM campaign for the annotator, a reader study for the two readers.
DEMO_MQM = {"name": "Demo MQM", "annotators": ["annotator@demo.enface.org"],
            "ranges": "jade-lantern.1:1-8\nmountain-inn:1-8"}
DEMO_READER = {"name": "Demo reader study", "readers": ["reader1@demo.enface.org", "reader2@demo.enface.org"],
               "ranges": "jade-lantern.1\nmountain-inn", "versions": ["ref1", "lantern-nmt"],
               # a 3-minute break instead of the default 24 hours, so that the whole study can be tried at once
               "settings": {"lock_hours": 0.05, "chunk_words": 150, "readers_per_document": 2,
                            "documents_per_reader": 2}}
# A finished, released MQM campaign: the annotations of data/demo/mqm/annotations.tsv (written for this
# project), imported as the marks of two raters, so that the official ranking, the meta-evaluation and
# the output browser have something to show at once. Google's MQM weights: on a sample this small the
# WMT23 literary formula (per source word, clamped at 0) gives both weak systems 0.
DEMO_FINISHED = {"name": "Demo MQM (finished)", "annotators": ["mqm-rater1@demo.enface.org",
                                                                "mqm-rater2@demo.enface.org"],
                 "ranges": DEMO_MQM["ranges"], "annotations": Path("mqm") / "annotations.tsv",
                 "settings": {"scheme": "google-mqm", "attention_share": 0, "significance_unit": "segment"}}
DEMO_SUBMISSIONS = [
    # submitter, system dir, label, constrained, system name, description
    ("organizer@demo.enface.org", "literal-mt", "baseline", True, "literal-baseline",
     "Word-for-word baseline: idioms translated literally, names inconsistent."),
    ("captain@lantern-lab.example", "strong-mt", "primary", True, "lantern-nmt",
     "Document-level NMT fine-tuned on web novels, with a glossary of character names."),
    ("captain@inkstone.example", "weak-mt", "primary", False, "inkstone-llm",
     "A prompted LLM, no fine-tuning (unconstrained)."),
    ("captain@inkstone.example", "broken-mt", "contrastive", True, "inkstone-draft",
     "An early draft with a missing line: shows the validation report."),
]


def demo_accounts(app, data_dir: Path) -> dict[str, dict]:
    """Create the demo users once; their passwords are kept in <data_dir>/demo-logins.json."""
    from ..services import accounts

    store = data_dir / "demo-logins.json"
    saved = json.loads(store.read_text()) if store.is_file() else {}
    out = {}
    with app.app_context():
        for email, role, team_name, name in DEMO_USERS:
            user = accounts.get_user_by_email(email)
            if user is None:
                password = secrets.token_urlsafe(9)
                user = accounts.create_user(email, password, role=role, name=name, check_strength=False)
                if team_name:
                    team, created = accounts.get_or_create_team(team_name)
                    accounts.add_to_team(user, team, "captain" if created else "member")
                saved[email] = password
            for old in user.tokens:   # one demo token per user: the previous run's stop working
                if old.name == "enface demo" and old.revoked_at is None:
                    accounts.revoke_token(user, old.id)
            _token, secret = accounts.issue_token(user, "enface demo")
            out[email] = {"role": role, "team": team_name, "password": saved.get(email, "(set earlier)"),
                          "token": secret}
    store.write_text(json.dumps(saved, indent=2))
    store.chmod(0o600)
    return out


def finished_campaign(org, ts, submission_ids: list[int], demo_dir: Path):
    """The demo's finished MQM campaign: created, started, its annotations imported, released."""
    from ..campaigns import services as svc
    from ..protocols.mqm.services.imports import import_finished
    from ..services import accounts

    camp = svc.create_campaign(org, ts, svc.CampaignInput(
        name=DEMO_FINISHED["name"], submission_ids=submission_ids, redundancy=2, ranges=DEMO_FINISHED["ranges"],
        settings=DEMO_FINISHED["settings"], seed=1))
    for email in DEMO_FINISHED["annotators"]:     # rater1, rater2 of the file, in this order
        svc.add_annotator(camp, accounts.get_user_by_email(email))
    svc.start_campaign(svc.get_campaign(camp.id))
    tsv = demo_dir / DEMO_FINISHED["annotations"]
    counts = import_finished(svc.get_campaign(camp.id), tsv.read_text(encoding="utf-8"), path=str(tsv))
    svc.release(svc.get_campaign(camp.id))
    return camp, counts


def demo_campaigns(testset_id: int, demo_dir: Path) -> list[str]:
    """Creates and starts the demo's MQM campaign and reader study once; returns what to tell the user."""
    from sqlalchemy import select

    from ..campaigns import services as svc
    from ..campaigns.models import Campaign
    from ..extensions import db
    from ..models import Submission, TestSet
    from ..services import accounts

    if db.session.scalar(select(Campaign.id).where(Campaign.testset_id == testset_id).limit(1)) is not None:
        return []
    ts = db.session.get(TestSet, testset_id)
    org = accounts.get_user_by_email(DEMO_USERS[0][0])
    scored = {s.system_name: s.id for s in svc.eligible_submissions(ts)}
    if "lantern-nmt" not in scored:
        return ["(no human evaluation created: the demo systems were not scored)"]
    mqm_ids = [i for i in scored.values() if db.session.get(Submission, i).label != "contrastive"]
    mqm = svc.create_campaign(org, ts, svc.CampaignInput(
        name=DEMO_MQM["name"], submission_ids=mqm_ids,
        redundancy=1, ranges=DEMO_MQM["ranges"], seed=1))
    reader = svc.create_campaign(org, ts, svc.CampaignInput(
        name=DEMO_READER["name"], submission_ids=[scored["lantern-nmt"]], references=[1], protocol="reader",
        strategy="pairs", redundancy=2, ranges=DEMO_READER["ranges"], settings=DEMO_READER["settings"], seed=1,
        version_order=["ref1", f"sub{scored['lantern-nmt']}"]))
    for campaign, emails in ((mqm, DEMO_MQM["annotators"]), (reader, DEMO_READER["readers"])):
        for email in emails:
            svc.add_annotator(campaign, accounts.get_user_by_email(email))
        svc.start_campaign(svc.get_campaign(campaign.id))
    done, counts = finished_campaign(org, ts, mqm_ids, demo_dir)
    from ..protocols.bws.demo import demo_bws_campaigns

    bws = demo_bws_campaigns(org, ts, mqm_ids, demo_dir)
    from ..protocols.cesa.demo import demo_cesa_campaign

    bws += demo_cesa_campaign(org, ts, mqm_ids)
    return [f"MQM campaign {mqm.id} started for annotator@demo.enface.org",
            f"reader study {reader.id} started for reader1@ and reader2@demo.enface.org "
            "(reference 1 against lantern-nmt; the break before Part 2 is 3 minutes here)",
            f"finished MQM campaign {done.id} released: {counts['marks']} error spans by two raters "
            f"({demo_dir / DEMO_FINISHED['annotations']}); see the official ranking and "
            f"the output browser at /browse/{testset_id}", *bws]


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--data", "demo_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
              help="the demo task (test set and systems) [default: the one shipped in the package, data/demo in "
                   "the repository]; the platform's data goes to ENFACE_DATA_DIR")
@click.option("--once", is_flag=True, help="stop once the demo systems are scored and the demo judge and suggester have run (their scripted endpoint then answers without think time), instead of serving")
def demo(host, port, demo_dir, once):
    """Set up the demo task, submit the demo systems through the API, and serve it.

    The web server's and the worker's output go to <ENFACE_DATA_DIR>/logs/web.log and worker.log.
    """
    from sqlalchemy import select

    from ..extensions import db as database
    from ..models import Submission, Task, TestSet, utcnow
    from ..resources import demo_dir as shipped_demo
    from ..services.testsets import change_settings, import_testset, update_settings

    demo_dir = demo_dir or shipped_demo()
    cfg = prepare(True)
    app = load_app()
    with app.app_context():
        ts = database.session.scalar(select(TestSet).join(Task).where(Task.name == "Demo"))
        if ts is None:
            ts = import_testset(demo_dir / "testset", "Demo")
            ts = change_settings(ts, opens_at=utcnow())   # an import starts closed; the demo teams submit now
            click.echo(f"imported the demo test set: {ts.num_documents} documents, {ts.num_segments} segments")
        ts_id = ts.id
        already = database.session.scalar(select(Submission.id).where(Submission.testset_id == ts_id).limit(1))
        tagged_id = phenomena_testset(demo_dir).id
        tagged_already = database.session.scalar(select(Submission.id).where(Submission.testset_id == tagged_id)
                                                 .limit(1))
    logins = demo_accounts(app, cfg.DATA_DIR)

    svc = Services(host, port, workers=2, jobs=1, log_dir=cfg.DATA_DIR / "logs")
    svc.start()
    try:
        svc.wait_ready()
        batches = ([(ts_id, demo_dir / "systems", DEMO_SUBMISSIONS)] if already is None else []) + \
            ([(tagged_id, demo_dir / "phenomena" / "systems", PHENOMENA_SUBMISSIONS)] if tagged_already is None else [])
        for batch_ts, systems_dir, submissions in batches:
            ids = []
            for email, system, label, constrained, name, description in submissions:
                client = ApiClient(svc.url, logins[email]["token"])
                created = client.submit(batch_ts, collect_files((str(systems_dir / system),)), label=label,
                                        constrained="true" if constrained else "false", system_name=name,
                                        description=description)
                click.echo(f"submitted {system} as {label} {name!r}: submission {created['id']}")
                ids.append((client, created["id"]))
            for client, sid in ids:
                sub = wait_for(client, sid, timeout=300, show=False,
                               check=lambda: svc.check_alive("before the demo systems were scored"))
                click.echo(f"  submission {sid} ({sub['system_name']}): {sub['state']}")
        with app.app_context():
            for released_id in (ts_id, tagged_id):
                ts = database.session.get(TestSet, released_id)
                if not ts.released:
                    update_settings(ts, deadline=ts.deadline, opens_at=ts.opens_at, quota_per_day=ts.quota_per_day,
                                    quota_total=ts.quota_total, document_level_allowed=ts.document_level_allowed,
                                    released=True, references_public=ts.references_public)
            made = (demo_campaigns(ts_id, demo_dir) + demo_rubric_campaign(tagged_id)
                    + demo_esa_ai_campaign(ts_id, DEMO_USERS[0][0], DEMO_ENDPOINT_KEY)
                    + demo_esa_link_campaign(ts_id, DEMO_USERS[0][0], cfg.DATA_DIR, svc.url))
        # --once waits for the judge's run to end: no think time then (it is there to be watched)
        made += start_demo_judge(svc, app, cfg.DATA_DIR, svc.url, demo_dir, think_time=0.0 if once else 0.3)
    except BaseException as exc:
        svc.stop()
        if isinstance(exc, (RuntimeError, click.ClickException, SubmitError)):
            fail(str(exc))
        raise
    click.echo("")
    click.echo(f"Enface demo: {svc.url}/leaderboard/{ts_id}  (data in {cfg.DATA_DIR})")
    for line in made:
        click.echo(f"  {line}")
    click.echo(f"Human evaluation: organizers at {svc.url}/campaigns/, annotators and readers at {svc.url}/annotate/")
    click.echo("Logins (passwords are kept in demo-logins.json in the data folder):")
    for email, info in logins.items():
        what = info["role"] + (f", captain of {info['team']}" if info["team"] else "")
        what = "reader (reader study)" if email.startswith("reader") else what
        click.echo(f"  {email:<32} {info['password']:<14} {what}")
    if once:
        wait_for_demo_judge(app)
        svc.stop()
        return
    click.echo("Ctrl-C stops the server.")
    raise SystemExit(svc.wait_forever())
