"""Real-browser test of an ESA tutorial through an account-free link: the span chosen with the mouse, its severity
and the score; a wrong score is explained and retried, then the annotator reaches the ESA items.

Playwright drives Debian's chromium against a live server (CSRF on). Screenshots: tests/artifacts/crowd-esa-*.png.
"""

from __future__ import annotations

import json

import pytest

from tests.platform.crowd.test_crowd_browser import _page, _select
from tests.platform.crowd.test_crowd_esa import TUTORIAL
from tests.protocols.esa.esa_helpers import esa_campaign
from tests.support.browser import live_server, screenshots
from tests.support.campaigns import build_world

pytestmark = pytest.mark.browser
shot = screenshots("crowd-esa")


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    from enface.campaigns import services as svc
    from enface.crowd import links
    from enface.crowd.setup import check_codes, save_setup

    tmp = tmp_path_factory.mktemp("crowd-esa-browser")
    with live_server(db_template, tmp) as (base, app, _url):
        world = build_world(app, tmp)
        cid = esa_campaign(world, start=False, annotators=())
        with app.app_context():
            camp = svc.get_campaign(cid)
            save_setup(camp, tutorial_text=json.dumps(TUTORIAL), codes=check_codes("ESA-PASS", "ESA-FAIL"))
            made, = links.create_links(camp, count=1)
            links.account_of(made.link)
            svc.start_campaign(svc.get_campaign(cid))
        yield base, f"{base}/crowd/l/{made.secret}"


def test_esa_tutorial_by_mouse_then_the_items(live, browser):
    from tests.platform.crowd.test_crowd_browser import ERRORS

    base, url = live
    ctx, page = _page(browser)
    page.goto(url)
    page.click("#landing-start")
    page.wait_for_selector("#tutorial-translation")
    shot(page, "01-tutorial")
    _select(page, "#tutorial-translation", 4, 8)       # "Hund": the expected span
    assert page.inner_text("#span-shown") == "Hund"
    page.check("input[name=severity][value='major']")
    page.fill("input[name=score]", "85")               # too high for a major error: explained
    page.click("#tutorial-submit")
    page.wait_for_selector("#tutorial-feedback")
    assert "a score of 60 at most" in page.inner_text("#tutorial-feedback")
    shot(page, "02-explained")
    _select(page, "#tutorial-translation", 4, 8)
    page.check("input[name=severity][value='major']")
    page.fill("input[name=score]", "35")
    page.click("#tutorial-submit")
    page.wait_for_selector("text=item 2 of 2")
    page.check("#span-none")
    page.fill("input[name=score]", "90")
    shot(page, "03-silent")
    page.click("#tutorial-submit")
    page.wait_for_url("**/annotate/item/**")
    page.wait_for_selector("#esa[data-ready='1']", timeout=10000)
    shot(page, "04-esa-item")
    ctx.close()
    assert not ERRORS, ERRORS
