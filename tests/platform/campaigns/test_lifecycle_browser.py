"""Start and Release of a campaign in chromium: each asks first; Release is disabled while nothing is
finished. Screenshots: tests/artifacts/campaign-*.png."""

from __future__ import annotations

import pytest

from tests.support.browser import ARTIFACTS, chromium, live_server
from tests.support.campaigns import PASSWORD, build_world, new_campaign

pytestmark = pytest.mark.browser


def finish_one(app, campaign_id: int) -> None:
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from enface.models import utcnow
    from sqlalchemy import select

    with app.app_context(), db.write():
        asg = db.session.scalars(select(Assignment).where(Assignment.campaign_id == campaign_id)).first()
        asg.state, asg.finished_at = "finished", utcnow()


def test_start_and_release_ask_first(db_template, tmp_path):
    with live_server(db_template, tmp_path) as (base, app, _url):
        world = build_world(app, tmp_path)
        cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="orchard", start=False)
        ARTIFACTS.mkdir(exist_ok=True)
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.goto(f"{base}/auth/login")
            page.fill("input[name=email]", "org@example.org")
            page.fill("input[name=password]", PASSWORD)
            page.click("form button[type=submit]:has-text('Log in')")
            page.goto(f"{base}/campaigns/{cid}")
            page.click("button:has-text('Start: assign items')")
            page.get_by_role("heading", name="Start Tales MQM?").wait_for()
            page.screenshot(path=str(ARTIFACTS / "campaign-start-confirm.png"), full_page=True)
            page.click("a:has-text('Cancel')")
            page.wait_for_url(f"{base}/campaigns/{cid}")
            page.locator("button:has-text('Start: assign items')").wait_for()              # still a draft
            page.click("button:has-text('Start: assign items')")
            page.click("button:has-text('Yes, start and assign the items')")
            page.locator(".flash.success", has_text="Started:").wait_for()

            release = page.locator("button:has-text('Release to the leaderboard')")
            assert release.is_disabled()
            assert page.get_by_text("nothing to release yet: no item is finished").is_visible()
            page.screenshot(path=str(ARTIFACTS / "campaign-release-disabled.png"))

            finish_one(app, cid)      # the annotation itself is tested elsewhere; CSRF is on here
            page.reload()
            assert release.is_enabled()
            release.click()
            page.get_by_role("heading", name="Release Tales MQM?").wait_for()
            page.screenshot(path=str(ARTIFACTS / "campaign-release-confirm.png"), full_page=True)
            page.click("button:has-text('Yes, release the results')")
            page.locator(".flash.success", has_text="Released").wait_for()
