"""The security fixes as a person meets them, in a real browser (Debian's chromium): the release of a campaign on an
unreleased test set says that its results wait; a throttled login says why and for how long."""

from __future__ import annotations

import pytest

from tests.support.browser import live_server, log_in, screenshots
from tests.support.campaigns import PASSWORD, annotate_all, build_world, new_campaign

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("security-browser")
    with live_server(db_template, tmp) as (base, app, _url):
        yield base, build_world(app, tmp)


shot = screenshots("security")


def _login(page, base, email, password=PASSWORD):
    log_in(page, base, email, password)


def test_release_on_an_unreleased_testset_says_it_waits(live, browser):
    base, world = live
    cid = new_campaign(world)
    app = world.app
    app.config["WTF_CSRF_ENABLED"] = False   # the API calls below come from the test client
    try:
        annotate_all(world, cid)
    finally:
        app.config["WTF_CSRF_ENABLED"] = True
    ctx = browser.new_context(viewport={"width": 1366, "height": 800})
    page = ctx.new_page()
    _login(page, base, "org@example.org")
    page.goto(f"{base}/campaigns/{cid}")
    page.click("button:has-text('Release to the leaderboard')")
    page.wait_for_load_state("networkidle")
    page.click("section.confirm button[type=submit]")   # the confirmation page (guard rails)
    page.wait_for_load_state("networkidle")
    flash = page.locator(".flash, .flashes, [role=status], .alert").first.inner_text()
    assert "when the test set" in flash and "is released" in flash, flash
    shot(page, "01-release-waits")
    ctx.close()
    anonymous = browser.new_context(viewport={"width": 1366, "height": 800})
    page = anonymous.new_page()
    resp = page.goto(f"{base}/campaigns/{cid}/results")
    assert resp.status == 404
    assert "zephyr-mt" not in page.content()
    shot(page, "02-results-not-public")
    anonymous.close()


def test_throttled_login_says_why(live, browser):
    base, world = live
    app = world.app
    app.config.update(RATELIMIT_ENABLED=True, LOGIN_RATE_LIMIT="2 per minute")
    try:
        ctx = browser.new_context(viewport={"width": 1366, "height": 800})
        page = ctx.new_page()
        for _ in range(2):
            _login(page, base, "ann3@example.org", "wrong password")
            assert "Wrong e-mail or password" in page.content()
        _login(page, base, "ann3@example.org", "wrong password")
        text = page.inner_text("body")
        assert "Too many failed logins for this account from your network" in text, text[:500]
        shot(page, "03-login-throttled")
        ctx.close()
    finally:
        app.config.update(RATELIMIT_ENABLED=False, LOGIN_RATE_LIMIT="10 per minute;50 per hour")
