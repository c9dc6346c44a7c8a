"""Freeze semantics and the release bundle: layout, CSV that pandas reads with numeric columns, LaTeX
with balanced environments, the README with the licence, and the CLI."""

from __future__ import annotations

import io
import re
import zipfile

import pandas as pd

from tests.support.campaigns import annotate_all, new_campaign

BLEU = {"zephyr-mt": 40.0, "quokka-nmt": 35.0, "quokka-nmt-c": 20.0, "walrus-baseline": 10.0}


def _scores(world, values=BLEU, metric="bleu"):
    from enface.extensions import db
    from enface.models import ScoreRow, TestSet
    from enface.services.testsets import bump_scores_version

    with world.ctx(), db.write():
        for system, value in values.items():
            db.session.add(ScoreRow(submission_id=world.subs[system], metric=metric, scope="corpus",
                                    name=metric.upper(), value=value, higher_is_better=True,
                                    signature=f"nrefs:1|{metric}|version:2.4.0", versions={"sacrebleu": "2.4.0"}))
        bump_scores_version(db.session, world.testset_id)
        db.session.get(TestSet, world.testset_id).released = True


def _board_scores(client, ts, metric="bleu"):
    body = client.get(f"/leaderboard/{ts}.json").get_json()
    return {r["system"]: r["scores"][metric]["score"] for r in body["rows"]}


def test_a_score_added_after_the_freeze_does_not_show_publicly(world):
    from enface.extensions import db
    from enface.models import ScoreRow, TestSet
    from enface.services import freeze
    from enface.services.testsets import bump_scores_version

    ts = world.testset_id
    _scores(world)
    anon, org = world.client(), world.client("org@example.org")
    with world.ctx():
        freeze.freeze(db.session.get(TestSet, ts))
    # after the freeze: chrF arrives for every system, BLEU of zephyr-mt is re-scored
    with world.ctx(), db.write():
        for sid in world.subs.values():
            db.session.add(ScoreRow(submission_id=sid, metric="chrf", scope="corpus", name="chrF", value=55.0,
                                    higher_is_better=True, signature="chrF2|late"))
        row = db.session.query(ScoreRow).filter_by(submission_id=world.subs["zephyr-mt"], metric="bleu").one()
        row.value = 45.0
        bump_scores_version(db.session, ts)
    assert _board_scores(anon, ts) == BLEU
    assert set(_board_scores(anon, ts, "chrf").values()) == {None}
    assert _board_scores(org, ts)["zephyr-mt"] == 45.0 and set(_board_scores(org, ts, "chrf").values()) == {55.0}
    assert "Standings as frozen at" in anon.get(f"/leaderboard/{ts}").get_data(as_text=True)
    assert "the public sees those as of the freeze" in org.get(f"/leaderboard/{ts}").get_data(as_text=True)
    csv_text = anon.get(f"/leaderboard/{ts}.csv").get_data(as_text=True)
    assert "45.0000" not in csv_text and "40.0000" in csv_text
    # lifting the freeze shows the live standings to everyone
    with world.ctx():
        freeze.unfreeze(db.session.get(TestSet, ts))
    assert _board_scores(anon, ts)["zephyr-mt"] == 45.0


def test_freeze_through_the_page_and_only_by_organizers(world):
    ts = world.testset_id
    _scores(world)
    part = world.client("alder-ann@example.org")
    assert part.post(f"/browse/{ts}/freeze", data={"action": "freeze"}).status_code == 403
    assert part.post(f"/browse/{ts}/licence", data={"licence": "mine"}).status_code == 403
    org = world.client("org@example.org")
    r = org.post(f"/browse/{ts}/freeze", data={"action": "freeze"}, follow_redirects=True)
    assert "Leaderboard frozen at" in r.get_data(as_text=True)
    r = org.post(f"/browse/{ts}/freeze", data={"action": "unfreeze"}, follow_redirects=True)
    assert "The freeze is lifted" in r.get_data(as_text=True)
    assert org.post(f"/browse/{ts}/freeze", data={"action": "unfreeze"}).status_code == 409
    # a licence with control characters is refused and the old one kept
    org.post(f"/browse/{ts}/licence", data={"licence": "CC BY 4.0"})
    assert org.post(f"/browse/{ts}/licence", data={"licence": "bad\x00text"}).status_code == 400
    assert org.post(f"/browse/{ts}/licence", data={"licence": "x" * 20001}).status_code == 400
    assert "CC BY 4.0" in org.get(f"/browse/{ts}/downloads").get_data(as_text=True)


def _released_campaign(world) -> None:
    annotate_all(world, new_campaign(world, redundancy=1), lambda _e, _n, _a: [
        {"seg": 0, "start": 0, "end": 3, "category": "Accuracy", "subcategory": "Addition", "severity": "Major"}],
        release=True)


def _balanced(tex: str) -> None:
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{(\w+)\}", tex):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, tex
    assert not stack, tex
    plain = tex.replace(r"\{", "").replace(r"\}", "")
    assert plain.count("{") == plain.count("}"), tex


def test_release_bundle_contents(world):
    from enface.extensions import db
    from enface.models import TestSet
    from enface.services import freeze

    ts = world.testset_id
    _scores(world)
    _released_campaign(world)
    with world.ctx():
        freeze.set_licence(db.session.get(TestSet, ts), "CC BY-SA 4.0; cite the findings paper.")
    r = world.client().get(f"/browse/{ts}/downloads/release.zip")
    assert r.status_code == 200 and r.mimetype == "application/zip"
    zf = zipfile.ZipFile(io.BytesIO(r.data))
    names = zf.namelist()
    root = names[0].split("/")[0]
    files = {n[len(root) + 1:]: n for n in names}
    # WMT23 layout: one file per document per system, line-aligned
    for folder in ("Alder.zephyr-mt", "Birch.quokka-nmt", "Birch.quokka-nmt-c", "Organizers.walrus-baseline"):
        for doc, n in (("river.1", 4), ("orchard", 3)):
            text = zf.read(files[f"outputs/{folder}/{doc}.txt"]).decode()
            assert text.endswith("\n") and text.count("\n") == n, (folder, doc)
    assert zf.read(files["outputs/Alder.zephyr-mt/river.1.txt"]).decode().startswith("Der alte Fährmann")
    assert "testset/source/river.1.txt" in files and "testset/testset.json" in files
    assert not any(p.startswith("testset/ref") for p in files)       # references not public
    # scores: pandas reads numeric columns, empty cells for n/a, signatures in the sidecar
    scores = pd.read_csv(io.BytesIO(zf.read(files["scores/leaderboard.csv"])))
    assert scores["BLEU"].dtype.kind == "f" and scores["chrF"].isna().all()
    assert list(scores["system"]) == ["walrus-baseline", "zephyr-mt", "quokka-nmt", "quokka-nmt-c"]
    assert scores["MQM"].dtype.kind == "f"
    sigs = pd.read_csv(io.BytesIO(zf.read(files["scores/leaderboard.signatures.csv"])))
    assert list(sigs.columns) == ["metric", "signature"] and "nrefs:1|bleu|version:2.4.0" in set(sigs["signature"])
    assert '"rows"' in zf.read(files["scores/leaderboard.json"]).decode()
    # tables
    for name in ("tables/automatic.tex", "tables/human.tex"):
        tex = zf.read(files[name]).decode()
        _balanced(tex)
        assert r"\begin{tabular}" in tex and r"\toprule" in tex and r"\bottomrule" in tex
    assert "zephyr-mt" in zf.read(files["tables/automatic.tex"]).decode()
    auto = pd.read_csv(io.BytesIO(zf.read(files["tables/automatic.csv"])))
    assert auto["BLEU"].dtype.kind == "f"
    human = pd.read_csv(io.BytesIO(zf.read(files["tables/human.csv"])))
    assert human["MQM"].dtype.kind == "f" and set(human["system"]) == {"zephyr-mt", "quokka-nmt", "walrus-baseline"}
    # annotations: the Marot TSV reads back with the mqm library
    tsv = [p for p in files if p.startswith("annotations/") and p.endswith(".tsv")]
    assert len(tsv) == 1
    import mqm

    data = mqm.parse_tsv(zf.read(files[tsv[0]]).decode(), path="release.tsv")
    assert len(data.errors) == 6 and {e.severity for e in data.errors} == {"Major"}
    systems = pd.read_csv(io.BytesIO(zf.read(files["systems.csv"])))
    assert "zephyr-mt description" in set(systems["description"])
    readme = zf.read(files["README.md"]).decode()
    assert "CC BY-SA 4.0; cite the findings paper." in readme
    assert "nrefs:1|bleu|version:2.4.0" in readme and "sacrebleu 2.4.0" in readme
    # every file of the zip is also a download of its own, with the same bytes
    client = world.client()
    for path in ("README.md", "scores/leaderboard.csv", tsv[0], "outputs/Alder.zephyr-mt/orchard.txt"):
        one = client.get(f"/browse/{ts}/downloads/{path}")
        assert one.status_code == 200 and one.data == zf.read(files[path]), path
    assert client.get(f"/browse/{ts}/downloads/../../etc/passwd").status_code == 404
    assert client.get(f"/browse/{ts}/downloads/nope.txt").status_code == 404


def test_freeze_command(world, monkeypatch):
    from click.testing import CliRunner
    from enface.commands import main

    ts = world.testset_id
    monkeypatch.setattr("enface.commands._common.load_app", lambda: world.app)
    monkeypatch.setattr("enface.commands.testsets.load_app", lambda: world.app)
    runner = CliRunner()
    r = runner.invoke(main, ["testset", "freeze", str(ts)])
    assert r.exit_code == 0, r.output
    assert f"test set {ts} frozen at" in r.output
    r = runner.invoke(main, ["testset", "freeze", str(ts), "--undo"])
    assert r.exit_code == 0 and "lifted" in r.output
    r = runner.invoke(main, ["testset", "freeze", str(ts), "--undo"])
    assert r.exit_code != 0 and "not frozen" in r.output
    r = runner.invoke(main, ["testset", "freeze", "999999"])
    assert r.exit_code != 0 and "test set" in r.output


def test_the_pipeline_stores_scores_by_document(app):
    """An upload scored by the platform keeps each metric on each document; the browser shows those."""
    from enface.extensions import db
    from enface.models import ScoreRow
    from sqlalchemy import select

    from tests.support.testkit import World, upload

    kit = World(app)
    ts = kit.testset(released=True)
    _uid, token = kit.team_with_token("cap@example.org", "Lantern Lab")
    r = upload(app.test_client(), ts, token, system_name="lantern-nmt")
    assert r.status_code in (201, 202), r.get_json()
    sid = r.get_json()["id"]
    assert kit.submission(sid).state == "scored"
    with app.app_context():
        rows = {s.metric: s.values for s in db.session.scalars(
            select(ScoreRow).where(ScoreRow.submission_id == sid, ScoreRow.scope == "document"))}
    assert set(rows) >= {"bleu", "chrf", "ter", "dbleu"} and all(len(v) == 3 for v in rows.values())
    page = app.test_client().get(f"/browse/{ts}/system/{sid}?metric=chrf").get_data(as_text=True)
    assert [f"{v:.2f}" for v in rows["chrf"]] == re.findall(r'<td class="num chosen">([^<]+)</td>', page)
    assert "No scores by document are stored" not in page
