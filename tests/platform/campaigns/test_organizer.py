"""The organizer's pages and commands: create, invite (links that create annotator accounts),
start, dashboard, export, release to the leaderboard, and who may see what."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

import mqm
from tests.support.campaigns import (
    PASSWORD,
    assignments_of,
    finish,
    new_campaign,
    put_mark,
    read_all,
    set_testset_released,
)


def test_only_organizers_reach_campaign_pages(world):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1)
    anon = world.client()
    assert anon.get("/campaigns/").status_code in (302, 401)
    for email in ("ann1@example.org", "alder-ann@example.org"):
        c = world.client(email)
        for url in ("/campaigns/", "/campaigns/new", f"/campaigns/{cid}", f"/campaigns/{cid}/results.json"):
            assert c.get(url).status_code == 404, (email, url)
        for url in (f"/campaigns/{cid}/start", f"/campaigns/{cid}/release", f"/campaigns/{cid}/invites"):
            assert c.post(url).status_code == 404, (email, url)
    org = world.client("org@example.org")
    assert org.get("/campaigns/").status_code == 200
    assert "Human evaluation" in org.get("/").get_data(as_text=True)          # the nav link
    # an annotator-only account's navigation: its items (see test_annotator_nav.py)
    assert "My annotation items" in world.client("ann1@example.org").get("/").get_data(as_text=True)


def test_create_campaign_by_form(world):
    org = world.client("org@example.org")
    html = org.get("/campaigns/new").get_data(as_text=True)
    assert f"/campaigns/new?testset={world.testset_id}" in html
    html = org.get(f"/campaigns/new?testset={world.testset_id}").get_data(as_text=True)
    # primaries and the baseline are chosen by default; the contrastive system is not
    for system, checked in (("zephyr-mt", True), ("quokka-nmt", True), ("walrus-baseline", True),
                            ("quokka-nmt-c", False)):
        box = re.search(rf'<input type="checkbox" id="sys-{world.subs[system]}"[^>]*>', html).group(0)
        assert ("checked" in box) == checked, system
    form = {"testset": world.testset_id, "name": "Human eval 2026", "systems": [world.subs["zephyr-mt"],
            world.subs["quokka-nmt"]], "docs_mode": "ranges", "ranges": "river.1:1-3\norchard", "scheme": "google-mqm",
            "redundancy": "1", "attention_share": "25%", "attention_kind": "words", "source_words": "whitespace",
            "significance_unit": "doc", "instructions": "Be thorough.", "seed": "5"}
    r = org.post("/campaigns/new", data=form)
    assert r.status_code == 302, r.get_data(as_text=True)
    cid = int(r.headers["Location"].rstrip("/").split("/")[-1])
    from enface.campaigns import services as svc

    with world.ctx():
        c = svc.get_campaign(cid)
        assert (c.protocol, c.setting("scheme"), c.redundancy, c.setting("attention_share"),
                c.setting("significance_unit"), c.seed) == ("mqm", "google-mqm", 1, 0.25, "doc", 5)
        assert c.ranges == ["river.1:1-3", "orchard:1-3"]
        assert sorted(s.submission_id for s in c.systems) == sorted([world.subs["zephyr-mt"], world.subs["quokka-nmt"]])
    # a sample of documents instead
    r = org.post("/campaigns/new", data={**form, "docs_mode": "sample", "sample_docs": "1", "sample_words": "10"})
    assert r.status_code == 302
    # refusals keep the form and say why
    for bad, message in (({"systems": []}, "choose at least one system"),
                         ({"ranges": "nowhere:1-2"}, "no document"),
                         ({"ranges": "river.1:3-9"}, "outside"),
                         ({"redundancy": "0"}, "redundancy"),
                         ({"attention_share": "150%"}, "attention"),
                         ({"scheme": "nope"}, "unknown scheme"),
                         ({"name": ""}, "name is required"),
                         ({"systems": [99999]}, "cannot be evaluated")):
        r = org.post("/campaigns/new", data={**form, **bad})
        assert r.status_code == 400, bad
        assert message in r.get_data(as_text=True), (bad, message)


def _csrf(html: str) -> str:
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)


def test_invite_links_create_annotator_accounts(world):
    cid = new_campaign(world, annotators=(), start=False)
    org = world.client("org@example.org")
    r = org.post(f"/campaigns/{cid}/invites", data={"count": "2", "max_uses": "1", "label": "translators"})
    links = re.findall(r"http://localhost/annotate/join/[\w-]+", r.get_data(as_text=True))
    assert len(links) == 2
    path = links[0].replace("http://localhost", "")
    new = world.app.test_client()
    page = new.get(path)
    assert page.status_code == 200 and "Tales MQM" in page.get_data(as_text=True)
    # mistakes are shown on the form
    r = new.post(path, data={"name": "Nadia", "email": "nadia@example.org", "password": "short", "confirm": "short"})
    assert r.status_code == 400 and "at least 10 characters" in r.get_data(as_text=True)
    r = new.post(path, data={"name": "Nadia", "email": "nadia@example.org", "password": PASSWORD, "confirm": "nope"})
    assert r.status_code == 400 and "differ" in r.get_data(as_text=True)
    r = new.post(path, data={"name": "Nadia", "email": "nadia@example.org", "password": PASSWORD, "confirm": PASSWORD})
    assert r.status_code == 302 and r.headers["Location"].endswith("/annotate/")
    assert "joined “Tales MQM”" in new.get("/annotate/").get_data(as_text=True)
    # the link was for one use
    again = world.app.test_client().get(path)
    assert again.status_code == 410
    # an existing account joins with the second link
    ann = world.client("ann3@example.org")
    assert ann.post(links[1].replace("http://localhost", "")).status_code == 302
    from enface.campaigns import services as svc
    from enface.models import User

    with world.ctx():
        c = svc.get_campaign(cid)
        members = {a.user.email: a for a in c.annotators}
        assert set(members) == {"nadia@example.org", "ann3@example.org"}
        assert members["nadia@example.org"].user.role == "annotator"
        assert members["nadia@example.org"].rater == "rater1"
        assert User  # (the account exists with the annotator role)
    assert world.app.test_client().get("/annotate/join/inv_bogus").status_code == 404
    # revoked links stop working
    r = org.post(f"/campaigns/{cid}/invites", data={"count": "1"})
    link = re.findall(r"http://localhost(/annotate/join/[\w-]+)", r.get_data(as_text=True))[0]
    with world.ctx():
        inv = svc.get_campaign(cid).invites[-1]
    org.post(f"/campaigns/{cid}/invites/{inv.id}/revoke")
    assert world.app.test_client().get(link).status_code == 410


def test_dashboard_lifecycle_export_and_leaderboard(world):
    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), start=False, attention=0.5)
    org = world.client("org@example.org")
    html = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "Start: assign items" in html and "rater1" in html
    r = org.post(f"/campaigns/{cid}/start", data={"confirmed": "yes"})
    assert r.status_code == 302
    html = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "Started" in html or "items finished" in html
    assert org.post(f"/campaigns/{cid}/start", data={"confirmed": "yes"}).status_code == 302      # refused with a message, not an error
    assert "already started" in org.get(f"/campaigns/{cid}").get_data(as_text=True)
    for email in ("ann1@example.org", "ann2@example.org"):
        c = world.client(email)
        for a in assignments_of(world, cid, email):
            put_mark(c, a["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Style",
                                         "subcategory": "Unidiomatic", "severity": "Minor"})
            read_all(c, a["public_id"], a["segments"])
            assert finish(c, a["public_id"]).status_code == 200
    html = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    for text in ("12 of 12 items finished", "Table 4", "found", "missed", "Wilcoxon", "<svg", "Reopen"):
        assert text in html, text
    tsv = org.get(f"/campaigns/{cid}/export.tsv")
    assert tsv.status_code == 200 and tsv.mimetype == "text/tab-separated-values"
    data = mqm.parse_tsv(tsv.get_data(as_text=True))
    assert len(data.errors) + len(data.attention_checks) >= 12 and set(data.raters) == {"rater1", "rater2"}
    js = org.get(f"/campaigns/{cid}/export.json")
    assert mqm.from_json_obj(js.get_json()).raters == ["rater1", "rater2"]
    svg = org.get(f"/campaigns/{cid}/errors.svg")
    assert svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    # the public sees nothing before release
    anon = world.client()
    for url in (f"/campaigns/{cid}/results", f"/campaigns/{cid}/export.tsv", f"/campaigns/{cid}/errors.svg"):
        assert anon.get(url).status_code == 404
    assert org.post(f"/campaigns/{cid}/release", data={"confirmed": "yes"}).status_code == 302
    # released, but the test set is not: the results wait for it
    assert anon.get(f"/campaigns/{cid}/results").status_code == 404
    set_testset_released(world)
    res = anon.get(f"/campaigns/{cid}/results")
    assert res.status_code == 200 and "zephyr-mt" in res.get_data(as_text=True)
    assert anon.get(f"/campaigns/{cid}/export.tsv").status_code == 200
    # the leaderboard shows the MQM column and the official human ranking
    board = anon.get(f"/leaderboard/{world.testset_id}").get_data(as_text=True)
    assert "MQM" in board and "Official human ranking" in board
    rows = anon.get(f"/leaderboard/{world.testset_id}.json").get_json()["rows"]
    scored = {r["system"]: r["mqm"] for r in rows}
    assert scored["zephyr-mt"]["score"] is not None and scored["quokka-nmt-c"] is None
    # withdrawing the release takes it off again
    assert org.post(f"/campaigns/{cid}/withdraw").status_code == 302
    assert "Official human ranking" not in anon.get(f"/leaderboard/{world.testset_id}").get_data(as_text=True)
    assert anon.get(f"/campaigns/{cid}/results").status_code == 404


def test_reopen_and_close(world):
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="orchard")
    c = world.client("ann1@example.org")
    a = assignments_of(world, cid, "ann1@example.org")[0]
    read_all(c, a["public_id"], a["segments"])
    finish(c, a["public_id"])
    org = world.client("org@example.org")
    assert org.post(f"/campaigns/{cid}/assignments/{a['id']}/reopen").status_code == 302
    r, _ = put_mark(c, a["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Others", "severity": "Minor"})
    assert r.status_code == 200
    org.post(f"/campaigns/{cid}/state", data={"state": "closed"})
    r, _ = put_mark(c, a["public_id"], {"seg": 1, "start": 0, "end": 3, "category": "Others", "severity": "Minor"})
    assert r.status_code == 409
    # the organizer can read any item (read-only)
    page = org.get(f"/annotate/item/{a['public_id']}")
    assert page.status_code == 200 and '"readonly": true' in page.get_data(as_text=True)
    r, _ = put_mark(org, a["public_id"], {"seg": 1, "start": 0, "end": 3, "category": "Others", "severity": "Minor"})
    assert r.status_code == 404


@pytest.fixture
def cli_env(world, database_url, tmp_path):
    return {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
            "ENFACE_SECRET_KEY": "cli-test"}


def test_cli(world, cli_env, tmp_path):
    from enface.commands import main

    run = CliRunner().invoke
    r = run(main, ["campaign", "create", "--testset", str(world.testset_id), "--name", "CLI MQM", "--range",
                   "river.1", "--redundancy", "1", "--attention", "0", "--source-words", "whitespace", "--seed", "3"],
            env=cli_env)
    assert r.exit_code == 0, r.output
    cid = int(r.output.strip().splitlines()[-1])
    r = run(main, ["campaign", "invite", str(cid), "--count", "2", "--base-url", "https://mqm.example.org"], env=cli_env)
    assert r.exit_code == 0 and len(re.findall(r"https://mqm\.example\.org/annotate/join/\S+", r.output)) == 2
    r = run(main, ["campaign", "add-annotator", str(cid), "ann1@example.org"], env=cli_env)
    assert r.exit_code == 0 and "rater1" in r.output
    r = run(main, ["campaign", "add-annotator", str(cid), "nobody@example.org"], env=cli_env)
    assert r.exit_code == 1 and "no account" in r.output
    r = run(main, ["campaign", "start", str(cid)], env=cli_env)
    assert r.exit_code == 0 and "3 items" in r.output, r.output
    r = run(main, ["campaign", "start", str(cid)], env=cli_env)
    assert r.exit_code == 1 and "already started" in r.output
    r = run(main, ["campaign", "rebalance", str(cid)], env=cli_env)    # one annotator: nothing to move
    assert r.exit_code == 0 and "moved 0 unstarted item(s)" in r.output
    c = world.client("ann1@example.org")
    for a in assignments_of(world, cid, "ann1@example.org"):
        put_mark(c, a["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Others", "severity": "Major"})
        read_all(c, a["public_id"], a["segments"])
        finish(c, a["public_id"])
    r = run(main, ["campaign", "status", str(cid), "--json"], env=cli_env)
    assert r.exit_code == 0, r.output
    import json

    status = json.loads(r.output)
    assert status["finished"] == 3 and status["annotators"][0]["marks"] == 3
    # 37 source words, one Major: 100 * (1 - 10/37)
    assert status["scores"]["zephyr-mt"] == pytest.approx(100 * (1 - 10 / 37))
    out = tmp_path / "out.tsv"
    r = run(main, ["campaign", "export", str(cid), "-o", str(out)], env=cli_env)
    assert r.exit_code == 0
    assert len(mqm.read_tsv(out).errors) == 3
    r = run(main, ["campaign", "release", str(cid)], env=cli_env)
    assert r.exit_code == 0 and "released" in r.output
    assert "stay with the organizers until test set" in r.output   # the test set is not released
    r = run(main, ["campaign", "list"], env=cli_env)
    assert "released" in r.output and "CLI MQM" in r.output


@pytest.mark.parametrize("first", ["enface.commands", "enface.commands.campaigns"])
def test_cli_modules_import_in_either_order(first):
    """enface/commands/__init__.py registers the campaign commands, which take their helpers from _common."""
    import subprocess
    import sys

    code = (f"import {first}\n"
            "import enface.commands, enface.commands._common as common, enface.commands.campaigns as c\n"
            "assert enface.commands.main.commands['campaign'] is c.campaign\n"
            "assert c._app is common.load_app and c._fail is common.fail\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    out = subprocess.run([sys.executable, "-m", "enface.commands", "campaign", "create", "--help"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    assert f"[default: {mqm.DEFAULT_SCHEME}]" in out and "[mixed|words|letters]" in out
    assert f"[{'|'.join(mqm.words.MODES)}]" in out and "[segment|doc]" in out


def test_error_chart_and_exports_after_release(world):
    """The live chart counts errors without scoring; the public sees the released snapshot;
    the JSON export is the mqm library's."""
    import json

    from enface.campaigns import services as svc
    from enface.protocols.mqm import services as mqm_svc

    cid = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=1)
    for email in ("ann1@example.org", "ann2@example.org"):
        c = world.client(email)
        for a in assignments_of(world, cid, email):
            put_mark(c, a["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Fluency",
                                         "subcategory": "Grammar", "severity": "Major"})
            read_all(c, a["public_id"], a["segments"])
            assert finish(c, a["public_id"]).status_code == 200
    with world.ctx():
        camp = svc.get_campaign(cid)
        full = mqm_svc.compute_results(camp)
        light = mqm_svc.error_results(camp)
        scheme = mqm_svc.get_scheme(camp.setting("scheme"))
        assert light["errors"] == full["errors"] and full["errors"]
        assert mqm_svc.error_chart(light, scheme) == mqm_svc.error_chart(full, scheme)
        data = mqm_svc.build_data(camp)
        exported = mqm_svc.export_json(camp)
        assert exported == mqm.jsonio.dumps(data)
        assert mqm.format_tsv(mqm.from_json_obj(json.loads(exported))) == mqm_svc.export_tsv(camp)
        snap = svc.release(camp)
        assert "agreement" not in snap and snap["errors"] == full["errors"]
    set_testset_released(world)   # the results are public once the test set is released too
    org, public = world.client("org@example.org"), world.app.test_client()
    with world.ctx():
        # a mark the organizer's (live) chart shows and the public (released) one does not
        from enface.campaigns.models import Assignment
        from enface.extensions import db
        from enface.protocols.mqm.models import Mark
        from sqlalchemy import select

        with db.write():
            asg = db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid)).first()
            db.session.add(Mark(assignment_id=asg.id, uuid=str(__import__("uuid").uuid4()), seg=1, side="target",
                                start_pos=0, end_pos=2, text="xx", category="Style", subcategory="Unidiomatic",
                                severity="Minor"))
    live = org.get(f"/campaigns/{cid}/errors.svg").get_data(as_text=True)
    frozen = public.get(f"/campaigns/{cid}/errors.svg").get_data(as_text=True)
    assert ": Style, Minor: 1</title>" in live and ": Fluency, Major: 2</title>" in live
    assert ": Style, Minor" not in frozen and ": Fluency, Major: 2</title>" in frozen
    # the public results pages show the snapshot, to organizers too
    for client in (org, public):
        assert client.get(f"/campaigns/{cid}/results/data.json").get_json()["systems"] == snap["systems"]


def test_an_annotator_judging_blind_waits_for_released_results(world):
    """A released campaign's results and exports tie system names to their texts: an annotator of another,
    still running campaign on the same test set gets 403 (as in the output browser) until that one is
    released; everyone else reads them (the access matrix found the export open to that annotator)."""
    from tests.support.campaigns import annotate_all

    done = new_campaign(world, annotators=("ann1@example.org",), redundancy=1)
    annotate_all(world, done, annotators=("ann1@example.org",), release=True)
    set_testset_released(world)
    running = new_campaign(world, annotators=("ann2@example.org",), redundancy=1, seed=11)
    urls = [f"/campaigns/{done}/{page}" for page in ("export.tsv", "export.json", "results", "results/data.json",
                                                     "errors.svg")]
    blind, other, anon = world.client("ann2@example.org"), world.client("ann1@example.org"), world.client()
    for url in urls:
        r = blind.get(url)
        assert r.status_code == 403, url
        assert "zephyr-mt" not in r.get_data(as_text=True), url
        assert other.get(url).status_code == 200 and anon.get(url).status_code == 200, url
    annotate_all(world, running, annotators=("ann2@example.org",), release=True)
    assert all(blind.get(url).status_code == 200 for url in urls)


def test_pages_do_not_query_per_row(world):
    """The dashboard and the annotator's list of items read in a fixed number of queries."""
    from sqlalchemy import event

    def queries(client, url):
        seen = []
        engine = world.app.extensions["enface_db"][0]

        def count(*_args):
            seen.append(1)
        event.listen(engine, "before_cursor_execute", count)
        try:
            assert client.get(url).status_code == 200
        finally:
            event.remove(engine, "before_cursor_execute", count)
        return len(seen)

    small = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=1,
                         ranges="river.1")
    big = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org", "ann3@example.org"),
                       redundancy=2, ranges="river.1\norchard")
    for cid in (small, big):
        c = world.client("ann1@example.org")
        for a in assignments_of(world, cid, "ann1@example.org")[:2]:
            put_mark(c, a["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Fluency",
                                         "subcategory": "Grammar", "severity": "Minor"})
            read_all(c, a["public_id"], a["segments"])
            assert finish(c, a["public_id"]).status_code == 200
    org = world.client("org@example.org")
    assert queries(org, f"/campaigns/{small}") == queries(org, f"/campaigns/{big}")
    ann1, ann3 = world.client("ann1@example.org"), world.client("ann3@example.org")
    assert queries(ann1, "/annotate/") == queries(ann3, "/annotate/")   # items of two campaigns / of one


def test_error_chart_legend_fits_one_system(world):
    """With one system the panel is narrower than the severities' legend: the chart widens to hold it."""
    from enface.protocols.mqm import services as mqm_svc
    from enface.protocols.mqm.services.charts import LEGEND_STEP

    with world.ctx():
        scheme = mqm_svc.get_scheme("wmt23-literary")
        chart = mqm_svc.error_chart({"errors": {"solo-mt": {"Accuracy": {"Major": 2}}},
                                     "systems": {"solo-mt": {}}}, scheme)
    assert len(chart["panels"]) == 1 and len(chart["legend"]) >= 3
    last = chart["legend"][-1]
    assert 34 + last["x"] + LEGEND_STEP <= chart["width"], (chart["width"], chart["legend"])
    assert chart["width"] > chart["panels"][0]["x"] + chart["panels"][0]["w"]
