"""Real browser, rubric campaign end to end: an annotator scores an item by keyboard and reloads; the
organizer adds a debate judge through the form, runs it against a scripted endpoint, and finds the
annotator's and the judge's scores for that item side by side with the debate. Screenshots:
tests/artifacts/rubric-judge-*.png."""

from __future__ import annotations

import pytest
from rubric_helpers import PASSWORD, build_rubric_world, items_of, new_rubric
from sqlalchemy import select

from humaneval.judge.demo_script import demo_script
from humaneval.judge.scripted import ScriptedServer
from tests.support.browser import chromium, live_server, login_page, screenshots, twin_app

pytestmark = pytest.mark.browser
KEY = "sk-e2e-rubric-judge-S3CRET"


def login(browser, base, email, errors):
    return login_page(browser, base, email, PASSWORD, errors)


shot = screenshots("rubric-judge", full=True)


def test_keyboard_scores_and_a_judge_side_by_side(db_template, tmp_path):
    errors: list[str] = []
    with live_server(db_template, tmp_path) as (base, _app, url), chromium() as browser, \
            twin_app(tmp_path, url) as twin:   # the test's own calls, without CSRF
        world = build_rubric_world(twin, annotators=1)
        cid = new_rubric(world, annotators=("ann1@example.org",), redundancy=1)
        state = items_of(world, cid, "ann1@example.org")[0]
        public_id, phenomena = state["item"]["id"], state["phenomena"]

        # the annotator: 2, 1, 2 on every phenomenon of the item, by keyboard only; then a reload
        ctx, page = login(browser, base, "ann1@example.org", errors)
        page.goto(f"{base}/annotate/item/{public_id}")
        page.wait_for_selector("#rubric[data-ready='1']", timeout=10000)
        for _p in phenomena:
            for key in "212":
                page.keyboard.press(key)
        page.wait_for_function("() => window.enfaceRubric.pending() === 0", timeout=10000)
        page.reload()
        page.wait_for_selector("#rubric[data-ready='1']", timeout=10000)
        for p in phenomena:
            got = [page.get_attribute(f".rb-phenomenon[data-dimension='{p['dimension']}'] [data-criterion='{k}'] "
                                      ".rb-choice.chosen", "data-score") for k in ("sp", "g_1", "g_2")]
            assert got == ["2", "1", "2"], (p["dimension"], got)
        shot(page, "annotator")
        ctx.close()

        # the organizer: a debate judge through the form, run, then side by side
        from enface.campaigns import services as svc
        from enface.campaigns.models import Assignment
        from enface.extensions import db
        from enface.judges.running import tasks_of

        with twin.app_context():
            items = [t.item for _i, t in tasks_of(svc.get_campaign(cid))]
            item_id = db.session.scalar(select(Assignment.item_id).where(Assignment.public_id == public_id))
        with ScriptedServer(demo_script(items, api_key=KEY, latency=0)) as endpoint:
            ctx, page = login(browser, base, "org@example.org", errors)
            page.goto(f"{base}/campaigns/{cid}")
            page.click("a:has-text('Add an LLM judge')")
            page.fill("input[name=base_url]", endpoint.base_url)
            page.fill("input[name=model]", "scripted-model")
            page.check("input[name=key_source][value=secret]")
            page.fill("input[name=api_key]", KEY)
            page.click("button:has-text('Add the judge')")
            page.wait_for_load_state("networkidle")
            page.click("button:has-text('Run')")    # eager jobs in tests: done within the request
            page.wait_for_load_state("networkidle")
            assert page.locator(".judge-progress [data-field=done]").inner_text() == str(len(items))
            assert page.locator("table.judge-results tbody tr").count() == 3   # the three systems
            shot(page, "judge-page", full=False)
            page.goto(f"{base}/campaigns/{cid}")
            assert page.locator("#judges ~ table.judges-panel, table.judges-panel").count() == 1
            shot(page, "dashboard")
            page.goto(f"{base}/campaigns/{cid}")
            page.click("table.judges-panel a:has-text('side by side')")
            page.wait_for_load_state("networkidle")
            for p in phenomena:
                row = page.locator(f"tr[data-item='{item_id}:{p['id']}']")
                cells = [c.strip() for c in row.locator("td.scores").all_inner_texts()]
                assert cells[0] == "2 / 1 / 2"   # rater1, as typed
                judge = cells[-1]
                assert judge.count("/") == 2 and all(x.strip() in "012" for x in judge.split("/"))
                row.locator("td > details > summary").click()
                assert "Round 1" in row.locator(".debate").inner_text()
            page.locator("h1").scroll_into_view_if_needed()
            shot(page, "side-by-side-top", full=False)
            page.locator(f"tr[data-item='{item_id}:{phenomena[0]['id']}']").scroll_into_view_if_needed()
            shot(page, "side-by-side", full=False)
            assert KEY not in page.content()
            ctx.close()
    assert not errors, errors
