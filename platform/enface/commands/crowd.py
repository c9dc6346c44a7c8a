"""``enface campaign links|crowd|codes``: account-free annotator links, welcome forms, tutorials and completion codes.

    enface campaign links create CAMPAIGN [--count N | --panel-ids FILE] [--label TEXT] [--passphrase-stdin]
                                 [--base-url URL] [--csv FILE]
    enface campaign links list CAMPAIGN [--json]
    enface campaign links revoke CAMPAIGN LINK_ID
    enface campaign crowd CAMPAIGN [--welcome FILE|lait] [--tutorial FILE] [--pass-code CODE] [--fail-code CODE]
                          [--threshold 0.8] [--redirect URL] [--clear welcome|tutorial|codes ...]
    enface campaign codes CAMPAIGN [-o FILE]

Link secrets are shown once (only their hash is stored): ``links create`` prints ``panel_id,link`` lines
(or writes them to ``--csv``). ``--passphrase-stdin`` reads the passphrase from standard input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ._common import fail as _fail
from .campaigns import _run, campaign


@campaign.group("links")
def links_group():
    """Account-free annotator links (one per annotator slot, revocable, optional passphrase)."""


def _url(secret: str, base_url: str | None) -> str:
    from flask import url_for

    path = url_for("crowd.enter", token=secret)
    return base_url.rstrip("/") + path if base_url else url_for("crowd.enter", token=secret, _external=True)


@links_group.command("create")
@click.argument("campaign_id", type=int)
@click.option("--count", default=None, help="how many links (each labelled --label)")
@click.option("--panel-ids", "panel_ids", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="a file of panel ids (e.g. Prolific ids), one a line: one link each, labelled with it")
@click.option("--label", default="", help="whom the links are for")
@click.option("--passphrase-stdin", is_flag=True, help="read a passphrase (the same for these links) from stdin")
@click.option("--base-url", default=None, help="the site's address, for the links (default: ENFACE_BASE_URL)")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write panel_id,link to this file instead of standard output")
def links_create(campaign_id, count, panel_ids, label, passphrase_stdin, base_url, csv_path):
    """Create links; prints panel_id,link (shown once)."""
    from ..campaigns import services as svc
    from ..crowd import links

    ids_text = panel_ids.read_text(encoding="utf-8") if panel_ids else ""
    passphrase = sys.stdin.readline().rstrip("\n") if passphrase_stdin else None
    if not ids_text and count is None:
        count = "1"

    def go():
        made = links.create_links(svc.get_campaign(campaign_id), count=count, panel_ids_text=ids_text, label=label,
                                  passphrase=passphrase)
        lines = ["panel_id,link"] + [f"{m.link.label},{_url(m.secret, base_url)}" for m in made]
        text = "\n".join(lines) + "\n"
        if csv_path:
            csv_path.write_text(text, encoding="utf-8")
            click.echo(f"{len(made)} links written to {csv_path} (shown once: keep the file safe)")
        else:
            click.echo(text, nl=False)
    _run(go)


@links_group.command("list")
@click.argument("campaign_id", type=int)
@click.option("--json", "as_json", is_flag=True)
def links_list(campaign_id, as_json):
    """The campaign's links (id, hint, label, used, revoked); never their secrets."""
    from ..campaigns import services as svc
    from ..crowd import links

    def go():
        rows = [{"id": link.id, "hint": link.hint, "label": link.label, "passphrase": link.passphrase_hash is not None,
                 "first_used_at": link.first_used_at.isoformat() if link.first_used_at else None,
                 "revoked": link.revoked_at is not None} for link in links.list_links(svc.get_campaign(campaign_id))]
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        for r in rows:
            state = ("used" if r["first_used_at"] else "unused") + (", revoked" if r["revoked"] else "")
            click.echo(f"{r['id']}\t{r['hint']}…\t{r['label']}\t{state}")
    _run(go)


@links_group.command("revoke")
@click.argument("campaign_id", type=int)
@click.argument("link_id", type=int)
def links_revoke(campaign_id, link_id):
    """Revoke a link: it opens nothing any more, and its account's sessions end."""
    from ..campaigns import services as svc
    from ..crowd import links

    def go():
        links.revoke_link(svc.get_campaign(campaign_id), link_id)
        click.echo(f"link {link_id} revoked")
    _run(go)


@campaign.command("crowd")
@click.argument("campaign_id", type=int)
@click.option("--welcome", "welcome_src", default=None, metavar="FILE|lait",
              help="a welcome form (JSON), or the name of a ready one (lait)")
@click.option("--tutorial", "tutorial_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="a tutorial (JSON): training items with expected answers")
@click.option("--pass-code", default=None)
@click.option("--fail-code", default=None)
@click.option("--threshold", default=None, help="share of checks right for the pass code (default 0.8)")
@click.option("--redirect", default=None, help="e.g. 'https://app.prolific.com/submissions/complete?cc=${CODE}'")
@click.option("--clear", multiple=True, type=click.Choice(["welcome", "tutorial", "codes"]))
def crowd(campaign_id, welcome_src, tutorial_path, pass_code, fail_code, threshold, redirect, clear):
    """Set a campaign's welcome form, tutorial and completion codes."""
    from ..campaigns import services as svc
    from ..crowd.setup import check_codes, save_setup
    from ..crowd.welcome import READY_FORMS

    welcome_text = None
    if welcome_src:
        if welcome_src in READY_FORMS:
            welcome_text = welcome_src
        elif Path(welcome_src).is_file():
            welcome_text = Path(welcome_src).read_text(encoding="utf-8")
        else:
            _fail(f"--welcome: {welcome_src} is neither a file nor a ready form ({', '.join(READY_FORMS)})")
    tutorial_text = tutorial_path.read_text(encoding="utf-8") if tutorial_path else None

    def go():
        c = svc.get_campaign(campaign_id)
        codes = False
        if any(x is not None for x in (pass_code, fail_code, threshold, redirect)):
            codes = check_codes(pass_code, fail_code, threshold, redirect)
        setup = save_setup(c, welcome_text=welcome_text, tutorial_text=tutorial_text, codes=codes, clear=tuple(clear))
        click.echo(json.dumps({"welcome": (setup.welcome or {}).get("title"),
                               "tutorial_items": len((setup.tutorial or {}).get("items", [])),
                               "tutorial_required": bool((setup.tutorial or {}).get("required")),
                               "codes": setup.codes}, indent=2))
    _run(go)


@campaign.command("codes")
@click.argument("campaign_id", type=int)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None)
def codes(campaign_id, output):
    """Who got which completion code (CSV: panel_id, rater, code, passed, right, total, threshold, given_at)."""
    from ..campaigns import services as svc
    from ..crowd.reports import codes_csv

    def go():
        text = codes_csv(svc.get_campaign(campaign_id))
        if output:
            output.write_text(text, encoding="utf-8")
        else:
            click.echo(text, nl=False)
    _run(go)
