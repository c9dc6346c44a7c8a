"""Real browser (Playwright + Debian's chromium): an organizer adds a judge through the form, runs it,
watches the progress, and compares human and judge scores on the side-by-side page with the debate.
Screenshots go to tests/artifacts/judge-*.png."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select

from humaneval.judge.scripted import ScriptedServer
from tests.support.browser import chromium, live_server, login_page, screenshots
from tests.support.campaigns import PASSWORD, build_world
from tests.support.judge_protocol import judged_campaign

pytestmark = pytest.mark.browser
KEY = "sk-browser-Qw8Jd2-hidden"


def debate_script() -> dict:
    a = [{"json": {"sp": 2, "g_1": 2, "g_2": 2, "thoughts": "Debater A: the idiom reads naturally."}}]
    b = [{"json": {"sp": 1, "g_1": 1, "g_2": 2, "thoughts": "Debater B: a little stiff."}},
         {"json": {"sp": 2, "g_1": 1, "g_2": 2, "thoughts": "Debater B: agreed on sp, g_1 stays 1."}}]
    judge = [{"json": {"judge": "no", "judge_reasons": "They differ on sp.", "sp": 2, "g_1": 1, "g_2": 2}},
             {"json": {"judge": "yes", "judge_reasons": "Consensus on 2/1/2.", "sp": 2, "g_1": 1, "g_2": 2}}]
    # counters are per rule, so each item gets its own rules
    rules = []
    for n in range(1, 40):
        marker = [f"[ITEM-{n}]"]
        rules += [{"prefix": "You are Debater A", "match": marker, "replies": a},
                  {"prefix": "You are Debater B", "match": marker, "replies": b},
                  {"prefix": "You are the judge", "match": marker, "replies": judge}]
    return {"api_key": KEY, "rules": rules}


def human_scores(app, cid):
    """Two humans' rubric scores on every item, saved as the core's responses."""
    from enface.campaigns.models import Assignment, Response
    from enface.extensions import db
    from enface.judges.models import Judge

    with app.app_context(), db.write():
        judges = {j.annotator_id for j in db.session.scalars(select(Judge))}
        for asg in db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid)):
            if asg.annotator_id in judges:
                continue
            dim = ("idiom", "tense")[asg.item.position % 2]
            sp = 2 if asg.item.position % 3 else 1
            db.session.add(Response(assignment_id=asg.id, uuid=str(uuid.uuid4()), kind="score", key=dim,
                                    data={"sp": sp, "g_1": 1, "g_2": 2 - asg.annotator_id % 2, "refusal": None,
                                          "comment": ""}))


shot = screenshots("judge", full=True)


def test_organizer_adds_runs_and_compares_a_judge(db_template, tmp_path):
    errors: list[str] = []
    with live_server(db_template, tmp_path) as (base, app, _url), ScriptedServer(debate_script()) as endpoint, \
            chromium() as browser:
        world = build_world(app, tmp_path)
        cid = judged_campaign(world, ranges="river.1")
        ctx, page = login_page(browser, base, "org@example.org", PASSWORD, errors)

        page.goto(f"{base}/campaigns/{cid}/judges")
        page.fill("input[name=name]", "Browser debate judge")
        page.fill("input[name=base_url]", endpoint.base_url)
        page.fill("input[name=model]", "scripted-model")
        page.check("input[name=key_source][value=secret]")
        page.fill("input[name=api_key]", KEY)
        page.fill("input[name=concurrency]", "2")
        shot(page, "add-form")
        page.click("button:has-text('Add the judge')")
        page.wait_for_load_state("networkidle")
        assert "it is never shown again" in page.content() and KEY not in page.content()
        page.click("button:has-text('Run')")     # eager jobs in tests: the run completes in the request
        page.wait_for_load_state("networkidle")
        assert page.locator(".judge-progress [data-field=failed]").inner_text() == "0"
        done = int(page.locator(".judge-progress [data-field=done]").inner_text())
        total = int(page.locator(".judge-progress [data-field=total]").inner_text())
        assert done == total > 0
        assert page.locator(".judge-progress progress").get_attribute("value") == str(total)
        shot(page, "judge-page")
        page.click("a:has-text('transcript') >> nth=0")
        page.wait_for_load_state("networkidle")
        page.click("details.calls > summary")
        calls = page.locator(".call")
        assert calls.count() == 6   # two rounds of Debater A, Debater B and the judge
        assert "debater_a" in calls.nth(0).inner_text() and "You are Debater A" in calls.nth(0).inner_text()
        assert "English-to-German literary translator" in calls.nth(0).inner_text()   # the test set's languages
        assert "judge" in calls.nth(5).inner_text() and "Consensus on 2/1/2." in calls.nth(5).inner_text()
        shot(page, "transcript")
        assert KEY not in page.content()
        page.go_back()

        human_scores(app, cid)
        page.click("a:has-text('Judge and humans side by side')")
        page.wait_for_load_state("networkidle")
        rows = page.locator("table.side-by-side tbody tr")
        assert rows.count() == total
        first = rows.nth(0)
        assert first.locator("td.judge-scores").inner_text().strip() == "2 / 1 / 2"
        human_cells = [c.strip() for c in first.locator("td.scores").all_inner_texts()[:-1]]
        assert len(human_cells) == 2 and all(c.count("/") == 2 for c in human_cells)
        assert page.locator("table.agreement tbody tr").count() == 3 * 4   # two humans + the mean, 4 criteria
        first.locator("td > details > summary").click()
        assert first.locator(".debate").is_visible()
        text = first.locator(".debate").inner_text()
        assert "Debater B: a little stiff." in text and "Consensus on 2/1/2." in text
        assert "2 round(s), consensus yes" in first.locator("td > details > summary").inner_text()
        shot(page, "side-by-side")
        assert KEY not in page.content()
        ctx.close()
    assert not errors, errors
