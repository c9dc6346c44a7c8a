"""A real browser walks the demo's released results: leaderboard → a score cell → its evidence (scores by
document) → a document's segments en face with MQM spans → a diff of two systems → the MQM span list,
filtered. Screenshots go to tests/artifacts/browse-*.png."""

from __future__ import annotations

import re

import pytest

from tests.support.browser import chromium, live_server, log_in, screenshots
from tests.support.campaigns import PASSWORD
from tests.support.demo import build_demo

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browse")
    with live_server(db_template, tmp) as (base, app, _url):
        yield base, build_demo(app)


shot = screenshots("browse", full=True)


def test_leaderboard_cell_evidence_diff_and_span_filter(live):
    base, demo = live
    ts = demo.testset_id
    errors: list[str] = []
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{base}/leaderboard/{ts}")
        shot(page, "1-leaderboard")
        row = page.locator("tr.entry", has_text="lantern-nmt")
        bleu = row.locator("a.evidence").first
        value = bleu.inner_text()
        bleu.click()
        page.wait_for_url(re.compile(rf"/browse/{ts}/system/{demo.subs['lantern-nmt']}\?metric=bleu"))
        # the evidence: the system's per-document scores, the corpus score it came from at the foot
        assert page.locator("#doc-scores tbody tr").count() == 3
        assert page.locator("#doc-scores tfoot th.chosen").inner_text() == value
        shot(page, "2-scores-by-document")
        page.locator("#doc-scores tbody tr", has_text="jade-lantern.1").locator("a").first.click()
        page.wait_for_url(re.compile(r"/doc/jade-lantern\.1\?sys="))
        page.locator("label.check", has_text="inkstone-llm").locator("input").check()
        page.locator("#choose-systems button[type=submit]").click()
        page.wait_for_load_state("load")
        heads = page.locator("table.enface thead th").all_inner_texts()
        # the demo keeps its references private ("references public" off): released outputs, no references
        assert heads == ["#", "Source", "lantern-nmt", "inkstone-llm"]
        assert "林清远推开铺子的木门时" in page.locator("table.enface").inner_text()
        marks = page.locator("mark.span")
        assert marks.count() > 10
        untranslated = page.locator("mark.span", has_text="泛着水光").first
        assert "Untranslated text · Major · rater1" in untranslated.get_attribute("title")
        shot(page, "3-document-en-face")
        page.locator("#diff-link").click()
        page.wait_for_url(re.compile(r"/diff\?"))
        assert page.locator("del.d").count() > 0 and page.locator("ins.d").count() > 0
        assert "She" in page.locator("tr#l4").inner_text()
        shot(page, "4-diff")
        page.goto(f"{base}/leaderboard/{ts}")
        page.locator("tr.entry", has_text="inkstone-llm").locator("td.mqm a").click()
        page.wait_for_url(re.compile(rf"/spans\?system={demo.subs['inkstone-llm']}"))
        total = page.locator("tr.span-row").count()
        page.select_option("#f-severity", "Major")
        page.select_option("#f-rater", "rater1")
        page.locator("#span-filters button[type=submit]").click()
        page.wait_for_url(re.compile(r"severity=Major"))
        assert "rater=rater1" in page.url and f"system={demo.subs['inkstone-llm']}" in page.url
        sev = page.locator("tr.span-row").evaluate_all("rows => rows.map(r => r.dataset.severity)")
        assert sev and set(sev) == {"Major"} and len(sev) < total
        assert set(page.locator("tr.span-row td:nth-child(4)").all_inner_texts()) == {"rater1"}
        shot(page, "5-spans-filtered")
        # the link is shareable: a fresh page on the same address shows the same rows
        other = browser.new_page()
        other.goto(page.url)
        assert other.locator("tr.span-row").count() == len(sev)
        # the organizer sees freeze and licence controls on the downloads page
        org = browser.new_page(viewport={"width": 1400, "height": 900})
        log_in(org, base, "org@example.org", PASSWORD, wait="load")
        org.goto(f"{base}/browse/{ts}/downloads")
        org.locator("#release-controls button[value=freeze]").click()
        org.wait_for_load_state("load")
        assert "Leaderboard frozen at" in org.inner_text("body")
        shot(org, "6-downloads-organizer")
    assert not errors, errors
