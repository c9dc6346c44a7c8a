"""The leaderboard's rankings in a real browser: rank ranges and cluster lines, the official human ranking,
the head-to-head matrices. Screenshots go to tests/artifacts/rank-*.png."""

from __future__ import annotations

import pytest

from tests.support.browser import chromium, live_server, login_page, screenshots
from tests.support.campaigns import PASSWORD, SYSTEMS, annotate_all, build_world, new_campaign

pytestmark = pytest.mark.browser


def _score_for_real(app, world) -> None:
    """The world's submissions through the real scoring job (BLEU, chrF, TER, d-BLEU; COMET n/a)."""
    from enface.extensions import db
    from enface.models import Submission
    from enface.services import pipeline

    with app.app_context():
        for sid in world.subs.values():
            with db.write():
                db.session.get(Submission, sid).state = "valid"
            assert pipeline.run_scoring(sid) == "scored"


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rankings")
    with live_server(db_template, tmp) as (base, app, _url):
        world = build_world(app, tmp, systems={**SYSTEMS, "lynx-mt": ("Cedar", "primary", True)})
        _score_for_real(app, world)
        cid = new_campaign(world, systems=["zephyr-mt", "lynx-mt", "quokka-nmt", "walrus-baseline"], redundancy=1)
        app.config["WTF_CSRF_ENABLED"] = False   # the annotations are set-up (the MQM browser tests drive that page)
        try:
            annotate_all(world, cid, errors_in=["zephyr-mt"])
        finally:
            app.config["WTF_CSRF_ENABLED"] = True
        from enface.campaigns import services as svc

        with world.ctx():
            svc.release(svc.get_campaign(cid))
        yield base, world


def _page(browser, base):
    errors: list[str] = []
    ctx, page = login_page(browser, base, "org@example.org", PASSWORD, errors, (1366, 900))
    return ctx, page, errors


_shot = screenshots("rank", full=True)


def test_leaderboard_rankings_and_head_to_head(live):
    base, world = live
    ts = world.testset_id
    with chromium() as browser:
        ctx, page, errors = _page(browser, base)
        page.goto(f"{base}/leaderboard/{ts}")
        page.wait_for_selector("#auto-clusters")
        # every primary/baseline score cell of BLEU shows its rank range
        assert page.locator("table#leaderboard td .rr").count() >= 5 * 4
        assert page.locator("#official-ranking tbody tr").count() == 4
        assert page.locator("#official-ranking tr.cluster-break").count() == 1
        assert "Ordered by the official human ranking" in page.inner_text("#order-note")
        panels = page.locator("table.panel")
        assert panels.count() == 4
        # sorting by a column still works with the rank ranges in the cells
        page.click("th[data-key=ter] button.sort")
        _shot(page, "01-leaderboard")

        page.click("text=Head-to-head matrix")
        page.wait_for_selector("#head-to-head")
        assert page.locator("#head-to-head td.self").count() == 4   # the human ranking first: 4 systems
        assert page.locator("#head-to-head td.win").count() == 3
        assert page.locator("#head-to-head td.loss .mark").first.inner_text() in ("*", "**", "***")
        _shot(page, "02-head-to-head-mqm")
        page.click("nav.metric-choice >> text=BLEU")
        page.wait_for_selector("#head-to-head[data-metric=bleu]")
        assert page.locator("#head-to-head td.self").count() == 5
        _shot(page, "03-head-to-head-bleu")
        ctx.close()
        assert not errors, errors
