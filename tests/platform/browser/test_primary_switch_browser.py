"""Switching primary after a released human evaluation, in a real browser: the confirmation says what the
switch changes, and the official human ranking says which submission it evaluated (and what it is now).
Screenshots: tests/artifacts/switch-*.png."""

from __future__ import annotations

import pytest

from tests.support.browser import chromium, live_server, login_page, screenshots
from tests.support.campaigns import PASSWORD, annotate_all, build_world, fast_user, new_campaign

pytestmark = pytest.mark.browser

_shot = screenshots("switch", full=True)


def test_switching_primary_after_a_released_evaluation(db_template, tmp_path):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import ScoreRow, TestSet

    from tests.support.testkit import OPENED

    with live_server(db_template, tmp_path) as (base, app, _url):
        world = build_world(app, tmp_path)
        with world.ctx(), db.write():
            ts = db.session.get(TestSet, world.testset_id)
            ts.opens_at, ts.released = OPENED, True   # open (a team may switch) and its results public
            for n, sid in enumerate(world.subs.values()):
                db.session.add(ScoreRow(submission_id=sid, metric="bleu", scope="corpus", name="BLEU",
                                        value=20.0 + n, higher_is_better=True, signature="nrefs:2|test"))
        cid = new_campaign(world, systems=["zephyr-mt", "quokka-nmt", "walrus-baseline"], redundancy=1)
        app.config["WTF_CSRF_ENABLED"] = False   # the annotations are set-up (the MQM browser tests drive that page)
        try:
            annotate_all(world, cid, errors_in=["zephyr-mt"])
        finally:
            app.config["WTF_CSRF_ENABLED"] = True
        with world.ctx():
            svc.release(svc.get_campaign(cid))
            fast_user("birch@example.org", "participant", "Birch Member", team="Birch")
        evaluated, switched_to = world.subs["quokka-nmt"], world.subs["quokka-nmt-c"]

        with chromium() as browser:
            ctx, page = login_page(browser, base, "birch@example.org", PASSWORD)
            page.goto(f"{base}/submissions/{switched_to}")
            page.click("button:has-text('Make primary')")
            text = page.inner_text("main")
            assert f"A human evaluation of this test set is released ('{world_campaign_name(app, cid)}')" in text
            assert f"it judged #{evaluated} 'quokka-nmt'" in text
            assert f"Its official ranking keeps ranking #{evaluated}, marked \"now contrastive\"" in text
            _shot(page, "confirm")
            page.click("button:has-text('Yes, make it primary')")
            assert page.get_by_text(f"Submission #{switched_to} is now your primary system.").is_visible()

            page.goto(f"{base}/leaderboard/{world.testset_id}")
            row = page.locator("#official-ranking tbody tr", has_text="quokka-nmt")
            assert row.count() == 1
            assert row.locator("a.evaluated").inner_text() == f"#{evaluated}"
            assert row.locator(".now-switched").inner_text() == "now contrastive"
            note = page.inner_text("#ranking-switched")
            assert f"#{evaluated} quokka-nmt (Birch) was evaluated as primary ⋆ and is now contrastive" in note
            others = page.locator("#official-ranking tbody tr", has_text="zephyr-mt")
            assert others.locator(".now-switched").count() == 0
            page.locator("#human-ranking").scroll_into_view_if_needed()
            _shot(page, "ranking")
            ctx.close()


def world_campaign_name(app, cid: int) -> str:
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    with app.app_context():
        return db.session.get(Campaign, cid).name
