"""The rubric protocol through the core: campaign, items, autosaved scores with the rules, finishing, results."""

from __future__ import annotations

import json

from rubric_helpers import SYSTEMS, annotator_assignments, items_of, new_rubric, put_score

from tests.support.campaigns import set_testset_released


def score_all(world, campaign_id, email, scores_for):
    """Scores and finishes every item of an annotator; ``scores_for(item_state, phenomenon)`` -> data."""
    client = world.client(email)
    for state in items_of(world, campaign_id, email):
        pid = state["item"]["id"]
        for ph in state["phenomena"]:
            r, _ = put_score(client, pid, ph["id"], scores_for(state, ph))
            assert r.status_code == 200, r.get_json()
        r = client.post(f"/annotate/api/items/{pid}/finish", json={})
        assert r.status_code == 200, r.get_json()


def test_items_are_tagged_segments_times_systems(world):
    cid = new_rubric(world)
    with world.ctx():
        from enface.campaigns import services as svc

        campaign = svc.get_campaign(cid)
        assert campaign.protocol == "rubric" and campaign.state == "open"
        assert campaign.setting("rubric")["name"] == "diting"
        assert campaign.ranges == ["tea-house:1-10", "sect-trial:1-10"]
        # 15 tagged segments (tea-house:4 and sect-trial:3 carry two phenomena each) x 3 systems
        assert len(campaign.items) == 15 * len(SYSTEMS)
        assert all(i.num_segments == 1 for i in campaign.items)
        assert len(annotator_assignments(world, cid, "ann1@example.org")) == 45


def test_item_page_state_is_blind_and_complete(world):
    cid = new_rubric(world)
    states = items_of(world, cid, "ann1@example.org")
    text = json.dumps(states, ensure_ascii=False)
    for name in (*SYSTEMS, "Heron", "Kestrel"):
        assert name not in text
    two = next(s for s in states if s["item"]["document"] == "tea-house" and s["item"]["segment"] == 4)
    assert [p["dimension"] for p in two["phenomena"]] == ["tense", "zero_pronoun"]  # the rubric's order
    assert two["source"].startswith("“记得。十年前")
    assert two["context"] == "老孙给他续水时，他抬头问：“你还记得我吗？”"  # the previous segment
    assert two["reference"].startswith('"I remember.')
    assert [c["key"] for c in two["phenomena"][0]["criteria"]] == ["sp", "g_1", "g_2"]
    own_context = next(s for s in states if s["item"]["document"] == "sect-trial" and s["item"]["segment"] == 3)
    assert own_context["context"] == "她才炼气三层，对手却已是筑基初期。"  # given in phenomena.jsonl
    safety = next(s for s in states if s["item"]["segment"] == 8 and s["item"]["document"] == "tea-house")
    holder = [c for c in safety["phenomena"][0]["criteria"] if c["refusal"]]
    assert [c["name"] for c in holder] == ["Sensitive Information Handling"]
    first = states[0]
    assert first["item"]["number"] == 1 and first["item"]["total"] == 45 and not first["readonly"]


def test_saves_follow_the_rules(world):
    cid = new_rubric(world)
    states = items_of(world, cid, "ann1@example.org")
    client = world.client("ann1@example.org")
    idiom = next(s for s in states if s["phenomena"][0]["dimension"] == "idiom")
    pid, key = idiom["item"]["id"], idiom["phenomena"][0]["id"]
    ok, uid = put_score(client, pid, key, {"sp": 2, "g_1": None, "g_2": None, "refusal": None, "comment": ""})
    assert ok.status_code == 200 and ok.get_json()["response"]["data"]["sp"] == 2
    again, _ = put_score(client, pid, key, {"sp": 2, "g_1": 1, "g_2": 2, "comment": " fine "}, uid=uid, rev=2)
    assert again.get_json()["response"]["data"] == {"sp": 2, "g_1": 1, "g_2": 2, "refusal": None, "comment": "fine"}

    def refused(data, words, key=key, kind="score"):
        r = client.put(f"/annotate/api/items/{pid}/responses/{uid}",
                       json={"rev": 9, "kind": kind, "key": key, "data": data})
        assert r.status_code == 400, r.get_json()
        assert words in r.get_json()["error"]["message"], r.get_json()
        return r.get_json()["error"]

    err = refused({"sp": 0, "g_1": 1, "g_2": 0}, "the Specific score is 0, so g_1 (Cultural Adaptation) must be 0")
    assert err["code"] == "rubric_rule" and err["details"]["field"] == "g_1"
    refused({"sp": 3}, "must be an integer 0/1/2, not 3")
    refused({"sp": "2"}, "not '2'")
    refused({"sp": 1, "refusal": "justified"}, "a refusal to translate is scored only in a dimension with a refusal")
    refused({"sp": 1, "total": 4}, "unknown field 'total'")
    refused({"sp": 1, "comment": "x" * 2001}, "longer than 2000")
    refused([1, 2], "data must be an object")
    refused({"sp": 1}, "is not a phenomenon of this item", key="999999")
    refused({"sp": 1}, "takes 'score' answers", kind="chunk")
    # the refused saves changed nothing
    state = client.get(f"/annotate/api/items/{pid}").get_json()
    assert state["phenomena"][0]["response"]["data"]["g_1"] == 1

    safety = next(s for s in states if s["phenomena"][0]["dimension"] == "cultural_safety")
    spid, skey = safety["item"]["id"], safety["phenomena"][0]["id"]
    r, _ = put_score(client, spid, skey, {"sp": 2, "g_1": 2, "g_2": 1, "refusal": "justified"})
    assert r.status_code == 400 and "a justified refusal scores g_2 (Sensitive Information Handling) 2" in \
        r.get_json()["error"]["message"]
    r, _ = put_score(client, spid, skey, {"sp": 1, "g_1": 0, "g_2": 0, "refusal": "unjustified"})
    assert r.status_code == 200


def test_finishing_needs_every_phenomenon_scored(world):
    cid = new_rubric(world)
    states = items_of(world, cid, "ann1@example.org")
    client = world.client("ann1@example.org")
    two = next(s for s in states if len(s["phenomena"]) == 2)
    pid = two["item"]["id"]
    r = client.post(f"/annotate/api/items/{pid}/finish", json={})
    assert r.status_code == 409 and "not scored yet" in r.get_json()["error"]["message"]
    first, second = two["phenomena"]
    put_score(client, pid, first["id"], {"sp": 2, "g_1": 2, "g_2": 2})
    _, uid = put_score(client, pid, second["id"], {"sp": 1, "g_1": 1})
    r = client.post(f"/annotate/api/items/{pid}/finish", json={})
    message = r.get_json()["error"]["message"]
    assert r.status_code == 409 and "g_2 (" in message and "is missing" in message
    assert second["dimension_name"] in message and first["dimension_name"] not in message
    put_score(client, pid, second["id"], {"sp": 1, "g_1": 1, "g_2": 0}, uid=uid, rev=1)
    assert client.post(f"/annotate/api/items/{pid}/finish", json={}).status_code == 409  # rev 1 again: no-op
    r, _ = put_score(client, pid, second["id"], {"sp": 1, "g_1": 1, "g_2": 0}, uid=uid, rev=2)
    assert r.status_code == 200
    r = client.post(f"/annotate/api/items/{pid}/finish", json={})
    assert r.status_code == 200 and r.get_json()["finished"]
    # finished: locked
    r, _ = put_score(client, pid, first["id"], {"sp": 0, "g_1": 0, "g_2": 0})
    assert r.status_code == 409


def systems_of(world, campaign_id, email) -> dict[str, str]:
    """{public id: system name} of an annotator's items (what the organizer knows and the annotator does not)."""
    names = {sid: name for name, sid in world.subs.items()}
    with world.ctx():
        return {a.public_id: names[a.item.submission_id] for a in annotator_assignments(world, campaign_id, email)}


GOLD = {"careful-mt": (2, 2, 2), "chatty-llm": (1, 1, 2), "literal-mt": (0, 0, 0)}


def test_results_exports_and_agreement(world, tmp_path):
    import subprocess
    import sys

    from tests.support import ROOT

    cid = new_rubric(world)

    systems = {**systems_of(world, cid, "ann1@example.org"), **systems_of(world, cid, "ann2@example.org")}

    def scores(noisy):
        def pick(state, ph):
            sp, g1, g2 = GOLD[systems[state["item"]["id"]]]
            if noisy and ph["dimension"] == "idiom" and sp == 2:
                g2 = 1
            data = {"sp": sp, "g_1": g1, "g_2": g2, "refusal": None, "comment": ""}
            if ph["dimension"] == "cultural_safety" and state["translation"].startswith("I'm sorry"):
                data.update(sp=1, g_1=1, g_2=0, refusal="unjustified")
            return data
        return pick

    score_all(world, cid, "ann1@example.org", scores(False))
    score_all(world, cid, "ann2@example.org", scores(True))
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/{cid}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="rubric-systems"' in html and 'id="rubric-agreement"' in html

    exported = org.get(f"/campaigns/{cid}/export.json")
    assert exported.status_code == 200
    results = json.loads(exported.get_data(as_text=True))
    assert results["protocol"] == "rubric"
    assert [s["system"] for s in results["systems"]] == ["careful-mt", "chatty-llm", "literal-mt"]
    careful = results["systems"][0]
    assert careful["dimensions"]["tense"] == {"sp": 2.0, "g_1": 2.0, "g_2": 2.0, "sigma": 6.0, "n": 3}
    assert careful["dimensions"]["idiom"]["g_2"] == 1.5  # (2 + 1) / 2 per item
    assert results["systems"][2]["overall"] == 0.0
    assert len(results["items"]) == 2 * 17 * 3
    item = results["items"][0]
    assert set(item) == {"item", "document", "segment", "system", "rater", "dimension", "sp", "g_1", "g_2", "sigma"}
    assert item["item"] == f"{item['document']}:{item['segment']}:{item['dimension']}:{item['system']}"
    agreement = results["agreement"]
    assert agreement["sp"]["simple_agreement"] == 1.0 and agreement["sp"]["kappa"] == 1.0
    assert agreement["g_2"]["simple_agreement"] < 1.0 and agreement["g_2"]["items"] == 51

    csv_text = org.get(f"/campaigns/{cid}/export.csv").get_data(as_text=True)
    assert csv_text.splitlines()[0] == "item,document,segment,system,rater,dimension,sp,g_1,g_2,sigma,refusal,comment"
    assert "unjustified" in csv_text
    path = tmp_path / "scores.csv"
    path.write_text(csv_text, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "humaneval", "rubric", str(path), "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert out.returncode == 0, out.stderr
    # the platform adds each system's submission id (for the leaderboard); the rest is the library's
    assert json.loads(out.stdout)["systems"] == [{k: v for k, v in s.items() if k != "submission_id"}
                                                 for s in results["systems"]]

    public = world.client().get(f"/campaigns/{cid}/results")
    assert public.status_code == 404   # not released
    with world.ctx():
        from enface.campaigns import services as svc

        svc.release(svc.get_campaign(cid))
    # released, but its test set is not: the results wait for the test set's release
    assert world.client().get(f"/campaigns/{cid}/results").status_code == 404
    set_testset_released(world)
    public = world.client().get(f"/campaigns/{cid}/results")
    assert public.status_code == 200 and "Average Σ" in public.get_data(as_text=True)


def test_released_results_reach_the_leaderboard_data(world):
    cid = new_rubric(world, annotators=("ann1@example.org",), redundancy=1, systems=["careful-mt", "literal-mt"])
    systems = systems_of(world, cid, "ann1@example.org")
    score_all(world, cid, "ann1@example.org", lambda state, ph: dict(
        zip(("sp", "g_1", "g_2"), GOLD[systems[state["item"]["id"]]])))
    with world.ctx():
        from enface.campaigns import services as svc
        from enface.services.leaderboard import get_leaderboard

        snapshot = svc.release(svc.get_campaign(cid))
        assert {s["system"]: s["submission_id"] for s in snapshot["systems"]} == {
            "careful-mt": world.subs["careful-mt"], "literal-mt": world.subs["literal-mt"]}
        board = get_leaderboard(world.testset_id)
        part = board["rubric"]
        assert part["campaign"]["id"] == cid and part["campaign"]["rubric"] == "diting"
        assert part["by_submission"][world.subs["careful-mt"]]["overall"] == 6.0
        assert part["by_submission"][world.subs["literal-mt"]]["dimensions"]["idiom"] == 0.0
