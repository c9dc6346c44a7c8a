"""Real browser (Playwright + Debian's chromium), issue 15: an organizer tests a judge's endpoint, sees why a
failed judge failed on its own page (not "done" under a full bar), fixes its key with Edit, reads its items
by document:segment and system, deletes it (it leaves the campaign's raters) and never finds judge accounts
on /admin/users. Screenshots: tests/artifacts/judge-admin-*.png."""

from __future__ import annotations

import pytest
from rubric_helpers import PASSWORD, build_rubric_world, new_rubric
from sqlalchemy import select

from humaneval.judge.demo_script import demo_script
from humaneval.judge.scripted import ScriptedServer
from tests.support.browser import chromium, live_server, login_page, screenshots

pytestmark = pytest.mark.browser
KEY = "sk-endpoint-Zq81-secret"
WRONG = "sk-wrong-key-77"
shot = screenshots("judge-admin", full=True)


def _add_judge(app, cid, base_url, key):
    from enface.campaigns import services as svc
    from enface.judges.setup import JudgeInput, add_judge

    with app.app_context():
        return add_judge(svc.get_campaign(cid), JudgeInput(base_url=base_url, model="scripted", name="Broken judge",
                                                           api_key=key, mode="single", concurrency=2)).id


def _items(app, cid):
    from enface.campaigns import services as svc
    from enface.judges.running import tasks_of

    with app.app_context():
        return [t.item for _i, t in tasks_of(svc.get_campaign(cid))]


def test_organizer_tests_fixes_reads_and_deletes_a_judge(db_template, tmp_path):
    errors: list[str] = []
    with live_server(db_template, tmp_path) as (base, app, _url), chromium() as browser:
        world = build_rubric_world(app)
        cid = new_rubric(world, annotators=("ann1@example.org",), redundancy=1, ranges="tea-house:1-4")
        with ScriptedServer(demo_script(_items(app, cid), api_key=KEY, latency=0)) as endpoint:
            jid = _add_judge(app, cid, endpoint.base_url, WRONG)
            ctx, page = login_page(browser, base, "org@example.org", PASSWORD, errors)
            judge_url = f"{base}/campaigns/{cid}/judges/{jid}"

            # Test endpoint with the wrong key: the error, never the key
            page.goto(judge_url)
            page.click("button:has-text('Test endpoint')")
            page.wait_for_load_state("networkidle")
            flash = page.locator(".flash.error", has_text="Endpoint test failed").inner_text()
            assert "HTTP 401" in flash and WRONG not in page.content() and KEY not in page.content()
            shot(page, "test-failed")

            # a run with the wrong key: every item fails, the page says so and why
            page.click("button:has-text('Run')")
            page.wait_for_load_state("networkidle")
            outcome = page.locator(".judge-progress [data-field=outcome]").inner_text()
            assert outcome == "failed: no item scored", outcome
            reasons = page.locator(".judge-failures").inner_text()
            assert "Why items failed" in reasons and "HTTP 401" in reasons and "(9 items)" in reasons
            assert page.locator(".judge-progress progress.failing").count() == 1
            shot(page, "failed")

            # Edit: a new stored key; the test passes, the run scores everything
            page.click("a:has-text('Edit')")
            page.check("input[name=key_source][value=secret]")
            page.fill("input[name=api_key]", KEY)
            page.fill("input[name=name]", "Fixed judge")
            shot(page, "edit")
            page.click("button:has-text('Save the judge')")
            page.wait_for_load_state("networkidle")
            assert page.locator("h1").inner_text() == "Fixed judge" and KEY not in page.content()
            page.click("button:has-text('Test endpoint')")
            page.wait_for_load_state("networkidle")
            assert "Endpoint test passed: scripted at" in page.locator(".flash.success").inner_text()
            page.click("button:has-text('Run')")
            page.wait_for_load_state("networkidle")
            assert page.locator(".judge-progress [data-field=outcome]").inner_text() == "done"
            assert page.locator(".judge-failures").count() == 0

            # items by document:segment and system, and what each scores
            labels = page.locator("td.item-label").all_inner_texts()
            assert labels and all(" · tea-house:" in t for t in labels), labels
            assert any(t.startswith("careful-mt · tea-house:1 · idiom") for t in labels), labels
            shot(page, "done")
            page.click("a:has-text('transcript') >> nth=0")
            assert " · tea-house:" in page.locator("h1").inner_text()
            page.go_back()

        # judge accounts are not on the users page
        page.goto(f"{base}/admin/users")
        users = page.locator("table.data").first.inner_text()
        assert "judges.invalid" not in users and "LLM judge:" not in users and "org@example.org" in users
        shot(page, "users")

        # Delete: a confirmation page (a reload asks again), then the judge leaves the raters
        page.goto(judge_url)
        page.click("a:has-text('Delete')")
        page.get_by_role("heading", name="Delete the judge Fixed judge?").wait_for()
        page.goto(page.url)   # opening the confirmation's URL again: still the question, nothing deleted
        page.get_by_role("heading", name="Delete the judge Fixed judge?").wait_for()
        assert "scored item(s)" in page.inner_text(".confirm")
        shot(page, "delete-confirm")
        page.click("button:has-text('Yes, delete the judge')")
        page.locator(".flash.success", has_text="Judge deleted").wait_for()
        page.goto(f"{base}/campaigns/{cid}")
        assert "LLM judge: Fixed judge" not in page.content()     # not among the campaign's annotators
        ctx.close()

        from enface.campaigns.models import CampaignAnnotator
        from enface.extensions import db
        from enface.judges.models import Judge
        from enface.models import User

        with app.app_context():
            raters = db.session.scalars(select(CampaignAnnotator).where(CampaignAnnotator.campaign_id == cid)).all()
            assert [a.user.email for a in raters] == ["ann1@example.org"]
            assert db.session.get(Judge, jid) is None
            assert db.session.scalar(select(User).where(User.email.like("%@judges.invalid"))) is None
    assert not errors, errors
