"""Real-browser tests of the contrastive ESA page (Playwright driving Debian's chromium): the translations
side by side, spans and scores by keyboard and by mouse, the low-score warning, the stored order kept
across a reload, finishing; then the organizer's dashboard. Screenshots: tests/artifacts/cesa-*.png."""

from __future__ import annotations

from functools import partial

import pytest

from tests.support.browser import live_server, login_page, screenshots, twin_app, wait_for_saves
from tests.support.campaigns import PASSWORD, assignments_of, build_world, new_campaign

pytestmark = pytest.mark.browser

ERRORS: list[str] = []
SYSTEMS = ["zephyr-mt", "quokka-nmt", "walrus-baseline"]


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cesa-browser")
    with live_server(db_template, tmp) as (base, _app, url), twin_app(tmp, url) as twin:
        yield base, build_world(twin, tmp)


@pytest.fixture(autouse=True)
def _no_js_errors():
    ERRORS.clear()
    yield
    assert not ERRORS, ERRORS


shot = screenshots("cesa")
wait_saved = partial(wait_for_saves, pending="window.enfaceCesa.pending()", what="answers")


def cesa(world, email, ranges, seed):
    return new_campaign(world, protocol="cesa", strategy="redundancy", redundancy=1, annotators=(email,),
                        systems=SYSTEMS, ranges=ranges, seed=seed, settings_override={})


def stored(world, public_id):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from enface.protocols.cesa.answers import live_answers
    from sqlalchemy import select

    with world.ctx():
        a = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        return {k: v.to_json() for k, v in live_answers(a).items()}, a.state, list(a.plan["order"])


def open_item(page, base, public_id):
    page.goto(f"{base}/annotate/item/{public_id}")
    page.wait_for_selector("#cesa[data-ready='1']", timeout=10000)


def column_texts(page):
    return [t.inner_text() for t in page.locator(".cesa-col .cesa-text").all()]


def test_keyboard_warning_reload_and_finish(live, browser):
    base, world = live
    cid = cesa(world, "ann1@example.org", "river.1", 31)
    item = assignments_of(world, cid, "ann1@example.org")[0]
    ctx, page = login_page(browser, base, "ann1@example.org", PASSWORD, ERRORS, (1366, 900), console=True)
    open_item(page, base, item["public_id"])
    assert page.locator(".cesa-col").count() == 3
    before = column_texts(page)
    shot(page, "01-start")
    kb = page.keyboard
    # translation A: words 2-3 major; then [missing] minor (round the words to the left)
    kb.press("ArrowRight")
    kb.press("Shift+ArrowRight")
    kb.press("2")
    for _ in range(3):                   # the caret is on word 3: back to the first, and round to [missing]
        kb.press("ArrowLeft")
    kb.press("1")
    kb.press("s")
    assert page.evaluate("() => document.activeElement.type") == "range"
    kb.press("End")
    kb.press("PageDown")                 # 90
    kb.press("Enter")                    # back to the page
    # translation B: a low score and no span: the warning shows
    kb.press("l")
    kb.press("s")
    kb.press("Home")
    kb.press("PageUp")
    kb.press("PageUp")                   # 20
    kb.press("Escape")
    warning = page.locator(".cesa-col[data-col='1'] .cesa-warning")
    assert warning.is_visible()
    assert "below 50" in warning.inner_text()
    assert page.locator(".cesa-col[data-col='0'] .cesa-warning").is_hidden()
    shot(page, "02-keyboard-warning")
    wait_saved(page)
    answers, _state, order = stored(world, item["public_id"])
    assert [(s["start"], s["end"], s["severity"]) for s in answers[(0, 0)]["spans"]][0][2] == "major"
    assert answers[(0, 0)]["spans"][1]["start"] == "missing"
    assert answers[(0, 0)]["score"] == 90 and answers[(0, 1)]["score"] == 20
    # marking an error in B takes the warning away
    kb.press("ArrowRight")
    kb.press("1")
    assert warning.is_hidden()
    wait_saved(page)
    # reload: the same order of the translations, and every mark and score
    page.reload()
    page.wait_for_selector("#cesa[data-ready='1']")
    assert column_texts(page) == before
    assert stored(world, item["public_id"])[2] == order
    assert page.locator(".cesa-col[data-col='0'] .w.esa-major").count() == 2
    assert page.locator(".cesa-col[data-col='0'] .cesa-missing.esa-minor").count() == 1
    assert page.locator(".cesa-col[data-col='0'] .cesa-value").inner_text() == "90"
    assert page.locator(".cesa-col[data-col='1'] .cesa-value").inner_text() == "20"
    # Enter before everything is scored: told, not finished
    kb.press("Enter")
    page.wait_for_selector("#finish-error:not([hidden])")
    assert "score every translation" in page.inner_text("#finish-error")
    for seg in range(item["segments"]):
        for col in range(3):
            if seg == 0 and col < 2:
                continue
            page.locator("#cesa").focus()
            for _ in range(3):
                kb.press("h")
            for _ in range(col):
                kb.press("l")
            kb.press("s")
            kb.press("End")
            kb.press("Enter")
        kb.press("j")
    wait_saved(page)
    answers, _state, _order = stored(world, item["public_id"])
    assert len(answers) == 3 * item["segments"]
    page.locator("#cesa").focus()
    kb.press("Enter")
    page.wait_for_url(f"{base}/annotate/")
    assert stored(world, item["public_id"])[1] == "finished"
    ctx.close()


def test_mouse_spans_menu_slider_and_reload(live, browser):
    base, world = live
    cid = cesa(world, "ann2@example.org", "orchard", 32)
    item = assignments_of(world, cid, "ann2@example.org")[0]
    ctx, page = login_page(browser, base, "ann2@example.org", PASSWORD, ERRORS, (1366, 900), console=True)
    open_item(page, base, item["public_id"])
    col = page.locator(".cesa-col[data-col='2']")
    words = col.locator(".cesa-text .w")
    a, b = words.nth(1).bounding_box(), words.nth(2).bounding_box()
    page.mouse.move(a["x"] + 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=5)
    page.mouse.up()
    page.wait_for_selector("#cesa-pop:not([hidden])")
    shot(page, "03-mouse-menu")
    page.click("#cesa-pop [data-severity='major']")
    words.nth(4).click()                                   # one word, minor, then removed again
    page.click("#cesa-pop [data-severity='minor']")
    words.nth(4).click()
    page.click("#cesa-pop .remove")
    col.locator(".cesa-missing").click()
    page.click("#cesa-pop [data-severity='minor']")
    box = col.locator("input[type=range]").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2)   # about 30, with spans: no warning
    assert col.locator(".cesa-warning").is_hidden()
    wait_saved(page)
    answers, _state, _order = stored(world, item["public_id"])
    spans = answers[(0, 2)]["spans"]
    assert [s["severity"] for s in spans] == ["major", "minor"] and spans[1]["start"] == "missing"
    assert 20 <= answers[(0, 2)]["score"] <= 40
    shot(page, "04-mouse-marked")
    page.reload()
    page.wait_for_selector("#cesa[data-ready='1']")
    assert page.locator(".cesa-col[data-col='2'] .w.esa-major").count() == 2
    assert page.locator(".cesa-col[data-col='2'] .w.esa-major.span-end").get_attribute("data-sev") == "Ma"
    assert page.locator(".cesa-col[data-col='2'] .cesa-missing").get_attribute("data-sev") == "Mi"
    page.locator(".cesa-col[data-col='2'] .cesa-spans button").first.click()   # × in the list
    wait_saved(page)
    answers, _state, _order = stored(world, item["public_id"])
    assert [s["start"] for s in answers[(0, 2)]["spans"]] == ["missing"]
    ctx.close()


def test_the_organizer_sees_the_results(live, browser):
    import uuid

    base, world = live
    cid = cesa(world, "ann3@example.org", "river.1", 33)
    item = assignments_of(world, cid, "ann3@example.org")[0]
    c = world.client("ann3@example.org")
    _answers, _state, order = stored(world, item["public_id"])
    for seg in range(item["segments"]):
        for col in range(3):
            r = c.put(f"/annotate/api/items/{item['public_id']}/responses/{uuid.uuid4()}",
                      json={"rev": 1, "kind": "segment", "key": f"{seg}:{col}",
                            "data": {"score": 40 + 20 * col, "spans": []}})
            assert r.status_code == 200, r.get_json()
    assert c.post(f"/annotate/api/items/{item['public_id']}/finish", json={}).status_code == 200
    ctx, page = login_page(browser, base, "org@example.org", PASSWORD, ERRORS, (1366, 900), console=True)
    page.goto(f"{base}/campaigns/{cid}")
    page.wait_for_selector("#esa-systems")
    assert all(s in page.inner_text("#esa-systems") for s in SYSTEMS)
    assert page.locator("#progress-table td").nth(6).inner_text() == str(item["segments"])   # the 40s, no span
    shot(page, "05-dashboard", full=True)
    page.locator("#progress-table a", has_text="view").first.click()
    page.wait_for_selector("#cesa[data-ready='1']")
    assert page.locator(".esa-status", has_text="Read-only view").count() == 1
    assert page.locator(".cesa-col input[type=range]:disabled").count() == 3
    assert page.locator("#finish").count() == 0
    ctx.close()
