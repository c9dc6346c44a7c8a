"""Real-browser test of a crowd campaign (issue 19): annotators arrive through account-free links, give their
consent, go through a loud tutorial (a wrong answer explained, then retried) and a silent item, work on their MQM
item, and see their completion code: the pass code for one, the fail code for the other.

Playwright drives Debian's chromium against a live server (CSRF on). Screenshots: tests/artifacts/crowd-*.png.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.support.browser import live_server, screenshots
from tests.support.campaigns import build_world, new_campaign
from tests.support.crowd import TUTORIAL, WELCOME

pytestmark = pytest.mark.browser
shot = screenshots("crowd")
ERRORS: list[str] = []


@pytest.fixture(autouse=True)
def _no_js_errors():
    ERRORS.clear()
    yield
    assert not ERRORS, ERRORS


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    """(base url, world, campaign id, {name: link url}): a started MQM campaign with a welcome form, a required
    tutorial and codes (pass when at least half the checks are right), and two annotators' links."""
    from enface.campaigns import services as svc
    from enface.crowd import links
    from enface.crowd.setup import check_codes, save_setup

    tmp = tmp_path_factory.mktemp("crowd-browser")
    with live_server(db_template, tmp) as (base, app, _url):
        world = build_world(app, tmp)
        cid = new_campaign(world, annotators=(), redundancy=1, systems=["zephyr-mt"], start=False)
        with app.app_context():
            camp = svc.get_campaign(cid)
            save_setup(camp, welcome_text=json.dumps(WELCOME), tutorial_text=json.dumps(TUTORIAL),
                       codes=check_codes("PASS-7Q", "FAIL-3X", "0.5", "https://panel.example/complete?cc=${CODE}"))
            made = links.create_links(camp, panel_ids_text="P-ALICE\nP-BOB")
            urls = {}
            for m in made:
                links.account_of(m.link)          # both join the draft, so that the start gives each an item
                urls[m.link.label] = f"{base}/crowd/l/{m.secret}"
            svc.start_campaign(svc.get_campaign(cid))
        yield base, world, cid, urls


def _page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    page = ctx.new_page()
    page.on("pageerror", lambda e: ERRORS.append(str(e)))
    return ctx, page


def _select(page, selector: str, start: int, end: int) -> None:
    """Selects characters [start, end) of the element's text with the mouse (a real drag)."""
    box = page.evaluate("""([sel, a, b]) => {
        const el = document.querySelector(sel); const node = el.firstChild; const r = document.createRange();
        r.setStart(node, a); r.setEnd(node, a + 1); const s = r.getBoundingClientRect();
        r.setStart(node, b - 1); r.setEnd(node, b); const e = r.getBoundingClientRect();
        return {x1: s.left + 1, y1: s.top + s.height / 2, x2: e.right - 1, y2: e.top + e.height / 2}; }""",
                        [selector, start, end])
    page.mouse.move(box["x1"], box["y1"])
    page.mouse.down()
    page.mouse.move(box["x2"], box["y2"], steps=5)
    page.mouse.up()


def _consent(page, name: str) -> None:
    page.click("#landing-start")
    page.wait_for_selector("#welcome-submit")
    shot(page, f"{name}-02-welcome")
    page.check("input[name=q_age][value='26-40']")
    page.click("#welcome-submit")                      # consent not given: refused, the answers kept
    page.wait_for_selector("#welcome-error")
    assert "only after agreeing" in page.inner_text("#welcome-error")
    assert page.is_checked("input[name=q_age][value='26-40']")
    shot(page, f"{name}-03-consent-refused")
    page.check("input[name=q_consent]")
    page.check("input[name=q_langs][value='de']")
    page.click("#welcome-submit")
    page.wait_for_selector("#tutorial-translation")


def _loud_item(page, name: str) -> None:
    shot(page, f"{name}-04-tutorial")
    _select(page, "#tutorial-translation", 0, 3)       # "Der": not the error
    assert page.inner_text("#span-shown") == "Der"
    page.check("input[name=severity][value='Major']")
    page.click("#tutorial-submit")
    page.wait_for_selector("#tutorial-feedback")
    assert "a Major accuracy error" in page.inner_text("#tutorial-feedback")
    shot(page, f"{name}-05-tutorial-explained")
    _select(page, "#tutorial-translation", 4, 8)       # "Hund"
    assert page.inner_text("#span-shown") == "Hund"
    page.check("input[name=severity][value='Major']")
    page.click("#tutorial-submit")
    page.wait_for_selector("text=item 2 of 2")
    assert "Right" in page.inner_text("#tutorial-right")


def _read_and_finish(page, name: str) -> None:
    page.wait_for_selector("body[data-ready='1']", timeout=10000)
    shot(page, f"{name}-07-item")
    deadline = time.monotonic() + 30
    while True:
        read = page.evaluate("window.enfaceAnnotate.read()")   # once a round: it changes while we look
        if all(read):
            break
        assert time.monotonic() < deadline, "segments still unread"
        cur = page.evaluate("window.enfaceAnnotate.cursor()")
        want = read.index(False)
        if cur != want:
            page.keyboard.press("j" if cur < want else "k")
        page.wait_for_timeout(100)
    page.keyboard.press("Shift+F")
    page.wait_for_selector("#finish-dialog:not([hidden])")
    page.keyboard.press("Enter")
    page.wait_for_selector("#finished-banner:not([hidden])")
    page.click("#finished-banner >> text=Back to my items")
    page.wait_for_selector("#completion-code")


def test_link_consent_loud_tutorial_work_and_pass_code(live, browser):
    base, world, cid, urls = live
    ctx, page = _page(browser)
    page.goto(urls["P-ALICE"])
    shot(page, "alice-01-landing")
    _consent(page, "alice")
    _loud_item(page, "alice")
    page.check("#span-none")                           # silent item: right (no error)
    shot(page, "alice-06-tutorial-silent")
    page.click("#tutorial-submit")
    _read_and_finish(page, "alice")
    assert page.inner_text("#completion-code") == "PASS-7Q"
    assert page.get_attribute("#completion-redirect", "href") == "https://panel.example/complete?cc=PASS-7Q"
    shot(page, "alice-08-pass-code")
    # nothing else of the site is open to the link's account
    for path in ("/auth/password", f"/campaigns/{cid}", "/submissions"):
        assert page.goto(f"{base}{path}").status == 404
    ctx.close()
    got, table = _codes(world, cid)
    assert ("P-ALICE", "PASS-7Q", "yes") in got and table["P-ALICE"] == ("PASS-7Q", True, 1)


def test_failing_annotator_sees_the_fail_code(live, browser):
    base, world, cid, urls = live
    ctx, page = _page(browser)
    page.goto(urls["P-BOB"])
    _consent(page, "bob")
    _loud_item(page, "bob")
    _select(page, "#tutorial-translation", 0, 2)       # silent item: an error where there is none
    page.check("input[name=severity][value='Minor']")
    page.click("#tutorial-submit")                     # logged, no feedback
    _read_and_finish(page, "bob")
    assert page.inner_text("#completion-code") == "FAIL-3X"
    shot(page, "bob-08-fail-code")
    ctx.close()
    got, table = _codes(world, cid)
    assert ("P-BOB", "FAIL-3X", "no") in got and table["P-BOB"] == ("FAIL-3X", False, 0)


def _codes(world, cid):
    """The codes CSV's (panel id, code, passed) rows, and the crowd page's {panel id: (code, passed, first
    right)}. (Each test checks its own annotator: xdist may run a module's tests apart, each with its world.)"""
    from enface.campaigns import services as svc
    from enface.crowd import reports

    with world.app.app_context():           # (the live app has CSRF on: the organizer's view, by the services)
        rows = reports.codes_csv(svc.get_campaign(cid)).splitlines()
        table = {r.panel_id: (r.code, r.passed, r.tutorial["first_right"]) for r in reports.annotator_rows(
            svc.get_campaign(cid))}
    return sorted((r.split(",")[0], r.split(",")[2], r.split(",")[3]) for r in rows[1:]), table


def test_organizer_sees_links_results_and_codes(live, browser):
    from tests.support.browser import login_page
    from tests.support.campaigns import PASSWORD

    base, world, cid, urls = live
    ctx, page = login_page(browser, base, "org@example.org", PASSWORD, ERRORS, (1280, 1000))
    page.goto(f"{base}/campaigns/{cid}")
    page.click("#crowd-setup-link")
    page.wait_for_selector("#crowd-annotators")
    page.fill("textarea[name=panel_ids]", "P-CAROL")
    page.click("text=Create links")
    page.wait_for_selector("#new-links-text")
    assert "P-CAROL,http" in page.input_value("#new-links-text")
    shot(page, "organizer-crowd-page", full=True)
    rows = page.inner_text("#crowd-annotators")
    assert "P-ALICE" in rows and "P-BOB" in rows
    ctx.close()
