"""ESA^AI through the web: the page's suggestions, provenance recorded through the core's API (and what it
refuses), the budget filter at the start, the organizer's suggestions page (file and LLM sources), the
dashboard and results."""

from __future__ import annotations

import io
import json
import uuid

from suggest_support import ORCHARD, answer, rule

from humaneval.judge.scripted import ScriptedServer
from tests.support.campaigns import assignments_of, new_campaign, read_all

ANN = "ann1@example.org"
KRIEG = ORCHARD[0].index("Krieg")


def esa(world, *, start=True, systems=("zephyr-mt",), **kw) -> int:
    return new_campaign(world, protocol="esa", strategy="document", redundancy=1, start=start, annotators=(ANN,),
                        systems=list(systems), ranges="orchard", settings_override={"attention_share": 0.0}, **kw)


def lines(*objs) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs).encode()


FILE = lines({"item": "orchard:1", "system": "zephyr-mt", "score": 40,
              "spans": [{"text": "Krieg", "severity": "major"}, {"start": 0, "end": 5, "severity": "minor"}]},
             {"item": "orchard:2", "system": "zephyr-mt", "spans": [], "score": 99})


def upload(client, cid, content: bytes, threshold=""):
    return client.post(f"/protocols/esa/campaigns/{cid}/suggestions/file",
                       data={"file": (io.BytesIO(content), "spans.jsonl"), "skip_threshold": threshold},
                       content_type="multipart/form-data")


def put(client, public_id, seg, spans, score=None, uid=None, rev=1):
    uid = uid or str(uuid.uuid4())
    r = client.put(f"/annotate/api/items/{public_id}/responses/{uid}",
                   json={"rev": rev, "kind": "segment", "key": str(seg), "data": {"score": score, "spans": spans}})
    return r, uid


def test_suggestions_reach_the_page_and_provenance_is_recorded_and_checked(world):
    cid = esa(world, start=False)
    org = world.client("org@example.org")
    r = upload(org, cid, FILE)
    assert r.status_code == 302, r.get_data(as_text=True)[:500]
    from enface.campaigns import services as svc

    with world.ctx():
        svc.start_campaign(svc.get_campaign(cid))
    c = world.client(ANN)
    a = assignments_of(world, cid, ANN)[0]
    state = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
    krieg = {"start": KRIEG, "end": KRIEG + 4, "severity": "major"}
    first = {"start": 0, "end": 4, "severity": "minor"}
    assert state["suggestions"] == {"0": [krieg, first]}          # segment 2 was found flawless: nothing shown
    assert read_all(c, a["public_id"], a["segments"]).status_code == 200
    spans = [{**first, "provenance": "kept", "suggestion": first},
             {**krieg, "severity": "minor", "provenance": "edited", "suggestion": krieg},
             {"start": 6, "end": 14, "severity": "major", "provenance": "human", "suggestion": None}]
    r, uid = put(c, a["public_id"], 0, spans, score=35)
    assert r.status_code == 200, r.get_json()
    # a span may not pass itself off as a suggestion, nor a changed one as kept
    forged = {"start": 20, "end": 24, "severity": "minor"}
    for bad, words in (([{**forged, "provenance": "kept", "suggestion": forged}], "no such suggestion"),
                       ([{**first, "severity": "major", "provenance": "kept", "suggestion": first}], "a kept suggestion"),
                       ([{**first, "provenance": "deleted", "suggestion": first}], None)):
        r, _ = put(c, a["public_id"], 1 if words == "no such suggestion" else 0, bad, uid=None)
        if words is None:
            assert r.status_code == 200                           # a deleted suggestion is recorded as such
        else:
            assert r.status_code == 400 and words in r.get_json()["error"]["message"], r.get_json()
    saved = c.get(f"/annotate/api/items/{a['public_id']}").get_json()["answers"]["0"]["data"]["spans"]
    assert [s["provenance"] for s in saved] == ["deleted"]        # (the last save of segment 1 wins)
    # reload: the page's answers carry the provenance as saved
    r, _ = put(c, a["public_id"], 0, spans, score=35, uid=uid, rev=2)
    assert r.status_code == 200
    got = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
    assert [s["provenance"] for s in got["answers"]["0"]["data"]["spans"]] == ["kept", "edited", "human"]


def test_the_budget_filter_leaves_flawless_items_out_and_the_dashboard_says_so(world):
    cid = esa(world, start=False, systems=("zephyr-mt", "walrus-baseline"))
    org = world.client("org@example.org")
    flawless = lines(*[{"item": f"orchard:{n}", "system": "zephyr-mt", "spans": [], "score": 97} for n in (1, 2, 3)])
    assert upload(org, cid, flawless, threshold="95").status_code == 302
    page = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "Budget saved" in page and "to be left out" in page
    from enface.campaigns import services as svc

    with world.ctx():
        svc.start_campaign(svc.get_campaign(cid))
        items = svc.get_campaign(cid).items
        assert len(items) == 1 and items[0].versions[0].version.submission_id == world.subs["walrus-baseline"]
    page = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="ai-budget"' in page and "<strong>3</strong> of 6 segments" in page and "(50 %)" in page
    suggestions = org.get(f"/protocols/esa/campaigns/{cid}/suggestions").get_data(as_text=True)
    assert "1</strong> of 2 items" in suggestions


def test_a_bad_file_is_refused_with_a_table_of_lines_and_only_organizers_get_in(world):
    cid = esa(world, start=False)
    org = world.client("org@example.org")
    bad = b'{"item": "orchard:1", "system": "zephyr-mt", "spans": []}\nnot json\n{"item": "orchard:7", "system": "zephyr-mt", "spans": []}\n'
    r = upload(org, cid, bad)
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and 'id="problems"' in page
    assert "<td>spans.jsonl</td><td class=\"num\">2</td><td>not JSON" in page
    assert "<td class=\"num\">3</td><td>no item &#39;orchard:7&#39;" in page
    assert "No suggestion source yet" in page                   # nothing stored
    ann = world.client(ANN)
    for method, url in (("get", "suggestions"), ("post", "suggestions/file"), ("post", "suggestions/run"),
                        ("post", "suggestions/remove"), ("post", "suggestions/llm")):
        assert getattr(ann, method)(f"/protocols/esa/campaigns/{cid}/{url}").status_code == 404
    mqm = new_campaign(world, start=False)
    assert org.get(f"/protocols/esa/campaigns/{mqm}/suggestions").status_code == 404


def test_an_llm_source_set_and_run_from_the_page(world, monkeypatch):
    cid = esa(world, start=False)
    org = world.client("org@example.org")
    script = {"api_key": "sk-page-test-never-shown", "rules": [
        rule("Obstgarten", answer({"text": "Obstgarten", "severity": "minor"}, score=70)),
        rule("Herbst", {"status": 503}), rule("Bäume", {"content": "no json"}, {"content": "still none"})]}
    with ScriptedServer(script) as server:
        r = org.post(f"/protocols/esa/campaigns/{cid}/suggestions/llm",
                     data={"base_url": server.base_url, "model": "m", "key_source": "secret",
                           "api_key": "sk-page-test-never-shown", "timeout": "2"})
        assert r.status_code == 302, r.get_data(as_text=True)[:300]
        from enface.protocols.esa.suggestions import running

        monkeypatch.setattr(running, "EndpointConfig", _quick)
        r = org.post(f"/protocols/esa/campaigns/{cid}/suggestions/run")      # the llm queue's task, eager here
        assert r.status_code == 302
    page = org.get(f"/protocols/esa/campaigns/{cid}/suggestions").get_data(as_text=True)
    assert "sk-page-test-never-shown" not in page
    assert "1</span> of 3 segment(s) have suggestions" in page and "2 failed" in page
    assert "Why segments failed" in page and "Fetch the rest" in page
    row = page.split('href="/protocols/esa/campaigns/')[-1].split('"')[0]
    transcript = org.get(f"/protocols/esa/campaigns/{row}").get_data(as_text=True)
    assert "Every call" in transcript and "sk-page-test-never-shown" not in transcript
    bad = org.post(f"/protocols/esa/campaigns/{cid}/suggestions/llm", data={"base_url": "ftp://x", "model": "m"})
    assert bad.status_code == 400 and "base URL" in bad.get_data(as_text=True)


def _quick(*args, **kw):
    from humaneval.judge import EndpointConfig

    return EndpointConfig(*args, **{**kw, "max_retries": 1, "backoff_base": 0.01, "backoff_max": 0.02})


def test_results_report_provenance_shares_quality_and_time(world):
    cid = esa(world, start=False)
    org = world.client("org@example.org")
    assert upload(org, cid, FILE).status_code == 302
    from enface.campaigns import services as svc

    with world.ctx():
        svc.start_campaign(svc.get_campaign(cid))
    c = world.client(ANN)
    a = assignments_of(world, cid, ANN)[0]
    assert read_all(c, a["public_id"], a["segments"]).status_code == 200
    krieg = {"start": KRIEG, "end": KRIEG + 4, "severity": "major"}
    first = {"start": 0, "end": 4, "severity": "minor"}
    put(c, a["public_id"], 0, [{**first, "provenance": "kept", "suggestion": first},
                               {**krieg, "provenance": "deleted", "suggestion": krieg}], score=60)
    put(c, a["public_id"], 1, [], score=90)
    put(c, a["public_id"], 2, [{"start": 0, "end": 2, "severity": "minor", "provenance": "human",
                                "suggestion": None}], score=80)
    assert c.post(f"/annotate/api/items/{a['public_id']}/finish", json={}).status_code == 200
    page = org.get(f"/campaigns/{cid}").get_data(as_text=True)
    assert 'id="ai-provenance"' in page
    table = page.split('id="ai-provenance"')[1].split("</table>")[0]
    assert "<td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">1</td><td class=\"num\">1</td>" in table
    assert "33.3 %" in table
    quality = page.split('id="ai-quality"')[1].split("</p>")[0]
    assert "precision <strong>50.0 %</strong>" in quality and "recall <strong>62.5 %</strong>" in quality
    timing = page.split('id="ai-timing"')[1].split("</table>")[0]
    assert "with suggestions shown</th><td class=\"num\">1</td>" in timing
    assert "without suggestions</th><td class=\"num\">2</td>" in timing
