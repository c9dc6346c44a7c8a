"""Real-browser test of the BWS item page: Playwright driving Debian's chromium against a live server.

An annotator judges a tuple by keyboard only (2 best, q worst, Shift+3 moves the worst, 3 as best takes the
worst mark off it), reloads and finds the choice, is asked before finishing (Esc goes back, Enter again
finishes and opens the next item), chooses by mouse on the next, and is refused a finish with only the best
chosen. The organizer's dashboard shows the design before the start and the scores, split-half reliability
and ranking after. Screenshots go to tests/artifacts/bws-*.png.
"""

from __future__ import annotations

from functools import partial

import pytest
from bws_helpers import PASSWORD, annotator_assignments, build_bws_world, new_bws

from tests.support.browser import live_server, login_page, screenshots, twin_app, wait_for_saves

pytestmark = pytest.mark.browser

ERRORS: list[str] = []


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bws-browser")
    with live_server(db_template, tmp) as (base, app, url), twin_app(tmp, url) as twin:
        world = build_bws_world(twin, annotators=1)
        cid = new_bws(world, annotators=("ann1@example.org",), ranges="jade-lantern.1:1-2\nmountain-inn:1-2")
        draft = new_bws(world, annotators=("ann1@example.org",), start=False, passage_segments=2)
        yield base, world, cid, draft


@pytest.fixture(autouse=True)
def _no_js_errors():
    ERRORS.clear()
    yield
    assert not ERRORS, ERRORS


def login(browser, base, email):
    return login_page(browser, base, email, PASSWORD, ERRORS, (1280, 900), console=True)


shot = screenshots("bws", full=True)
wait_saved = partial(wait_for_saves, pending="window.enfaceBws.pending()", what="choices")


def open_item(page, base, public_id):
    page.goto(f"{base}/annotate/item/{public_id}")
    page.wait_for_selector("#bws[data-ready='1']", timeout=10000)


def marks(page):
    """(best label, worst label) as the page shows them."""
    best = page.query_selector(".bw-translation.best")
    worst = page.query_selector(".bw-translation.worst")
    return (best.get_attribute("data-label") if best else None, worst.get_attribute("data-label") if worst else None)


def stored(world, public_id):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        asg = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        live = [r for r in sorted(asg.responses, key=lambda r: r.id) if not r.deleted]
        order = asg.plan["order"]
        return asg.state, (live[-1].data if live else None), order


def test_judge_by_keyboard_reload_and_finish(live, browser):
    base, world, cid, _draft = live
    with world.ctx():
        ids = [a.public_id for a in annotator_assignments(world, cid, "ann1@example.org")]
    first, second = ids[0], ids[1]
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, first)
    assert page.locator(".bw-translation").count() == 4
    assert marks(page) == (None, None)
    page.keyboard.press("2")              # B best
    page.keyboard.press("q")              # A worst
    assert marks(page) == ("B", "A")
    page.keyboard.press("Shift+3")        # C worst instead
    assert marks(page) == ("B", "C")
    page.keyboard.press("3")              # C best: the worst mark comes off C
    assert marks(page) == ("C", None)
    page.keyboard.press("w")              # B worst
    assert marks(page) == ("C", "B")
    wait_saved(page)
    shot(page, "chosen")
    state, data, order = stored(world, first)
    assert state == "started" and data == {"best": order[2], "worst": order[1]}   # slots as shown: A B C D

    page.reload()
    page.wait_for_selector("#bws[data-ready='1']")
    assert marks(page) == ("C", "B")
    assert page.get_attribute(".bw-translation[data-label='C'] .bw-best", "aria-pressed") == "true"
    shot(page, "reloaded")

    page.keyboard.press("Enter")          # asks first: one Enter finishes nothing
    page.wait_for_selector("#finish-confirm:not([hidden])")
    page.wait_for_timeout(300)
    assert stored(world, first)[0] == "started" and first in page.url
    shot(page, "finish-confirm", full=False)
    page.keyboard.press("Escape")
    assert page.locator("#finish-confirm").is_hidden()
    page.keyboard.press("Enter")
    page.wait_for_selector("#finish-confirm:not([hidden])")
    page.keyboard.press("Enter")          # Enter again: finished, the next item opens
    page.wait_for_url(lambda url: first not in url, timeout=10000)
    page.wait_for_selector("#bws[data-ready='1']")
    assert stored(world, first)[0] == "finished"
    assert second in page.url

    # the mouse: Best under D, then finish with only the best chosen: refused with the reason
    page.click(".bw-translation[data-label='D'] .bw-best")
    assert marks(page) == ("D", None)
    page.keyboard.press("Enter")
    page.wait_for_selector("#finish-error:not([hidden])")
    assert "Choose the worst translation first" in page.inner_text("#finish-error")
    page.click(".bw-translation[data-label='A'] .bw-worst")
    page.keyboard.press("Backspace")      # clears both
    assert marks(page) == (None, None)
    page.click(".bw-translation[data-label='A'] .bw-worst")
    page.click(".bw-translation[data-label='D'] .bw-best")
    wait_saved(page)
    shot(page, "mouse", full=False)
    _state, data, order = stored(world, second)
    assert data == {"best": order[3], "worst": order[0]}
    page.click("#finish")
    page.click("#finish-yes")
    page.wait_for_url(lambda url: second not in url, timeout=10000)
    assert stored(world, second)[0] == "finished"
    page.goto(f"{base}/annotate/")
    assert f"2 of {len(ids)} items finished" in page.inner_text("main")
    shot(page, "list", full=False)
    ctx.close()

    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/{cid}#results")
    page.wait_for_selector("#bws-scores")
    assert "Split-half reliability" in page.inner_text("#split-half")
    assert "reference 1" in page.inner_text("#bws-scores")
    page.wait_for_selector("#bws-ranking")
    shot(page, "dashboard")
    from enface.campaigns import services as svc

    with world.ctx():
        svc.release(svc.get_campaign(cid))
    page.goto(f"{base}/leaderboard/{world.testset_id}")
    page.wait_for_selector("th.bws")
    assert page.locator("td.bws:not(.na)").count() >= 1          # the judged systems have a BWS cell
    assert "Human ranking by best–worst scaling" in page.inner_text("#bws-ranking")
    shot(page, "leaderboard")
    ctx.close()


def test_the_design_is_shown_before_start(live, browser):
    base, world, _cid, draft = live
    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/{draft}#design")
    page.wait_for_selector("#design-table")
    assert "2 passages × 5 tuples of 4 translations" in page.inner_text("#design-summary")
    rows = page.locator("#design-table tbody tr")
    assert rows.count() == 5
    assert page.inner_text("#design-table tbody tr:first-child td:nth-child(2)") == "8"
    shot(page, "design")
    ctx.close()
