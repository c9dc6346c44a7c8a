"""Real-browser tests of the ESA page: Playwright driving Debian's chromium against a live server.

An annotator marks error spans by keyboard (words, Shift-extension, severities 1/2, the [missing] marker)
and scores with the slider's keys once the segment has been read; reloads mid-document and finds everything;
marks by mouse (drag, the severity menu, removing), scores by clicking the slider; finishes. The organizer's
dashboard then shows the results. Screenshots: tests/artifacts/esa-*.png.
"""

from __future__ import annotations

import time
from functools import partial

import pytest

from tests.support.browser import live_server, login_page, screenshots, twin_app, wait_for_saves
from tests.support.campaigns import PASSWORD, assignments_of, build_world, new_campaign

pytestmark = pytest.mark.browser

ERRORS: list[str] = []


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("esa-browser")
    with live_server(db_template, tmp) as (base, _app, url), twin_app(tmp, url) as twin:
        yield base, build_world(twin, tmp)   # (the twin has no CSRF: the test's own API calls)


@pytest.fixture(autouse=True)
def _no_js_errors():
    ERRORS.clear()
    yield
    assert not ERRORS, ERRORS


def login(browser, base, email):
    return login_page(browser, base, email, PASSWORD, ERRORS, (1366, 900), console=True)


shot = screenshots("esa")
wait_saved = partial(wait_for_saves, pending="window.enfaceEsa.pending()", what="answers")


def esa(world, email, ranges, seed, **settings):
    return new_campaign(world, protocol="esa", strategy="redundancy", redundancy=1, annotators=(email,),
                        systems=["zephyr-mt"], ranges=ranges, seed=seed,
                        settings_override={"attention_share": 0.0, **settings})


def open_item(page, base, public_id):
    page.goto(f"{base}/annotate/item/{public_id}")
    page.wait_for_selector("#esa[data-ready='1']", timeout=10000)


def wait_read(page, seg, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.evaluate("() => window.enfaceEsa.read()")[seg]:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"segment {seg} still unread")


def stored(world, public_id):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from enface.protocols.esa.responses import live_answers
    from sqlalchemy import select

    with world.ctx():
        a = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        return {seg: ans.to_json() for seg, ans in live_answers(a).items()}, a.state


def test_keyboard_spans_missing_slider_reload_and_finish(live, browser):
    base, world = live
    cid = esa(world, "ann1@example.org", "river.1", 21)
    item = assignments_of(world, cid, "ann1@example.org")[0]
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, item["public_id"])
    slider = page.locator(".esa-seg[data-i='0'] .esa-score input")
    assert slider.is_disabled()          # not read yet
    shot(page, "01-start")
    kb = page.keyboard
    # segment 1 "Der alte Fährmann ruderte ...": words 2-3 major, then [missing] minor
    kb.press("ArrowRight")
    kb.press("Shift+ArrowRight")
    kb.press("2")
    for _ in range(3):                   # the caret is on word 3: back to the first, and round to [missing]
        kb.press("ArrowLeft")
    kb.press("1")
    wait_read(page, 0)
    kb.press("s")
    assert page.evaluate("() => document.activeElement.type") == "range"
    kb.press("ArrowRight")               # the first key scores what the slider shows, +1
    kb.press("PageUp")                   # +10
    wait_saved(page)
    answers, _ = stored(world, item["public_id"])
    spans = answers[0]["spans"]
    text = "Der alte Fährmann ruderte langsam über den grauen Fluss."
    got = [(s["start"], s["end"], s["severity"], s["provenance"]) for s in spans]
    assert got == [
        (4, 16, "major", "human"), ("missing", "missing", "minor", "human")], got
    assert text[4:17] == "alte Fährmann"
    assert answers[0]["score"] == 61
    kb.press("Enter")                    # leaves the slider for the next segment
    assert page.evaluate("() => window.enfaceEsa.cursor()") == 1
    shot(page, "02-keyboard-marked")
    # reload mid-document: the spans, the score and the reading survive
    page.reload()
    page.wait_for_selector("#esa[data-ready='1']")
    seg0 = page.locator(".esa-seg[data-i='0']")
    assert seg0.locator(".tok.in.sev-major").count() == 2
    assert seg0.locator(".esa-missing.sev-minor").count() == 1
    assert seg0.locator(".esa-value").inner_text() == "61"
    assert page.evaluate("() => window.enfaceEsa.read()")[0]
    # the letters differ as well as the colours
    assert seg0.locator(".tok.span-end.sev-major").get_attribute("data-sev") == "Ma"
    assert seg0.locator(".esa-missing").get_attribute("data-sev") == "Mi"
    # Enter before everything is scored: told, not finished
    page.locator("#esa").focus()
    kb.press("Enter")
    assert page.locator("#finish-confirm").is_hidden()
    for seg in range(1, item["segments"]):
        page.evaluate(f"() => document.querySelector(\".esa-seg[data-i='{seg}']\").dispatchEvent(new MouseEvent('mousedown', {{bubbles: true}}))")
        wait_read(page, seg)
        kb.press("s")
        kb.press("End")                  # 100
        kb.press("Enter")
    wait_saved(page)
    answers, _ = stored(world, item["public_id"])
    assert [answers[s]["score"] for s in range(item["segments"])] == [61, 100, 100, 100]
    page.locator("#esa").focus()
    kb.press("Enter")
    page.wait_for_selector("#finish-confirm:not([hidden])")
    shot(page, "03-finish-confirm")
    kb.press("Enter")
    page.wait_for_url(f"{base}/annotate/")
    assert stored(world, item["public_id"])[1] == "finished"
    ctx.close()


def _drag(page, seg, first, last):
    text = page.locator(f".esa-seg[data-i='{seg}'] .esa-text")
    a = text.locator(".tok").nth(first).bounding_box()
    b = text.locator(".tok").nth(last).bounding_box()
    page.mouse.move(a["x"] + 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=5)   # ends mid-word: snaps
    page.mouse.up()


def test_mouse_spans_menu_slider_and_reload(live, browser):
    base, world = live
    cid = esa(world, "ann2@example.org", "orchard", 22)
    item = assignments_of(world, cid, "ann2@example.org")[0]
    ctx, page = login(browser, base, "ann2@example.org")
    open_item(page, base, item["public_id"])
    # "Meine Großmutter pflanzte den Obstgarten vor dem Krieg.": drag over words 2-3, choose major
    _drag(page, 0, 1, 2)
    page.wait_for_selector("#esa-pop:not([hidden])")
    shot(page, "04-mouse-menu")
    page.click("#esa-pop [data-severity='major']")
    # one click on a word, minor; then the menu on that word removes it
    page.locator(".esa-seg[data-i='0'] .esa-text .tok").nth(4).click()
    page.click("#esa-pop [data-severity='minor']")
    page.locator(".esa-seg[data-i='0'] .esa-text .tok").nth(4).click()
    page.click("#esa-pop .remove")
    # [missing] by mouse
    page.locator(".esa-seg[data-i='0'] .esa-missing").click()
    page.click("#esa-pop [data-severity='major']")
    wait_read(page, 0)
    box = page.locator(".esa-seg[data-i='0'] .esa-score input").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.25, box["y"] + box["height"] / 2)   # about 25
    wait_saved(page)
    answers, _ = stored(world, item["public_id"])
    spans = [(s["start"], s["end"], s["severity"]) for s in answers[0]["spans"]]
    assert spans == [(6, 24, "major"), ("missing", "missing", "major")]
    assert 15 <= answers[0]["score"] <= 35
    shot(page, "05-mouse-marked")
    page.reload()
    page.wait_for_selector("#esa[data-ready='1']")
    assert page.locator(".esa-seg[data-i='0'] .tok.in.sev-major").count() == 3   # 2 words + [missing]
    assert page.locator(".esa-seg[data-i='0'] .esa-spanlist li").count() == 2
    # removing from the list of errors
    page.locator(".esa-seg[data-i='0'] .esa-spanlist button").first.click()
    wait_saved(page)
    answers, _ = stored(world, item["public_id"])
    assert [s["start"] for s in answers[0]["spans"]] == ["missing"]
    ctx.close()


def test_the_organizer_sees_the_results(live, browser):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from esa_helpers import answer_everything
    from sqlalchemy import select

    base, world = live
    cid = esa(world, "ann3@example.org", "river.1\norchard", 23, attention_share=1.0)
    with world.ctx():
        bad = {a.id for a in db.session.scalars(select(Assignment).where(Assignment.campaign_id == cid))
               if (a.plan or {}).get("bad")}
    assert len(bad) == 2      # 7 BAD segments: enough pairs for the one-sided test to pass at 0.05
    answer_everything(world, cid, lambda email, a, seg, text: (5 if a["id"] in bad else 60) + 10 * seg,
                      annotators=("ann3@example.org",),
                      spans=lambda email, a, seg, text: [{"start": 0, "end": 3, "severity": "minor"}])
    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/{cid}")
    page.wait_for_selector("#esa-systems")
    assert "zephyr-mt" in page.inner_text("#esa-systems")
    assert page.locator("#esa-attention tr[data-rater='rater1'] .verdict").inner_text() == "pass"
    assert page.locator("#progress-table .esa-bad-row").count() == 2
    shot(page, "06-dashboard", full=True)
    page.goto(f"{base}/campaigns/{cid}/results")
    page.wait_for_selector("#esa-systems")
    shot(page, "07-results", full=True)
    # the organizer's read-only view of a finished item: the answers, nothing to change
    page.goto(f"{base}/campaigns/{cid}")
    page.locator("#progress-table a", has_text="view").first.click()
    page.wait_for_selector("#esa[data-ready='1']")
    assert page.locator(".esa-status", has_text="Read-only view").count() == 1
    assert page.locator(".esa-score input:disabled").count() == page.locator(".esa-seg").count()
    assert page.locator(".esa-seg.scored").count() == page.locator(".esa-seg").count()
    assert page.locator("#finish").count() == 0
    ctx.close()
