"""ESA^AI in a real browser (Playwright driving Debian's chromium): suggestions pre-filled and drawn apart,
one kept, one edited (mouse), one deleted, one restored, a span of the annotator's own (keyboard), scores
on the slider; then a reload finds every span with its provenance, and the server has recorded it.
Screenshots go to tests/artifacts/esa-ai/."""

from __future__ import annotations

import json
import time
from functools import partial

import pytest

from tests.support.browser import live_server, login_page, screenshots, wait_for_saves
from tests.support.campaigns import OUTPUTS, PASSWORD, assignments_of, build_world, new_campaign

pytestmark = pytest.mark.browser

ANN = "ann1@example.org"
ERRORS: list[str] = []
shot = screenshots("esa-ai")
wait_saved = partial(wait_for_saves, pending="window.enfaceEsa ? window.enfaceEsa.pending() : -1", what="answers")
ORCHARD = OUTPUTS["orchard"]


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("esa-ai-browser")
    with live_server(db_template, tmp) as (base, app, _url):
        yield base, build_world(app, tmp)


@pytest.fixture(autouse=True)
def _no_js_errors():
    ERRORS.clear()
    yield
    assert not ERRORS, ERRORS


def suggested_campaign(world) -> int:
    from enface.campaigns import services as svc
    from enface.protocols.esa.suggestions.source import upload_file

    cid = new_campaign(world, protocol="esa", strategy="document", redundancy=1, start=False, annotators=(ANN,),
                       systems=["zephyr-mt"], ranges="orchard",
                       settings_override={"attention_share": 0.0, "words_per_second": 1000})
    lines = [{"item": "orchard:1", "system": "zephyr-mt", "score": 45,
              "spans": [{"text": "Großmutter", "severity": "minor"}, {"text": "Krieg", "severity": "major"}]},
             {"item": "orchard:2", "system": "zephyr-mt", "score": 60, "spans": [{"text": "Herbst", "severity": "major"}]},
             {"item": "orchard:3", "system": "zephyr-mt", "score": 96, "spans": []}]
    with world.ctx():
        upload_file(svc.get_campaign(cid), "spans.jsonl", "".join(json.dumps(x) + "\n" for x in lines).encode())
        svc.start_campaign(svc.get_campaign(cid))
    return cid


def records(world, public_id) -> dict[int, list[tuple]]:
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from enface.protocols.esa.responses import live_answers
    from sqlalchemy import select

    with world.ctx():
        asg = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        return {seg: [(s.provenance, s.severity, ORCHARD[seg][s.start:s.end + 1] if s.start is not None else None)
                      for s in a.spans] for seg, a in live_answers(asg).items()}


def word(page, seg, text):
    return page.locator(f".esa-seg[data-i='{seg}'] .esa-text .tok", has_text=text).first


def score(page, seg, presses):
    page.locator(f".esa-seg[data-i='{seg}'] .esa-score input").focus()
    for _ in range(presses):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Escape")


def wait_read(page, n=3, timeout=20.0):
    """Reads segment after segment as a person does: stays on each until its score opens."""
    deadline = time.monotonic() + timeout
    for i in range(n):
        page.locator(f".esa-seg[data-i='{i}'] .esa-num").click()
        while not page.evaluate("window.enfaceEsa.read()")[i]:
            assert time.monotonic() < deadline, f"segment {i + 1} was not read in time"
            page.mouse.move(5 + i, 5)          # (the reading clock counts while the annotator is active)
            page.wait_for_timeout(100)


def test_suggestions_kept_edited_deleted_then_reload(live, browser):
    base, world = live
    cid = suggested_campaign(world)
    item = assignments_of(world, cid, ANN)[0]
    ctx, page = login_page(browser, base, ANN, PASSWORD, ERRORS, (1366, 900))
    page.goto(f"{base}/annotate/item/{item['public_id']}")
    page.wait_for_selector(".esa-seg[data-i='2'] .esa-score")
    # pre-filled and drawn apart: hatched with a dashed outline, an "AI" tag in the list
    assert page.locator(".esa-text .suggested-kept").count() == 3       # Großmutter, Krieg, Herbst
    assert page.locator(".esa-spanlist li.esa-ai-kept .esa-ai-tag").count() == 3
    outline = word(page, 0, "Krieg").evaluate("e => getComputedStyle(e).outlineStyle")
    assert outline == "dashed"
    shot(page, "01-suggestions-prefilled")
    wait_read(page)
    # segment 1: Großmutter kept as it is; Krieg edited with the mouse (major -> minor)
    word(page, 0, "Krieg").click()
    page.wait_for_selector("#esa-pop:not([hidden])")
    shot(page, "02-edit-a-suggestion")
    page.locator("#esa-pop [data-severity='minor']").click()
    assert "suggested-edited" in word(page, 0, "Krieg").get_attribute("class")
    assert "suggested-kept" in word(page, 0, "Großmutter").get_attribute("class")
    score(page, 0, 3)
    # segment 2: the Herbst suggestion deleted from the list, a span of the annotator's own by keyboard
    page.locator(".esa-seg[data-i='1'] .esa-spanlist li.esa-ai-kept button").click()
    assert page.locator(".esa-seg[data-i='1'] .esa-text .in").count() == 0
    assert page.locator(".esa-seg[data-i='1'] .esa-ai-deleted").count() == 1
    page.locator(".esa-seg[data-i='1'] .esa-num").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")      # the third word, "fielen"
    page.keyboard.press("1")               # minor
    score(page, 1, 1)
    # segment 3 had no suggestion: scored only
    score(page, 2, 5)
    wait_saved(page)
    shot(page, "03-kept-edited-deleted")
    got = records(world, item["public_id"])
    assert got[0] == [("kept", "minor", "Großmutter"), ("edited", "minor", "Krieg")], got
    assert sorted(got[1]) == [("deleted", "major", "Herbst"), ("human", "minor", "fielen")], got
    assert got[2] == []
    # reload: every span comes back with its provenance, drawn as before
    page.reload()
    page.wait_for_selector(".esa-seg[data-i='2'] .esa-score")
    assert "suggested-kept" in word(page, 0, "Großmutter").get_attribute("class")
    assert "suggested-edited" in word(page, 0, "Krieg").get_attribute("class")
    assert page.locator(".esa-seg[data-i='1'] .esa-ai-deleted").count() == 1
    assert page.locator(".esa-seg[data-i='1'] .esa-text .suggested-kept").count() == 0
    shot(page, "04-after-reload")
    # the deleted suggestion restored from the list: kept again
    page.locator(".esa-seg[data-i='1'] .esa-ai-deleted button").click()
    wait_saved(page)
    assert records(world, item["public_id"])[1] == [("kept", "major", "Herbst"), ("human", "minor", "fielen")]
    shot(page, "05-restored")
    # marking over a deleted suggestion takes it over: it is that suggestion, edited
    page.locator(".esa-seg[data-i='1'] .esa-spanlist li.esa-ai-kept button").click()
    page.locator(".esa-seg[data-i='1'] .esa-num").click()
    page.keyboard.press("ArrowRight")      # "Herbst" again
    page.keyboard.press("1")
    wait_saved(page)
    assert records(world, item["public_id"])[1] == [("edited", "minor", "Herbst"), ("human", "minor", "fielen")]
    shot(page, "06-deleted-then-marked-again")
    ctx.close()


def test_a_plain_esa_campaign_shows_no_suggestion(live, browser):
    base, world = live
    cid = new_campaign(world, protocol="esa", strategy="document", redundancy=1, annotators=(ANN,),
                       systems=["zephyr-mt"], ranges="orchard", settings_override={"attention_share": 0.0})
    item = assignments_of(world, cid, ANN)[0]
    ctx, page = login_page(browser, base, ANN, PASSWORD, ERRORS, (1366, 900))
    page.goto(f"{base}/annotate/item/{item['public_id']}")
    page.wait_for_selector(".esa-seg[data-i='2'] .esa-score")
    assert page.locator(".esa-text .in").count() == 0 and page.locator(".esa-ai-tag").count() == 0
    ctx.close()


def test_the_organizer_uploads_suggestions_and_sees_every_problem(live, browser, tmp_path):
    base, world = live
    cid = new_campaign(world, protocol="esa", strategy="document", redundancy=1, start=False, annotators=(ANN,),
                       systems=["zephyr-mt", "walrus-baseline"], ranges="orchard",
                       settings_override={"attention_share": 0.0})
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item": "orchard:1", "system": "zephyr-mt", "spans": [{"text": "Elefant", "severity": "minor"}]}\n'
                   'not json\n{"item": "orchard:9", "system": "zephyr-mt", "spans": []}\n', encoding="utf-8")
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps({"item": f"orchard:{n}", "system": "zephyr-mt", "spans": [], "score": 97}) + "\n"
                            for n in (1, 2, 3))
                    + json.dumps({"item": "orchard:1", "system": "walrus-baseline", "score": 50,
                                  "spans": [{"text": "Krieg", "severity": "major"}]}) + "\n", encoding="utf-8")
    ctx, page = login_page(browser, base, "org@example.org", PASSWORD, ERRORS, (1366, 1000))
    page.goto(f"{base}/protocols/esa/campaigns/{cid}/suggestions")
    page.locator("summary", has_text="JSON Lines file").click()
    page.set_input_files("input[type=file][name=file]", str(bad))
    page.locator("form[enctype] button[type=submit]").click()
    page.wait_for_selector("#problems")
    rows = page.locator("#problems tbody tr")
    assert rows.count() == 3
    assert [rows.nth(k).locator("td").nth(1).inner_text() for k in range(3)] == ["1", "2", "3"]
    shot(page, "07-organizer-bad-file", full=True)
    assert page.locator("input[type=file][name=file]").is_visible()     # the file's form stays open after a refusal
    page.set_input_files("input[type=file][name=file]", str(good))
    page.locator("form[enctype] input[name=skip_threshold]").fill("95")
    page.locator("form[enctype] button[type=submit]").click()
    page.wait_for_selector("#budget")
    assert "3 of 6 segments" in page.locator("#budget").inner_text()
    shot(page, "08-organizer-suggestions", full=True)
    page.goto(f"{base}/campaigns/{cid}")
    page.wait_for_selector("#ai-suggestions")
    page.locator("#ai-suggestions").scroll_into_view_if_needed()
    shot(page, "09-dashboard-panel")
    ctx.close()
