"""The proof of the protocol seam: a protocol that Enface has never heard of, installed like a third-party
plug-in, works end to end with no line outside its own folder naming it.

The test writes a tiny distribution (a package with a Protocol subclass, its templates, an entry point of
the group ``enface.protocols`` in its metadata), builds its wheel with pip and installs it into a
temporary target folder put on the import path (never into the venv). Then the new protocol is on the
new-campaign page and in ``enface campaign create --help`` with its own option, a campaign of it runs
from the command line and the annotation API to release, and its column is on the leaderboard.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.campaigns import build_world
from tests.support.distributions import build_and_install, importable
from tests.support.testkit import TestConfigEnv

KEY = "toyscore"
PACKAGE = "enface_toyscore"

PROTOCOL_PY = '''
"""A toy protocol: one 1-5 score per item (a document range in one system's translation)."""

import json

from sqlalchemy import select

from enface.campaigns.contract import Export, LeaderboardColumn
from enface.campaigns.models import Assignment, Response
from enface.campaigns.options import Option
from enface.campaigns.protocol import ItemPlan, Protocol
from enface.campaigns.services import bad, parsed_ranges, testset_docs
from enface.extensions import db


class ToyScore(Protocol):
    key = "toyscore"
    title = "Toy score"
    description = "Annotators give each translation one score from 1 to 5."
    item_template = "toyscore/item.html"
    options = (Option("question", str, "How good is this translation?", "the question annotators answer"),)
    leaderboard_column = LeaderboardColumn(
        name="Toy score", choice="human-toyscore", head="toyscore/_lb_head.html", cell="toyscore/_lb_cell.html",
        ranking="toyscore/_lb_ranking.html", shown_without_ranking=True)

    def clean_settings(self, data, testset):
        unknown = sorted(set(data) - {"question"})
        if unknown:
            raise bad("invalid_field", f"unknown setting {unknown[0]}", field=unknown[0])
        question = str(data.get("question") or self.options[0].default).strip()
        return {"question": question}

    def build_items(self, campaign):
        docs = {d.name: d for d in campaign.testset.documents}
        return [ItemPlan(document_id=docs[r.doc].id, seg_start=r.start - 1, seg_end=r.end, version_ids=[v.id],
                         group=str(r))
                for r in parsed_ranges(campaign, testset_docs(campaign.testset)) for v in campaign.versions]

    def item_state(self, asg, *, readonly):
        score = next((r.data["value"] for r in asg.responses if not r.deleted and r.kind == "score"), None)
        return {"item": {"id": asg.public_id}, "question": asg.item.campaign.setting("question"), "score": score,
                "readonly": readonly}

    def check_response(self, asg, kind, key, data):
        if kind != "score" or key != "overall":
            raise bad("invalid_field", "a toy score is kind score, key overall", field="kind")
        value = data.get("value") if isinstance(data, dict) else None
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
            raise bad("invalid_field", "a toy score is a whole number from 1 to 5", field="value")
        return {"value": value}

    def check_finish(self, asg):
        if not any(r.kind == "score" and not r.deleted for r in asg.responses):
            raise bad("not_scored", "give the translation a score first", 409)

    def _scores(self, campaign):
        rows = db.session.execute(select(Assignment, Response).join(Response)
                                  .where(Assignment.campaign_id == campaign.id, Assignment.state == "finished",
                                         Response.deleted.is_(False), Response.kind == "score")).all()
        by_sub = {}
        for asg, resp in rows:
            by_sub.setdefault(str(asg.item.submission_id), []).append(resp.data["value"])
        return {sid: sum(v) / len(v) for sid, v in sorted(by_sub.items())}

    def progress(self, campaign):
        states = list(db.session.scalars(select(Assignment.state).where(Assignment.campaign_id == campaign.id)))
        return {"total": len(states), "finished": states.count("finished")}

    def results(self, campaign, *, organizer=False):
        if campaign.state == "released" and campaign.results and not organizer:
            return campaign.results
        scores = self._scores(campaign)
        return {"systems": len(scores), "scores": scores}

    def release_snapshot(self, campaign):
        res = self.results(campaign, organizer=True)
        if not res["scores"]:
            raise bad("no_results", "nothing scored yet", 409)
        return res

    def leaderboard(self, campaign):
        scores = (campaign.results or {}).get("scores") or {}
        return {"campaign": {"id": campaign.id, "name": campaign.name}, "higher_is_better": True,
                "by_submission": {int(sid): {"score": v} for sid, v in scores.items()}, "ranking": None}

    def exports(self):
        return {"json": Export("application/json", "json", "JSON (scores)",
                               lambda campaign: json.dumps(self.results(campaign, organizer=True), sort_keys=True))}


PROTOCOL = ToyScore()
'''

TEMPLATES = {
    "item.html": '{% extends "base.html" %}{% block content %}<h1 id="toy-question">{{ state.question }}</h1>'
                 '{% endblock %}',
    "_lb_head.html": '<th scope="col" class="num toy-col">Toy score</th>',
    "_lb_cell.html": '<td class="num toy-cell">{{ "%.2f"|format(m.score) if m else "—" }}</td>',
    "_lb_ranking.html": '<section id="toy-ranking"><h2>Toy scores ({{ part.campaign.name }})</h2></section>',
}

PYPROJECT = f'''
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "enface-toyscore"
version = "0.1"

[project.entry-points."enface.protocols"]
{KEY} = "{PACKAGE}.protocol:PROTOCOL"

[tool.setuptools]
packages = ["{PACKAGE}"]

[tool.setuptools.package-data]
{PACKAGE} = ["templates/*/*.html"]
'''


def _build_and_install(tmp: Path) -> Path:
    src = tmp / "src"
    package = src / PACKAGE
    (package / "templates" / KEY).mkdir(parents=True)
    (src / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT), encoding="utf-8")
    (package / "__init__.py").write_text('"""The toy protocol."""\n', encoding="utf-8")
    (package / "protocol.py").write_text(textwrap.dedent(PROTOCOL_PY), encoding="utf-8")
    for name, text in TEMPLATES.items():
        (package / "templates" / KEY / name).write_text(text, encoding="utf-8")
    return build_and_install(src, "enface_toyscore-*.whl", tmp)


@pytest.fixture(scope="module")
def toy_site(tmp_path_factory):
    """The toy distribution, built and installed into a folder on the import path for this module's tests."""
    from enface.campaigns.protocol import PROTOCOLS

    with importable(_build_and_install(tmp_path_factory.mktemp("toy")), PACKAGE) as target:
        yield target
        PROTOCOLS.pop(KEY, None)


@pytest.fixture
def world(make_app, toy_site, tmp_path):
    return build_world(make_app(), tmp_path)


def test_the_toy_needs_no_line_outside_its_folder():
    """No file of the core or of the repository's own protocols names the toy (nor could it: the key is
    made up here), so what follows works through the seam alone."""
    import tests.test_protocol_names as tripwire

    root = Path(__file__).resolve().parents[3]
    named = [p for p in (root / "platform").rglob("*") if p.is_file() and p.suffix in tripwire.SUFFIXES
             and (KEY in p.read_text(encoding="utf-8", errors="replace")
                  or PACKAGE in p.read_text(encoding="utf-8", errors="replace"))]
    assert named == []


def test_a_plugin_protocol_runs_to_release_and_reaches_the_leaderboard(world, monkeypatch):
    from enface.campaigns.discovery import load_protocols
    from enface.commands import main

    assert KEY in load_protocols()
    for key, value in TestConfigEnv(world.app).items():
        if key.startswith("ENFACE_"):
            monkeypatch.setenv(key, value)
    run = CliRunner().invoke

    # the command line lists it and its own option
    help_text = run(main, ["campaign", "create", "--help"]).output
    assert f"{KEY}: Toy score" in help_text and "--question" in help_text
    assert f"{KEY}: the question annotators answer" in help_text

    # the new-campaign page offers it, and its form carries the declared option
    org = world.client("org@example.org")
    picker = org.get("/campaigns/new").get_data(as_text=True)
    assert f"protocol={KEY}" in picker and "Toy score" in picker
    form = org.get(f"/campaigns/new?testset={world.testset_id}&protocol={KEY}")
    assert form.status_code == 200 and 'name="question"' in form.get_data(as_text=True)
    posted = org.post("/campaigns/new", data={
        "testset": world.testset_id, "protocol": KEY, "name": "Toy by form", "systems": [world.subs["zephyr-mt"]],
        "ranges": "orchard", "redundancy": "1", "strategy": "redundancy", "question": "Fluent?", "seed": "3"})
    assert posted.status_code == 302, posted.get_data(as_text=True)

    # a campaign from the command line, with the protocol's option; a wrong option is refused by name
    wrong = run(main, ["campaign", "create", "--protocol", KEY, "--testset", str(world.testset_id), "--name", "x",
                       "--scheme", "google-mqm"])
    assert wrong.exit_code == 1 and "--scheme is an option of" in wrong.output
    subs = [world.subs["zephyr-mt"], world.subs["quokka-nmt"]]
    made = run(main, ["campaign", "create", "--protocol", KEY, "--testset", str(world.testset_id), "--name",
                      "Toy campaign", "--range", "orchard", "--question", "Is it fluent?", "--seed", "1",
                      *[a for s in subs for a in ("--system", str(s))]], catch_exceptions=False)
    assert made.exit_code == 0, made.output
    cid = int(made.output.strip().splitlines()[-1])
    assert run(main, ["campaign", "add-annotator", str(cid), "ann1@example.org"]).exit_code == 0
    started = run(main, ["campaign", "start", str(cid)])
    assert started.exit_code == 0 and "2 items, 2 assignments" in started.output, started.output

    # the annotator works through the core's annotation API; the protocol checks each answer
    from tests.support.campaigns import assignments_of

    ann = world.client("ann1@example.org")
    scores = {world.subs["zephyr-mt"]: 4, world.subs["quokka-nmt"]: 2}
    for a in assignments_of(world, cid, "ann1@example.org"):
        page = ann.get(f"/annotate/item/{a['public_id']}")
        assert page.status_code == 200 and "Is it fluent?" in page.get_data(as_text=True)
        url = f"/annotate/api/items/{a['public_id']}"
        assert ann.post(f"{url}/finish", json={}).status_code == 409      # not scored yet
        bad = ann.put(f"{url}/responses/00000000-0000-4000-8000-00000000000{a['number']}",
                      json={"rev": 1, "kind": "score", "key": "overall", "data": {"value": 9}})
        assert bad.status_code == 400 and "1 to 5" in bad.get_json()["error"]["message"]
        ok = ann.put(f"{url}/responses/00000000-0000-4000-8000-00000000001{a['number']}",
                     json={"rev": 1, "kind": "score", "key": "overall", "data": {"value": scores[a["submission_id"]]}})
        assert ok.status_code == 200, ok.get_json()
        assert ann.post(f"{url}/finish", json={}).status_code == 200

    status = run(main, ["campaign", "status", str(cid), "--json"])
    assert status.exit_code == 0 and '"finished": 2' in status.output, status.output
    released = run(main, ["campaign", "release", str(cid)])
    assert released.exit_code == 0, released.output
    exported = run(main, ["campaign", "export", str(cid)])
    assert exported.exit_code == 0 and '"scores"' in exported.output

    # its column and its part under the leaderboard, through the partials of its own folder
    board = org.get(f"/leaderboard/{world.testset_id}").get_data(as_text=True)
    assert '<th scope="col" class="num toy-col">Toy score</th>' in board
    assert '<td class="num toy-cell">4.00</td>' in board and '<td class="num toy-cell">2.00</td>' in board
    assert '<section id="toy-ranking"><h2>Toy scores (Toy campaign)</h2></section>' in board
    csv = org.get(f"/leaderboard/{world.testset_id}.csv").get_data(as_text=True)
    assert "Toy score,Toy score rank" in csv.splitlines()[0]
    results = org.get(f"/campaigns/{cid}/results").get_data(as_text=True)
    assert 'id="protocol-results-page"' in results
