# ruff: noqa: F811  (the fixture is imported from test_rubric_browser.py, as test_browser_ux.py does)
"""Long lists read by document (issue 15), in a real browser: a rubric campaign of 45 items for one annotator.
The annotator's list and the organizer's progress table show one group per document with its count
(done of total), in name order; a document whose items are all finished folds away (<details> closed).
Screenshots: tests/artifacts/lists-*.png."""

from __future__ import annotations

from collections import Counter

import pytest
from rubric_helpers import annotator_assignments
from test_rubric_browser import ERRORS, live, login  # noqa: F401  (the fixture: its own campaign in this module)

from tests.support.browser import screenshots

pytestmark = pytest.mark.browser

shot = screenshots("lists", full=True)


def finish_first_document(world, cid: int) -> tuple[Counter, str]:
    """Marks every item of the first document (by name) finished, straight in the database (set-up only:
    the scoring flow has its own tests); returns the items per document and that document."""
    from datetime import UTC, datetime

    from enface.extensions import db

    with world.ctx():
        asgs = annotator_assignments(world, cid, "ann1@example.org")
        per_doc = Counter(a.item.document.name for a in asgs)
        first = sorted(per_doc)[0]
        for a in asgs:
            if a.item.document.name == first:
                a.state, a.finished_at = "finished", datetime.now(UTC)
        db.session.commit()
    return per_doc, first


def groups_of(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(selector, """els => els.map(d => ({
        doc: d.dataset.document, open: d.open, summary: d.querySelector('summary').innerText,
        rows: d.querySelectorAll('tbody tr').length}))""")


def check_groups(groups: list[dict], per_doc: Counter, finished: str, noun: str) -> None:
    assert [g["doc"] for g in groups] == sorted(per_doc)             # one group per document, in name order
    assert sum(g["rows"] for g in groups) == sum(per_doc.values())   # every row is in a group
    for g in groups:
        n = per_doc[g["doc"]]
        assert g["rows"] == n
        assert f"{n if g['doc'] == finished else 0} of {n} {noun}" in g["summary"]
        assert g["open"] is (g["doc"] != finished)                   # a finished document is folded away


def test_annotator_list_and_dashboard_group_by_document(live, browser):
    base, world, cid = live
    per_doc, finished = finish_first_document(world, cid)
    assert sum(per_doc.values()) >= 40 and len(per_doc) >= 2, per_doc

    ctx, page = login(browser, base, "ann1@example.org")
    page.goto(f"{base}/annotate/")
    groups = groups_of(page, "details.doc-group")
    check_groups(groups, per_doc, finished, "finished")
    folded = page.locator(f"details.doc-group[data-document='{finished}']")
    assert not folded.locator("tbody tr").first.is_visible()          # folded: its rows are hidden ...
    shot(page, "01-annotator-list")
    folded.locator("summary").click()                                 # ... until its summary is clicked
    assert folded.locator("tbody tr").first.is_visible()
    ctx.close()

    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/{cid}")
    page.locator("#progress-table").locator("xpath=ancestor::details[1]/summary").click()  # "Every assignment"
    groups = groups_of(page, "#progress-table details.doc-group")
    check_groups(groups, per_doc, finished, "finished")
    assert not page.locator(f"#progress-table details[data-document='{finished}'] tbody tr").first.is_visible()
    page.locator("#progress").scroll_into_view_if_needed()
    shot(page, "02-dashboard-progress")
    ctx.close()
    assert not ERRORS, ERRORS
