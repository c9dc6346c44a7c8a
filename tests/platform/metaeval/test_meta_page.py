"""The meta-evaluation page of a test set: numbers against scipy, rank flips first, access before/after release."""

from __future__ import annotations

import re

import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr

from tests.support.campaigns import (
    SYSTEMS,
    assignments_of,
    build_world,
    finish,
    new_campaign,
    put_mark,
    read_all,
)

WORLD_SYSTEMS = {**SYSTEMS, "lynx-mt": ("Cedar", "primary", True)}
IN_CAMPAIGN = ["zephyr-mt", "lynx-mt", "quokka-nmt", "walrus-baseline"]
# by BLEU zephyr-mt leads; the annotators give it a Major error in every segment (it is last by MQM)
BLEU = {"zephyr-mt": 40.0, "lynx-mt": 30.0, "quokka-nmt": 35.0, "quokka-nmt-c": 20.0, "walrus-baseline": 10.0}
TER = {"zephyr-mt": 50.0, "lynx-mt": 40.0, "quokka-nmt": 45.0, "quokka-nmt-c": 60.0, "walrus-baseline": 70.0}
# errors per system: {segment index in the item: severity}
ERRORS = {"zephyr-mt": {k: "Major" for k in range(4)}, "walrus-baseline": {0: "Minor", 1: "Minor"},
          "quokka-nmt": {2: "Minor"}, "lynx-mt": {}}
# a metric storing segment scores (7 segments: river.1 then orchard), as COMET or an LLM judge would
SEGMENT_METRIC = {"zephyr-mt": [0.2, 0.3, 0.1, 0.4, 0.5, 0.6, 0.5], "lynx-mt": [0.9, 0.8, 0.85, 0.9, 0.7, 0.8, 0.9],
                  "quokka-nmt": [0.7, 0.75, 0.4, 0.8, 0.6, 0.7, 0.8],
                  "walrus-baseline": [0.5, 0.4, 0.7, 0.6, 0.8, 0.7, 0.6], "quokka-nmt-c": [0.5] * 7}


def _scores(world) -> None:
    from enface.extensions import db
    from enface.models import ScoreRow

    with world.ctx(), db.write():
        for system, sid in world.subs.items():
            db.session.add(ScoreRow(submission_id=sid, metric="bleu", scope="corpus", name="BLEU",
                                    value=BLEU[system], higher_is_better=True, signature="nrefs:2|test"))
            db.session.add(ScoreRow(submission_id=sid, metric="ter", scope="corpus", name="TER",
                                    value=TER[system], higher_is_better=False, signature="nrefs:2|test"))
            seg = SEGMENT_METRIC[system]
            db.session.add(ScoreRow(submission_id=sid, metric="judge", scope="corpus", name="Judge",
                                    value=sum(seg) / len(seg), higher_is_better=True))
            db.session.add(ScoreRow(submission_id=sid, metric="judge", scope="segment", name="Judge", value=None,
                                    values=seg, higher_is_better=True))


def _annotate(world) -> int:
    cid = new_campaign(world, systems=IN_CAMPAIGN, redundancy=1)
    names = {sid: name for name, sid in world.subs.items()}
    for email in ("ann1@example.org", "ann2@example.org"):
        c = world.client(email)
        for a in assignments_of(world, cid, email):
            offset = 0 if a["document"] == "river.1" else 4
            for seg in range(a["segments"]):
                severity = ERRORS[names[a["submission_id"]]].get(offset + seg)
                if severity:
                    r, _ = put_mark(c, a["public_id"], {"seg": seg, "start": 0, "end": 3, "category": "Accuracy",
                                                        "subcategory": "Mistranslation", "severity": severity})
                    assert r.status_code == 200, r.get_json()
            assert read_all(c, a["public_id"], a["segments"]).status_code == 200
            assert finish(c, a["public_id"]).status_code == 200
    return cid


def _release_testset(world, released=True) -> None:
    from enface.extensions import db
    from enface.models import TestSet
    from enface.services.testsets import note_leaderboard_change

    with world.ctx(), db.write():
        ts = db.session.get(TestSet, world.testset_id)
        ts.released = released
        ts.scores_version = TestSet.scores_version + 1
        note_leaderboard_change(db.session, ts.id)   # this process's leaderboard reads it again


@pytest.fixture
def meta_world(make_app, tmp_path):
    app = make_app(META_BOOTSTRAP_SAMPLES=200)
    world = build_world(app, tmp_path, systems=WORLD_SYSTEMS)
    _scores(world)
    return world


def test_meta_page_numbers_flips_and_access(meta_world):
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of

    world = meta_world
    ts = world.testset_id
    org, public, team = world.client("org@example.org"), world.client(), world.client("alder-ann@example.org")
    url = f"/leaderboard/{ts}/meta"

    # not released: organizers only; nothing released to compare with yet
    assert public.get(url).status_code == 404 and public.get(url + ".json").status_code == 404
    assert team.get(url).status_code == 404
    html = org.get(url).get_data(as_text=True)
    assert 'id="meta-empty"' in html and "Not released yet" in html
    assert 'id="meta-link"' in org.get(f"/leaderboard/{ts}").get_data(as_text=True)

    cid = _annotate(world)
    assert 'id="meta-empty"' in org.get(url).get_data(as_text=True)     # annotated, not released: still nothing
    with world.ctx():
        svc.release(svc.get_campaign(cid))
        [source] = protocol_of("mqm").meta_sources(svc.get_campaign(cid))
    names = {str(sid): name for name, sid in world.subs.items()}
    human = {names[k]: v for k, v in source.systems.items()}
    assert set(human) == set(IN_CAMPAIGN) and source.higher_is_better
    assert max(human, key=human.get) == "lynx-mt" and min(human, key=human.get) == "zephyr-mt"

    body = org.get(url + ".json").get_json()
    [src] = body["sources"]
    assert src["campaign"]["id"] == cid and src["kind"] == "mqm" and src["unmatched"]["metrics_only"] == ["quokka-nmt-c"]
    systems = src["metrics"]["bleu"]["systems"]
    assert sorted(systems) == sorted(IN_CAMPAIGN)
    h = [human[s] for s in systems]
    for key, values, sign in (("bleu", BLEU, 1.0), ("ter", TER, -1.0)):
        m = [sign * values[s] for s in systems]
        block = src["metrics"][key]
        assert block["pearson"]["value"] == pytest.approx(pearsonr(h, m).statistic, abs=1e-12)
        assert block["spearman"]["value"] == pytest.approx(spearmanr(h, m).statistic, abs=1e-12)
        assert block["kendall"]["value"] == pytest.approx(kendalltau(h, m).statistic, abs=1e-12)
        assert block["kendall"]["variant"] == "tau-b" and block["bootstrap"]["n_boot"] == 200
        for stat in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
            low, high = block[stat]["ci"]
            assert low <= block[stat]["value"] <= high
    # BLEU puts zephyr-mt first (humans: last): the largest flip, listed first
    flips = {f["metric"]: f for f in src["flips"]}
    assert flips["bleu"]["systems"][0]["system"] == "zephyr-mt"
    assert flips["bleu"]["systems"][0]["human_rank"] == 4 and flips["bleu"]["systems"][0]["metric_rank"] == 1
    # segment level: the stored segment scores against the MQM segment scores, pooled
    items = src["item_level"]["metrics"]["judge"]
    seg_keys = [("river.1", p) for p in range(4)] + [("orchard", p) for p in range(3)]
    pairs = [(v, SEGMENT_METRIC[names[sid]][seg_keys.index(k)]) for sid, segs in source.items.items()
             for k, v in segs.items()]
    assert items["available"] and items["n"] == len(pairs) == 28
    hs, ms = zip(*pairs, strict=True)
    assert items["spearman"]["value"] == pytest.approx(spearmanr(hs, ms).statistic, abs=1e-12)
    assert items["pearson"]["value"] == pytest.approx(pearsonr(hs, ms).statistic, abs=1e-12)
    assert items["kendall"]["value"] == pytest.approx(kendalltau(hs, ms).statistic, abs=1e-12)
    assert src["item_level"]["metrics"]["bleu"]["available"] is False       # BLEU stores no segment scores

    html = org.get(url).get_data(as_text=True)
    assert "Rank flips" in html and html.index("Rank flips") < html.index("System level") < html.index("Segment level")
    assert html.count("<svg") == 3 and "meta-scatter" in html          # BLEU, TER, Judge
    assert "Kendall τ-b" in html and 'id="meta-definitions"' in html and "Soft pairwise accuracy" in html
    # the test set is not released: the public still sees nothing
    assert public.get(url).status_code == 404

    _release_testset(world)
    assert public.get(url).status_code == 200
    pub = public.get(url + ".json").get_json()
    assert pub["sources"][0]["metrics"]["bleu"]["pearson"] == body["sources"][0]["metrics"]["bleu"]["pearson"]
    assert "svg" not in pub["sources"][0]["metrics"]["bleu"]
    assert 'id="meta-link"' in public.get(f"/leaderboard/{ts}").get_data(as_text=True)

    # a withdrawn release leaves the page (the cache follows the released campaigns)
    with world.ctx():
        svc.withdraw_release(svc.get_campaign(cid))
    assert public.get(url + ".json").get_json()["sources"] == []


def test_meta_page_unknown_testset_is_404(meta_world):
    org = meta_world.client("org@example.org")
    assert org.get("/leaderboard/9999/meta").status_code == 404
    assert re.search(r"not found", org.get("/leaderboard/9999/meta").get_data(as_text=True), re.I)


def test_a_campaign_its_protocol_cannot_read_is_named_and_the_page_still_shows(meta_world, monkeypatch):
    from enface.campaigns import services as svc
    from enface.campaigns.protocol import protocol_of
    from enface.services import ServiceError

    world = meta_world
    cid = _annotate(world)
    with world.ctx():
        svc.release(svc.get_campaign(cid))

    def refuse(campaign):
        raise ServiceError("two_versions", "a reader study compares exactly two versions", 409)

    monkeypatch.setattr(protocol_of("mqm"), "meta_sources", refuse)
    org = world.client("org@example.org")
    r = org.get(f"/leaderboard/{world.testset_id}/meta")
    assert r.status_code == 200 and "Not evaluated: a reader study compares exactly two versions" in r.get_data(
        as_text=True)
    body = org.get(f"/leaderboard/{world.testset_id}/meta.json").get_json()
    assert body["sources"] == [{"label": "Tales MQM", "campaign": {"id": cid, "name": "Tales MQM", "protocol": "mqm"},
                                "error": "a reader study compares exactly two versions"}]


def test_a_metric_provider_adds_an_llm_judge_to_the_page(meta_world):
    """A feature (LLM judges) registers its scores; they are meta-evaluated like a stored metric."""
    from enface.campaigns import services as svc
    from enface.metaeval import service

    from scoring.meta import MetricScores

    world = meta_world
    cid = _annotate(world)
    with world.ctx():
        svc.release(svc.get_campaign(cid))
    judged = {"zephyr-mt": 1.0, "lynx-mt": 5.5, "quokka-nmt": 4.0, "walrus-baseline": 3.0}

    def provider(testset):
        assert testset.id == world.testset_id
        return {"judge:1": MetricScores("judge:1", {str(world.subs[s]): v for s, v in judged.items()}, True,
                                        "LLM judge (demo)", {str(world.subs["lynx-mt"]): {("river.1", 0): 5.0}})}

    service.add_metric_provider(provider)
    try:
        with world.ctx():
            service.clear_cache()
        body = world.client("org@example.org").get(f"/leaderboard/{world.testset_id}/meta.json").get_json()
    finally:
        service._metric_providers.remove(provider)
    block = body["sources"][0]["metrics"]["judge:1"]
    assert block["name"] == "LLM judge (demo)" and block["pairwise_accuracy"]["value"] == 1.0
    assert block["kendall"]["value"] == pytest.approx(1.0) and block["rank_flips"]["systems"] == []
    assert any(m["key"] == "judge:1" for m in body["metrics"])
