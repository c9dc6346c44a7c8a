"""The meta-evaluation page in a real browser: from the leaderboard to the page, tables and plots; a screenshot."""

from __future__ import annotations

import pytest
from test_meta_page import (  # (tests/platform is not a package: by file name)
    WORLD_SYSTEMS,
    _annotate,
    _scores,
)

from tests.support.browser import ARTIFACTS, chromium, live_server, login_page
from tests.support.campaigns import PASSWORD, build_world

pytestmark = pytest.mark.browser


def test_meta_page_in_chromium(db_template, tmp_path):
    from enface import create_app
    from enface.campaigns import services as svc
    from enface.config import TestConfig

    with live_server(db_template, tmp_path) as (base, _live_app, url):
        # the data through a second app on the same database (CSRF off, like the other page tests)
        app = create_app(TestConfig.for_dir(tmp_path / "setup", url, META_BOOTSTRAP_SAMPLES=200))
        world = build_world(app, tmp_path, systems=WORLD_SYSTEMS)
        _scores(world)
        cid = _annotate(world)
        with world.ctx():
            svc.release(svc.get_campaign(cid))
        app.extensions["enface_db"][0].dispose()

        errors: list[str] = []
        with chromium() as browser:
            ctx, page = login_page(browser, base, "org@example.org", PASSWORD)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/leaderboard/{world.testset_id}")
            page.click("#meta-link")
            page.wait_for_load_state("networkidle")
            assert page.url.endswith(f"/leaderboard/{world.testset_id}/meta")
            assert page.locator("h1").inner_text().startswith("Meta-evaluation")
            flips = page.locator(".meta-flips table.flips tbody tr")
            assert flips.count() >= 1 and "zephyr-mt" in flips.first.inner_text()
            assert page.locator("table.meta-system tbody tr").count() == 3      # BLEU, TER, Judge
            assert page.locator("svg.meta-scatter").count() == 3
            assert page.locator("svg.meta-scatter circle").count() == 12        # 4 systems x 3 metrics
            box = page.locator("svg.meta-scatter").first.bounding_box()
            assert box and box["width"] > 200 and box["height"] > 150
            assert page.locator("table.meta-items tbody tr").count() == 3
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "meta-page.png"), full_page=True)
            ctx.close()
        assert errors == []

