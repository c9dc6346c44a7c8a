"""``enface campaign ...``: human-evaluation campaigns of every protocol, and their LLM judges, from the command line.

    enface campaign list
    enface campaign create --testset ID --name NAME [--protocol KEY] [--system ID ...] [--range DOC:1-40 ...]
                           [--redundancy N] [--strategy S] [--seed N] [the protocol's own options]
                           (``enface campaign create --help`` lists the installed protocols and their options)
    enface campaign invite CAMPAIGN [--count N] [--label TEXT] [--base-url URL]
    enface campaign add-annotator CAMPAIGN EMAIL
    enface campaign start CAMPAIGN
    enface campaign rebalance CAMPAIGN
    enface campaign status CAMPAIGN [--json]
    enface campaign export CAMPAIGN [--format FORMAT] [-o FILE]
    enface campaign release CAMPAIGN
"""

from __future__ import annotations

import sys

import click

from ._common import fail as _fail
from ._common import load_app as _app
from .campaign_create import create


@click.group("campaign", help="Human-evaluation campaigns of every installed protocol (`enface campaign create "
                               "--help` lists them) and their LLM judges: create, invite, start, follow, export "
                               "and release.")
def campaign():
    pass


campaign.add_command(create)


def _run(fn):
    """Call ``fn()`` inside an app context, turning refusals into a message and exit status 1."""
    from ..services import ServiceError

    app = _app()
    with app.app_context(), app.test_request_context(base_url=app.config.get("BASE_URL") or "http://127.0.0.1:8000"):
        try:
            return fn()
        except ServiceError as exc:
            _fail(exc.message)


@campaign.command("list")
def list_():
    """Campaigns, newest first."""
    from ..campaigns import services as svc

    def go():
        for c in svc.list_campaigns():
            click.echo(f"{c.id}\t{c.state}\t{c.protocol}:{c.setting('scheme', '')}\t{c.testset.title}\t{c.name}")
    _run(go)


@campaign.command("invite")
@click.argument("campaign_id", type=int)
@click.option("--count", type=int, default=1, show_default=True)
@click.option("--label", default="")
@click.option("--uses", "max_uses", type=int, default=1, show_default=True)
@click.option("--days", type=int, default=30, show_default=True)
@click.option("--base-url", default=None, help="the site's address, for the links (default http://127.0.0.1:8000)")
def invite(campaign_id, count, label, max_uses, days, base_url):
    """Print invite links (shown once: only their hash is stored)."""
    from flask import url_for

    from ..campaigns import services as svc

    def go():
        created = svc.create_invites(svc.get_campaign(campaign_id), count=count, label=label, max_uses=max_uses,
                                     days=days)
        for _inv, secret in created:
            path = url_for("annotate.join", secret=secret)
            click.echo((base_url.rstrip("/") + path) if base_url else url_for("annotate.join", secret=secret,
                                                                             _external=True))
    _run(go)


@campaign.command("add-annotator")
@click.argument("campaign_id", type=int)
@click.argument("email")
def add_annotator(campaign_id, email):
    """Add an existing account as an annotator."""
    from ..campaigns import services as svc
    from ..services import accounts

    def go():
        user = accounts.get_user_by_email(email)
        if user is None:
            _fail(f"no account with the e-mail {email} (create it with enface create-user --role annotator)")
        ann = svc.add_annotator(svc.get_campaign(campaign_id), user)
        click.echo(f"{email} is {ann.rater}")
    _run(go)


@campaign.command("start")
@click.argument("campaign_id", type=int)
def start(campaign_id):
    """Assign the items and open the campaign."""
    from ..campaigns import services as svc

    def go():
        out = svc.start_campaign(svc.get_campaign(campaign_id))
        click.echo(f"started: {out['items']} items, {out['assignments']} assignments, "
                   f"{out.get('attention_checks', 0)} attention checks")
    _run(go)


@campaign.command("rebalance")
@click.argument("campaign_id", type=int)
def rebalance(campaign_id):
    """Move unstarted items from the most to the least loaded annotators (started work never moves)."""
    from ..campaigns import services as svc

    def go():
        out = svc.rebalance(svc.get_campaign(campaign_id))
        click.echo(f"moved {out['moved']} unstarted item(s)")
    _run(go)


@campaign.command("status")
@click.argument("campaign_id", type=int)
@click.option("--json", "as_json", is_flag=True)
def status(campaign_id, as_json):
    """Progress per annotator, and the scores so far."""
    from ..campaigns import services as svc
    from ..campaigns.protocol import protocol_of

    def go():
        c = svc.get_campaign(campaign_id)
        protocol_of(c).cli_status(c, as_json)
    _run(go)


@campaign.command("export")
@click.argument("campaign_id", type=int)
@click.option("--format", "fmt", metavar="FORMAT", default=None,
              help="one of the campaign's protocol's formats, e.g. tsv, json, jsonl, csv, judgments (default: its "
                   "first; the dashboard lists them; another is refused with the list), or crowd.csv, crowd.json "
                   "(the crowd answers, when the campaign has a crowd setup)")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None)
def export(campaign_id, fmt, output):
    """The campaign's annotations or answers, in one of its protocol's export formats (or its crowd answers)."""
    from ..campaigns import services as svc

    def go():
        nonlocal fmt
        c = svc.get_campaign(campaign_id)
        from ..campaigns.exports import campaign_exports

        formats = campaign_exports(c, public=False)
        fmt = fmt or next(iter(formats))
        if fmt not in formats:
            _fail(f"a {c.protocol} campaign exports {', '.join(formats)} (not {fmt})")

        text = formats[fmt].writer(c)
        text = text if text.endswith("\n") or fmt == "tsv" else text + "\n"
        if output:
            with open(output, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            click.echo(f"wrote {output}", err=True)
        else:
            sys.stdout.write(text)
    _run(go)


@campaign.command("release")
@click.argument("campaign_id", type=int)
def release(campaign_id):
    """Freeze the campaign's results; its protocol's column and human ranking go on the leaderboard."""
    from ..campaigns import services as svc

    def go():
        snap = svc.release(svc.get_campaign(campaign_id))
        camp = svc.get_campaign(campaign_id)
        if not isinstance(snap.get("systems"), list | dict):   # results without systems ranked (a reader study)
            click.echo(f"released: the results are on the campaign's results page (/campaigns/{camp.id}/results)")
        else:
            click.echo(f"released: {len(snap['systems'])} systems on the leaderboard of test set {camp.testset_id}")
        if not svc.results_public(camp):
            click.echo(f"the results stay with the organizers until test set {camp.testset_id} is released "
                       f"(its settings page: /admin/testsets/{camp.testset_id})")
    _run(go)
