"""Rankings on the leaderboard: automatic clusters (= the library's paired bootstrap), the official human ranking
across all systems under either paired test, head-to-head marks, the paper's tables, the registry, the cache."""

from __future__ import annotations

import io
import re

import pandas
import pytest

from tests.support.campaigns import SYSTEMS, annotate_all, build_world, new_campaign
from tests.support.testkit import system_files, upload
from tests.support.toy_metric import toy_metric


@pytest.fixture
def scored(world, client):
    """Four demo systems scored through the API (two with identical outputs), released."""
    ts = world.testset(quota_per_day=None, quota_total=None)
    org = world.token(world.user("org@x.org", role="organizer"))
    teams = {name: world.team_with_token(f"cap@{name}.org", name)[1] for name in ("a", "b", "c")}
    specs = {"literal-base": (org, "baseline", "literal-mt"), "lantern-nmt": (teams["a"], "primary", "strong-mt"),
             "inkstone-llm": (teams["b"], "primary", "weak-mt"), "quill-literal": (teams["c"], "primary", "literal-mt")}
    ids = {}
    for name, (token, label, folder) in specs.items():
        r = upload(client, ts, token, label=label, system_name=name, files=system_files(folder))
        ids[name] = r.get_json()["id"]
    world.settings(ts, released=True)
    return ts, ids, specs


def _expected_ranges(specs, metric):
    """The scoring library's all-pairs paired bootstrap on the same outputs, as ``python -m scoring`` runs it."""
    from scoring import Scorer, load_system_output, load_testset
    from scoring.significance import metric_stats, paired_test
    from tests.support.testkit import DEMO

    ts = load_testset(DEMO / "testset")
    outputs = {name: load_system_output(ts, DEMO / "systems" / folder) for name, (_t, _l, folder) in specs.items()}
    with Scorer(ts, [metric], workers=1) as scorer:
        results = scorer.score_many(outputs)
    sig = paired_test(metric_stats(metric, ts.tgt_lang, {n: r.stats[metric] for n, r in results.items()}),
                      test="bs", n_samples=1000, seed=12345)
    return {r["system"]: (r["rank_range"], r["cluster"]) for r in sig.ranking}, sig


def test_automatic_clusters_are_the_library_paired_bootstrap(app, client, scored):
    from enface.services import leaderboard as lb

    ts, _ids, specs = scored
    html = client.get(f"/leaderboard/{ts}").get_data(as_text=True)
    with app.test_request_context():
        board = lb.get_leaderboard(ts)
    assert board["auto"]["state"] == "ready" and board["auto"]["test"] == "bs"
    for metric in ("bleu", "chrf", "ter"):
        expected, _sig = _expected_ranges(specs, metric)
        got = {r["system"]: (r["scores"][metric]["rank_range"], r["scores"][metric]["cluster"]) for r in board["rows"]}
        assert got == expected, metric
    # identical outputs: never separated; the strong system is alone at the top by BLEU
    bleu = {r["system"]: r["scores"]["bleu"] for r in board["rows"]}
    assert bleu["literal-base"]["cluster"] == bleu["quill-literal"]["cluster"]
    assert bleu["lantern-nmt"]["rank_range"] == "1"
    # on the page: a rank range per cell, and one cluster panel per metric with its cluster lines
    assert html.count('<span class="rr"') >= 4 * 4
    panels = re.findall(r'<table class="data ranking panel" data-metric="(\w+)">(.*?)</table>', html, re.S)
    assert [m for m, _ in panels] == ["bleu", "chrf", "ter", "dbleu"]   # no COMET here: n/a for every system
    bleu_panel = dict(panels)["bleu"]
    assert bleu_panel.count("cluster-break") == len({c for _r, c in _expected_ranges(specs, "bleu")[0].values()}) - 1


def test_head_to_head_marks(app, client, scored):
    from enface.services import leaderboard as lb
    from enface.services.rankings import head_to_head, mark

    assert [mark(p, True) for p in (0.0009, 0.001, 0.009, 0.049, 0.05, 0.3)] == ["***", "**", "**", "*", "", ""]
    assert mark(0.0001, False) == "" and mark(None, True) == ""

    ts, _ids, specs = scored
    page = client.get(f"/leaderboard/{ts}/head-to-head?metric=bleu")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="head-to-head" data-metric="bleu"' in html
    _expected, sig = _expected_ranges(specs, "bleu")
    with app.test_request_context():
        matrix = head_to_head(lb.get_leaderboard(ts) | {"scope": "all"}, "bleu")
    names = [s["name"] for s in matrix["systems"]]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            cell, pair = matrix["cells"][i][j], sig.pair(a, b)
            assert cell["p_value"] == pytest.approx(pair.p_value)
            assert cell["mark"] == mark(pair.p_value, pair.significant)
            assert cell["result"] == ("win" if pair.winner == a else "loss" if pair.winner == b else "")
    identical = matrix["cells"][names.index("literal-base")][names.index("quill-literal")]
    assert identical["p_value"] == 1.0 and identical["mark"] == "" and identical["delta"] == 0
    assert sum(c["mark"] != "" for row in matrix["cells"] for c in row if c) >= 2
    assert '<span class="mark">***</span>' in html or '<span class="mark">**</span>' in html
    # no human ranking released: the human matrix and table are not there
    assert client.get(f"/leaderboard/{ts}/head-to-head?metric=human").status_code == 404
    assert client.get(f"/leaderboard/{ts}/head-to-head?metric=nope").status_code == 404
    assert client.get(f"/leaderboard/{ts}/table-human.tex").status_code == 404


def test_automatic_table_downloads(client, scored):
    ts, _ids, _specs = scored
    tex = client.get(f"/leaderboard/{ts}/table-automatic.tex")
    assert tex.status_code == 200 and "attachment" in tex.headers["Content-Disposition"]
    text = tex.get_data(as_text=True)
    assert "\\toprule" in text and "\\bottomrule" in text and "\\textsubscript{1}" in text
    assert "\\textit{Baselines}" in text and "literal-base" in text
    # the caption's language pair: pdflatex without a Unicode set-up compiles it (ASCII only)
    assert text.isascii() and "$\\rightarrow$" in text and "→" not in text
    frame = pandas.read_csv(io.StringIO(client.get(f"/leaderboard/{ts}/table-automatic.csv").get_data(as_text=True)))
    assert list(frame["system"])[0] == "literal-base"
    for col in ("BLEU", "chrF", "TER", "d-BLEU"):
        assert frame[col].dtype.kind == "f", col
    assert frame["COMET"].isna().all()
    assert client.get(f"/leaderboard/{ts}/table-other.tex").status_code == 404
    assert client.get(f"/leaderboard/{ts}/table-automatic.pdf").status_code == 404


def test_a_new_score_shows_up_and_the_clusters_follow(app, client, scored):
    """The cache: a score written (scores_version raised) is on the next page, clusters recomputed for it."""
    from enface.extensions import db
    from enface.models import AutoRanking, ScoreRow
    from enface.services.testsets import bump_scores_version

    ts, ids, _specs = scored
    assert "33.3333" not in client.get(f"/leaderboard/{ts}.csv").get_data(as_text=True)
    with app.app_context(), db.write():
        row = db.session.query(ScoreRow).filter_by(submission_id=ids["inkstone-llm"], metric="chrf",
                                                   scope="corpus").one()
        row.value = 33.3333
        bump_scores_version(db.session, ts)
    assert "33.3333" in client.get(f"/leaderboard/{ts}.csv").get_data(as_text=True)
    with app.app_context():
        from enface.models import TestSet

        assert db.session.get(AutoRanking, ts).scores_version == db.session.get(TestSet, ts).scores_version


def test_team_view_before_release_has_no_clusters(client, world):
    ts = world.testset()
    _u, token = world.team_with_token("cap@a.org", "A")
    upload(client, ts, token)
    from tests.support.testkit import login

    login(client, "cap@a.org")
    html = client.get(f"/leaderboard/{ts}").get_data(as_text=True)
    assert 'class="rr"' not in html and "auto-clusters" not in html and "Head-to-head" not in html
    assert client.get(f"/leaderboard/{ts}/head-to-head").status_code == 404
    assert client.get(f"/leaderboard/{ts}/table-automatic.csv").status_code == 404


def test_a_visitor_refused_an_unreleased_board_sets_nothing_off(app, client, world):
    """A 404 writes nothing: the clusters are computed (and stored) only for someone who may see the board."""
    from enface.extensions import db
    from enface.models import AutoRanking

    ts = world.testset()
    _u, token = world.team_with_token("cap@a.org", "A")
    upload(client, ts, token)
    with app.app_context():
        db.session.query(AutoRanking).delete()
        db.session.commit()
    for url in (f"/api/v1/testsets/{ts}/leaderboard", f"/leaderboard/{ts}", f"/leaderboard/{ts}.csv"):
        assert client.get(url).status_code == 404, url
    with app.app_context():
        assert db.session.query(AutoRanking).count() == 0
    assert client.get(f"/api/v1/testsets/{ts}/leaderboard",
                      headers={"Authorization": f"Bearer {token}"}).status_code == 200
    with app.app_context():
        assert db.session.query(AutoRanking).count() == 1     # the team may see its rows: computed for them


def test_a_registered_metric_flows_through_the_leaderboard(client, world):
    """A new metric is one registry entry: scored by the job, a leaderboard column, clusters, the CSV."""
    with toy_metric() as key:
        ts = world.testset(quota_per_day=None, quota_total=None)
        for name, folder in (("a", "strong-mt"), ("b", "weak-mt")):
            _u, token = world.team_with_token(f"cap@{name}.org", name)
            upload(client, ts, token, system_name=f"sys-{name}", files=system_files(folder))
        world.settings(ts, released=True)
        body = client.get(f"/api/v1/testsets/{ts}/leaderboard").get_json()
        assert [c["key"] for c in body["columns"]][-1] == key and body["columns"][-1]["name"] == "ToyLen"
        values = {r["system"]: r["scores"][key]["score"] for r in body["rows"]}
        assert all(isinstance(v, float) and 0 < v <= 100 for v in values.values())
        html = client.get(f"/leaderboard/{ts}").get_data(as_text=True)
        assert "ToyLen↑" in html and 'data-metric="toylen"' in html
        frame = pandas.read_csv(io.StringIO(client.get(f"/leaderboard/{ts}.csv").get_data(as_text=True)))
        assert frame["ToyLen"].dtype.kind == "f"
        assert client.get(f"/leaderboard/{ts}/head-to-head?metric={key}").status_code == 200


@pytest.mark.parametrize("test", ["wilcoxon", "ar"])
def test_official_human_ranking_across_groups(app, tmp_path, test):
    """All systems ranked together under the campaign's paired test; baselines marked; tables and matrix."""
    from enface.campaigns import services as svc

    world = build_world(app, tmp_path, systems={**SYSTEMS, "lynx-mt": ("Cedar", "primary", True)})
    cid = new_campaign(world, systems=["zephyr-mt", "lynx-mt", "quokka-nmt", "walrus-baseline"], redundancy=1,
                       significance_test=test)
    annotate_all(world, cid, errors_in=["zephyr-mt"])
    with world.ctx():
        snap = svc.release(svc.get_campaign(cid))
    ranking = snap["ranking"]
    assert ranking["test"] == test and ranking["unit"] == "segment"
    rows = {r["system"]: r for r in ranking["rows"]}
    assert set(rows) == {"zephyr-mt", "lynx-mt", "quokka-nmt", "walrus-baseline"}   # every group, one ranking
    assert rows["walrus-baseline"]["kind"] == "baseline" and rows["quokka-nmt"]["kind"] == "primary-unconstrained"
    assert [(r["rank_range"], r["cluster"]) for r in ranking["rows"]][-1] == ("4", 2)
    assert rows["zephyr-mt"]["wins"] == 0 and rows["zephyr-mt"]["losses"] == 3
    assert {r["rank_range"] for s, r in rows.items() if s != "zephyr-mt"} == {"1–3"}

    org = world.client("org@example.org")
    ts = world.testset_id
    html = org.get(f"/leaderboard/{ts}").get_data(as_text=True)
    assert 'id="official-ranking"' in html and html.count("cluster-break") >= 1
    name = {"wilcoxon": "Wilcoxon signed-rank", "ar": "approximate randomisation"}[test]
    assert name in html
    tex = org.get(f"/leaderboard/{ts}/table-human.tex").get_data(as_text=True)
    assert tex.count("\\midrule") == 2 and "\\textit{walrus-baseline}" in tex
    assert tex.isascii() and "$\\rightarrow$" in tex
    frame = pandas.read_csv(io.StringIO(org.get(f"/leaderboard/{ts}/table-human.csv").get_data(as_text=True)))
    assert list(frame["system"])[-1] == "zephyr-mt" and frame["MQM"].dtype.kind == "f"
    h2h = org.get(f"/leaderboard/{ts}/head-to-head?metric=human").get_data(as_text=True)
    assert h2h.count('class="num win"') == 3 and h2h.count('class="num loss"') == 3


def test_a_snapshot_released_before_the_cross_group_ranking_still_shows(app, tmp_path):
    """A campaign released with per-group rankings ("groups", no "ranking") keeps them on the leaderboard."""
    from enface.campaigns import services as svc
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    world = build_world(app, tmp_path)
    cid = new_campaign(world, redundancy=1)
    annotate_all(world, cid, errors_in=["zephyr-mt"])
    with world.ctx():
        snap = svc.release(svc.get_campaign(cid))
        legacy = {k: v for k, v in snap.items() if k != "ranking"}
        legacy["groups"] = [{"key": r["kind"], "title": r["kind_title"], "unit": "segment",
                             "rows": [{**r, "rank": 1, "cluster": 1, "rank_range": "1"}]} for r in snap["ranking"]["rows"]]
        with db.write():
            db.session.get(Campaign, cid).results = legacy
            from enface.services.testsets import bump_scores_version

            bump_scores_version(db.session, world.testset_id)
    org = world.client("org@example.org")
    html = org.get(f"/leaderboard/{world.testset_id}").get_data(as_text=True)
    assert "Release the campaign again" not in html and "release the campaign again" in html
    assert '<table class="data ranking">' in html and "Ordered by the official human ranking" in html
    assert org.get(f"/leaderboard/{world.testset_id}/table-human.tex").status_code == 404
    assert org.get(f"/campaigns/{cid}/results").status_code == 200
