"""The guard rails in chromium (Playwright + Debian's chromium): confirmations, the undo, the label,
the token page's examples, the line-count report and a closed test set, with screenshots in
tests/artifacts/guard-*.png. Skips without chromium (fails in CI, ENFACE_STRICT_SERVICES=1)."""

from __future__ import annotations

import pytest

from tests.support.browser import ARTIFACTS, chromium, require_browser, screenshots
from tests.support.testkit import PASSWORD, system_files, upload

pytestmark = pytest.mark.browser


@pytest.fixture
def site(make_app, live_server_factory):
    from tests.support.testkit import World

    require_browser()
    app = make_app()
    world = World(app)
    ts = world.testset()
    closed = world.testset(task="Next year", opens_at=None)
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    client = app.test_client()
    first = upload(client, ts, token, system_name="lantern-v1").get_json()["id"]
    second = upload(client, ts, token, files=system_files("weak-mt"), label="contrastive",
                    system_name="lantern-v2").get_json()["id"]
    broken = upload(client, ts, token, files=system_files("broken-mt"), label="contrastive",
                    system_name="lantern-broken").get_json()["id"]
    server = live_server_factory(app)
    ARTIFACTS.mkdir(exist_ok=True)
    return server.url, world, ts, closed, first, second, broken


shot = screenshots("guard", full=True)


def log_in(page, url):
    page.goto(f"{url}/auth/login")
    page.fill("input[name=email]", "cap@a.org")
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]:has-text('Log in')")


def test_guard_rails_in_a_browser(site):
    url, world, ts, closed, first, second, broken = site
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 800})

        # Anonymous: the closed test set says so and links no leaderboard that would 404.
        page.goto(url + "/")
        row = page.locator("tr", has_text="Next year")
        assert "not open yet" in row.inner_text() and "leaderboard not released yet" in row.inner_text()
        assert row.locator("a[href*='/leaderboard/']").count() == 0
        shot(page, "testsets-anonymous")

        log_in(page, url)
        # The submission form: the team has a primary, so the label starts at contrastive.
        page.goto(f"{url}/testsets/{ts}/submit")
        assert page.locator("select[name=label]").input_value() == "contrastive"
        assert page.get_by_text(f"Your team's primary is #{first} lantern-v1").is_visible()
        page.click("button:has-text('Upload and validate')")          # no files, no name
        assert page.get_by_text("No output files chosen").is_visible()
        assert "jade-lantern.1.txt" in page.locator(".flash.error").first.inner_text()
        shot(page, "submit-without-files")

        # Withdraw asks first; Cancel leaves it alone.
        page.goto(f"{url}/submissions")
        page.locator("tr", has_text="lantern-v2").locator("button:has-text('Withdraw')").click()
        assert page.get_by_role("heading", name=f"Withdraw #{second} lantern-v2?").is_visible()
        assert page.get_by_text("This cannot be undone").is_visible()
        shot(page, "withdraw-confirm")
        page.click("a:has-text('Cancel')")
        assert page.url.endswith("/submissions")
        assert world.submission(second).withdrawn_at is None

        # Make primary: confirm, then undo from the submission's page.
        page.locator("tr", has_text="lantern-v2").locator("button:has-text('Make primary')").click()
        assert page.get_by_text(f"The current primary, #{first} 'lantern-v1', becomes contrastive.").is_visible()
        shot(page, "primary-confirm")
        page.click("button:has-text('Yes, make it primary')")
        assert page.get_by_text(f"Submission #{second} is now your primary system.").is_visible()
        assert world.submission(second).label == "primary"
        shot(page, "primary-undo-offer")
        # the offer survives a reload and a visit elsewhere (for the window it states)
        page.goto(f"{url}/submissions")
        page.goto(f"{url}/submissions/{second}")
        assert "offered for 10 minutes after the switch" in page.inner_text("#undo-until")
        page.click(f"button:has-text('Undo: make #{first} primary again')")
        assert world.submission(first).label == "primary" and world.submission(second).label == "contrastive"

        # The validation report: the line-count finding reads whole and has its line.
        page.goto(f"{url}/submissions/{broken}")
        cells = page.locator("table.report tr.sev-error").first.locator("td")
        assert cells.nth(2).inner_text().strip() == "12"
        assert cells.nth(3).inner_text().strip().startswith("expected 23 lines")
        assert "and they are not accepted here." in cells.nth(3).inner_text()
        shot(page, "line-count-report")

        # The token page: both examples whole, nothing cut off or scrolled away.
        page.goto(f"{url}/auth/tokens")
        page.fill("input[name=name]", "laptop")
        page.click("button:has-text('Create a token')")
        secret = page.locator("#new-token").inner_text().strip()
        for example in ("#example-enface", "#example-curl"):
            box = page.locator(example)
            assert secret in box.inner_text()
            assert box.evaluate("e => e.scrollWidth <= e.clientWidth")        # wrapped, not clipped
        assert "curl -H" in page.locator("#example-curl").inner_text()
        shot(page, "token-page")

        # Withdraw for real.
        page.goto(f"{url}/submissions/{second}")
        page.click("button:has-text('Withdraw')")
        page.click("button:has-text('Yes, withdraw it')")
        assert page.get_by_text(f"Submission #{second} withdrawn").is_visible()
        assert world.submission(second).withdrawn_at is not None
