"""The rubric's official human ranking on the leaderboard in a real browser: the "Rubric Σ" column with rank
ranges, the board ordered by it (no MQM released), its ranking table with cluster lines, the head-to-head
choice. Screenshots go to tests/artifacts/rubric-rank-*.png."""

from __future__ import annotations

import pytest
from rubric_helpers import PASSWORD, build_rubric_world
from rubric_ranking_world import released_rubric

from tests.support.browser import ARTIFACTS, chromium, live_server, login_page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    from enface import create_app
    from enface.config import TestConfig

    tmp = tmp_path_factory.mktemp("rubric-ranking-browser")
    with live_server(db_template, tmp) as (base, _app, url):
        twin_dir = tmp / "twin"
        twin_dir.mkdir()
        twin = create_app(TestConfig.for_dir(twin_dir, url))   # the test's own calls, without CSRF
        world = build_rubric_world(twin, annotators=2)
        released_rubric(world)
        yield base, world
        twin.extensions["enface_db"][0].dispose()


def test_leaderboard_shows_and_is_ordered_by_the_rubric_ranking(live):
    base, world = live
    ts = world.testset_id
    with chromium() as browser:
        errors: list[str] = []
        ctx, page = login_page(browser, base, "org@example.org", PASSWORD, errors, viewport=(1366, 900))
        page.goto(f"{base}/leaderboard/{ts}")
        page.wait_for_selector("#rubric-ranking")
        assert page.locator("th.rubric button.sort").inner_text().startswith("Rubric Σ")
        cells = page.locator("table#leaderboard td.rubric")
        assert cells.count() == 4 and page.locator("table#leaderboard td.rubric .rr").count() == 4
        constrained = page.locator("tbody.group-primary-constrained td.system a").all_inner_texts()
        assert constrained == ["careful-mt", "plain-mt"]         # by the rubric, though plain-mt leads by BLEU
        assert "Rubric Σ, campaign Phenomena rubric" in page.inner_text("#order-note")
        assert page.locator("#rubric-official-ranking tbody tr").count() == 4
        assert page.locator("#rubric-official-ranking tr.cluster-break").count() == 2
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "rubric-rank-01-leaderboard.png"), full_page=True)
        # sorting by the rubric column keeps working (the page's sort script reads data-value)
        page.click("th.rubric button.sort")
        page.goto(f"{base}/leaderboard/{ts}/head-to-head?metric=human-rubric")
        page.wait_for_selector("#head-to-head")
        assert page.locator("#head-to-head td.win").count() == 5   # careful, chatty > plain, literal; plain > literal
        page.screenshot(path=str(ARTIFACTS / "rubric-rank-02-head-to-head.png"), full_page=True)
        ctx.close()
    assert not errors, errors
