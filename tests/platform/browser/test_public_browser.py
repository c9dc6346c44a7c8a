"""The public's pages in a real browser: short addresses (/login, /leaderboards), and the leaderboard on a
phone (390 px), which must not scroll sideways. Screenshots: tests/artifacts/public-*.png."""

from __future__ import annotations

import pytest

from tests.support.browser import chromium, live_server, screenshots
from tests.support.campaigns import SYSTEMS, build_world

pytestmark = pytest.mark.browser

_shot = screenshots("public", full=True)


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    """A released test set whose five systems went through the real scoring job."""
    from enface.extensions import db
    from enface.models import Submission, TestSet
    from enface.services import pipeline
    from enface.services.testsets import bump_scores_version

    tmp = tmp_path_factory.mktemp("public")
    with live_server(db_template, tmp) as (base, app, _url):
        world = build_world(app, tmp, systems={**SYSTEMS, "lynx-mt": ("Cedar", "primary", True)})
        with app.app_context():
            for sid in world.subs.values():
                with db.write():
                    db.session.get(Submission, sid).state = "valid"
                assert pipeline.run_scoring(sid) == "scored"
            with db.write():
                ts = db.session.get(TestSet, world.testset_id)
                ts.released = True
                bump_scores_version(db.session, ts.id)
        yield base, world


def test_short_addresses_lead_to_their_pages(live):
    base, world = live
    with chromium() as browser:
        page = browser.new_page()
        page.goto(f"{base}/login?next=/leaderboard/")
        assert page.url == f"{base}/auth/login?next=/leaderboard/"
        assert page.locator("input[name=email]").count() == 1
        page.goto(f"{base}/leaderboards")
        assert page.url == f"{base}/leaderboard/"
        assert page.locator(f"a[href='/leaderboard/{world.testset_id}']").count() >= 1
        page.goto(f"{base}/register")
        assert page.url == f"{base}/auth/register"


def test_the_leaderboard_does_not_scroll_sideways_on_a_phone(live):
    base, world = live
    with chromium() as browser:
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True)
        page = ctx.new_page()
        page.goto(f"{base}/leaderboard/{world.testset_id}")
        page.wait_for_selector("table#leaderboard")
        assert page.locator("table#leaderboard tr.entry").count() == 5
        widths = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        _shot(page, "leaderboard-390px")
        assert widths[0] <= widths[1], f"the page is {widths[0]} px wide on a {widths[1]} px screen"
        # every system's name and its scores are on screen, none cut off at the right edge
        for cell in page.locator("table#leaderboard tr.entry td").all():
            box = cell.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 + 0.5, cell.inner_text()
        ctx.close()
