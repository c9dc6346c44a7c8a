# ruff: noqa: F811  (the fixtures are imported from test_browser.py, as in test_browser_fixes.py)
"""The MQM page as annotators found it (issue 15), in a real browser: the sticky column header leaves no
gap for scrolled text, "--" is one word, after Finish the "next item" link is on screen, and the scheme's
definitions say "source". Screenshots: tests/artifacts/mqm-ux-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_browser import (  # noqa: F401  (the fixtures: pytest finds them in this module's namespace)
    _no_js_errors,
    live,
    login,
    open_item,
    read_to_end,
    shot,
)

from tests.support.campaigns import assignments_of, new_campaign

pytestmark = pytest.mark.browser

# Two animation frames: the page's ResizeObserver moves the column header under a top bar that changed
# height before the next paint, but a measurement taken right after a resize may run before it.
SETTLED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"
GAP = ("document.querySelector('.cols').getBoundingClientRect().top"
       " - document.querySelector('#topbar').getBoundingClientRect().bottom")


def _settled_gap(page, seconds: float = 2.0) -> float:
    """The gap under the top bar once the page has followed a resize, or as it stands after ``seconds``:
    on a busy machine the new viewport reaches the layout some frames after set_viewport_size returns
    (a whole CI run once measured the old top bar's height two frames after a resize)."""
    try:
        page.wait_for_function(f"() => {{ const g = {GAP}; return g >= -1.5 && g <= 0; }}",
                               timeout=seconds * 1000, polling="raf")
    except PlaywrightTimeout:
        pass
    return page.evaluate(f"() => {GAP}")


def test_sticky_header_dashes_definitions_and_the_next_item(live, browser):
    base, world = live
    cid = new_campaign(world, annotators=("ann3@example.org",), redundancy=1, ranges="river.1\norchard", seed=90)
    items = assignments_of(world, cid, "ann3@example.org")
    assert len(items) >= 2
    ctx, page = login(browser, base, "ann3@example.org")
    page.set_viewport_size({"width": 1280, "height": 520})
    open_item(page, base, items[0]["public_id"])

    # "--" is one word, as a person reads it (a dash), not two
    counts = page.evaluate("""() => ['a -- b', 'well---no', 'so...', 'x - y'].map(
        t => window.enfaceAnnotate.tokens(t).map(k => t.slice(k.a16, k.b16)))""")
    assert counts == [["a", "--", "b"], ["well", "---", "no"], ["so", "..."], ["x", "-", "y"]]

    # the sticky column header meets the top bar: nothing shows through between them once scrolled
    page.evaluate("window.scrollTo(0, 400)")
    page.wait_for_timeout(100)
    gap = page.evaluate("""() => {
        const bar = document.querySelector('#topbar').getBoundingClientRect();
        const cols = document.querySelector('.cols').getBoundingClientRect();
        return cols.top - bar.bottom; }""")
    assert -1.5 <= gap <= 0, f"{gap} px between the top bar and the column header (< 0: hidden under it)"
    # ... also after the top bar changed height (its texts wrap to another row, or back)
    for width in (900, 1280, 700):
        page.set_viewport_size({"width": width, "height": 520})
        page.evaluate("document.querySelector('#progress-text').textContent += ' and a much longer status text'")
        gap = _settled_gap(page)
        assert -1.5 <= gap <= 0, f"{gap} px at {width} px wide"
    page.set_viewport_size({"width": 1280, "height": 520})
    page.evaluate(SETTLED)
    hit = page.evaluate("""() => {
        const bar = document.querySelector('#topbar').getBoundingClientRect();
        const x = document.querySelector('.cols').getBoundingClientRect().left + 200;
        const el = document.elementFromPoint(x, bar.bottom + 0.5);
        return el.closest('.cols') ? 'cols' : el.closest('#topbar') ? 'topbar' : el.className || el.tagName; }""")
    assert hit in ("cols", "topbar"), hit
    shot(page, "ux-01-sticky-header")

    # the scheme's definitions say "source", never "the raw"
    text = page.inner_text("body") + page.evaluate("JSON.stringify(window.enfaceAnnotate.scheme())")
    assert "the raw" not in text and "not present in the source" in text

    # finish: the "next item" link is on screen, and has the focus
    read_to_end(page)
    page.keyboard.press("Shift+F")
    page.wait_for_selector("#finish-dialog:not([hidden])")
    page.keyboard.press("Enter")
    page.wait_for_selector("#next-link:not([hidden])")
    page.wait_for_timeout(300)
    box = page.locator("#next-link").bounding_box()
    top_bar = page.locator("#topbar").bounding_box()
    assert box is not None and box["y"] >= top_bar["y"] + top_bar["height"] - 1 and box["y"] + box["height"] <= 520
    assert page.evaluate("document.activeElement.id") == "next-link"
    shot(page, "ux-02-finished-next-in-view")
    ctx.close()


def test_a_long_list_is_grouped_by_document(live, browser):
    """The annotator's list: one group per document with its count; a finished document folds away."""
    from tests.support.campaigns import finish, read_all

    base, world = live
    cid = new_campaign(world, annotators=("ann4@example.org",), redundancy=1, ranges="river.1\norchard", seed=91)
    items = assignments_of(world, cid, "ann4@example.org")
    by_doc: dict[str, list] = {}
    for a in items:
        by_doc.setdefault(a["document"], []).append(a)
    assert len(by_doc) == 2
    done_doc = sorted(by_doc)[0]
    world.app.config["WTF_CSRF_ENABLED"] = False   # (set-up through the API, as the rankings tests do)
    try:
        c = world.client("ann4@example.org")
        for a in by_doc[done_doc]:
            assert read_all(c, a["public_id"], a["segments"]).status_code == 200
            assert finish(c, a["public_id"]).status_code == 200
    finally:
        world.app.config["WTF_CSRF_ENABLED"] = True
    ctx, page = login(browser, base, "ann4@example.org")
    page.goto(f"{base}/annotate/")
    section = page.locator("h2", has_text=world_campaign(world, cid)).locator("xpath=following-sibling::details")
    groups = {g.get_attribute("data-document"): g for g in section.all()}
    assert set(by_doc) <= set(groups)
    for doc, rows in by_doc.items():
        group = groups[doc]
        assert group.locator("tbody tr").count() == len(rows)
        finished = doc == done_doc
        assert f"{len(rows) if finished else 0} of {len(rows)} finished" in group.locator("summary").inner_text()
        assert (group.get_attribute("open") is None) is finished      # finished: folded away
    shot(page, "ux-03-list-by-document")
    ctx.close()

    # the organizer's Items table: the same groups (one annotator per item, so a document is done when its are)
    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/{cid}")
    groups = {g.get_attribute("data-document"): g for g in page.locator("#items-table details.doc-group").all()}
    assert set(groups) == set(by_doc)
    for doc, rows in by_doc.items():
        finished = doc == done_doc
        assert groups[doc].locator("tbody tr").count() == len(rows)
        assert f"{len(rows) if finished else 0} of {len(rows)} items finished" in groups[doc].locator("summary").inner_text()
        assert (groups[doc].get_attribute("open") is None) is finished
    page.locator("#items").scroll_into_view_if_needed()
    shot(page, "ux-04-dashboard-items-by-document")
    ctx.close()


def world_campaign(world, cid: int) -> str:
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    with world.app.app_context():
        return db.session.get(Campaign, cid).name
