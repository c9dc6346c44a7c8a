"""Real-browser tests of the annotation page: Playwright driving Debian's chromium.

A live server (werkzeug, threaded, CSRF on) runs on 127.0.0.1 with a campaign. The tests
annotate a document with the keyboard only and with the mouse, reload in the middle of a
document and find every mark, lose the connection and find nothing lost, try another
annotator's item, and look for system names. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import json
import time
from functools import partial

import pytest

from tests.support.browser import live_server, login_page, screenshots, wait_for_saves
from tests.support.campaigns import (
    PASSWORD,
    SYSTEMS,
    assignments_of,
    build_world,
    new_campaign,
)

pytestmark = pytest.mark.browser


ZH_DOCS = {"lantern": [
    "林清远推开铺子的木门时，街上的青石板还泛着水光。",
    "他把灯笼挂在门口，等着雨停。",
    "那天晚上，没有人来买灯。",
]}
AR_OUT = {"lantern": [
    "عندما فتح لين تشينغ يوان الباب الخشبي للمتجر، كانت حجارة الشارع لا تزال تلمع بالماء.",
    "علق الفانوس عند الباب وانتظر توقف المطر.",
    "في تلك الليلة لم يأت أحد لشراء فانوس.",
]}


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    """(base url, world) served by a threaded werkzeug server with CSRF on."""
    tmp = tmp_path_factory.mktemp("browser")
    with live_server(db_template, tmp) as (base, app, _url):
        yield base, build_world(app, tmp)


def login(browser, base, email):
    ctx, page = login_page(browser, base, email, PASSWORD, ERRORS, (1366, 800))
    ctx.on("weberror", lambda e: ERRORS.append(str(e.error)))   # also the context's other pages
    return ctx, page


shot = screenshots("mqm")


ERRORS: list[str] = []   # JavaScript errors seen by any page: every test asserts there are none


@pytest.fixture(autouse=True)
def _no_js_errors():
    ERRORS.clear()
    yield
    assert not ERRORS, ERRORS


def open_item(page, base, public_id):
    page.goto(f"{base}/annotate/item/{public_id}")
    page.wait_for_selector("body[data-ready='1']", timeout=10000)


wait_saved = partial(wait_for_saves, pending="window.enfaceAnnotate ? window.enfaceAnnotate.pending() : -1")


def read_to_end(page, timeout=30.0):
    """Reads every segment as a person does: goes to each unread one and stays until it counts as read (✓)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        read = page.evaluate("window.enfaceAnnotate.read()")
        if all(read):
            return
        want = read.index(False)
        cur = page.evaluate("window.enfaceAnnotate.cursor()")
        if cur != want:
            page.keyboard.press("j" if cur < want else "k")
        page.wait_for_timeout(100)
    raise AssertionError(f"segments still unread: {page.evaluate('window.enfaceAnnotate.read()')}")


def server_marks(world, public_id):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        a = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        return [m.to_json() for m in a.marks if not m.deleted], a.cursor, a.furthest, dict(a.times or {}), a.state


def test_keyboard_only_annotation(live, browser):
    base, world = live
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, ranges="river.1", seed=11)
    item = assignments_of(world, cid, "ann1@example.org")[0]
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, item["public_id"])
    shot(page, "01-item-start")
    kb = page.keyboard
    # segment 1: move to the 2nd word, extend over two words, mark Accuracy > Mistranslation > Major, then a note (C)
    kb.press("ArrowRight")
    kb.press("Shift+ArrowRight")
    kb.press("Shift+ArrowRight")
    kb.press("Enter")
    page.wait_for_selector("#popover:not([hidden]) .opt")
    shot(page, "02-popover-category")
    kb.press("1")          # Accuracy
    page.wait_for_selector("#popover .crumbs:has-text('Accuracy')")
    shot(page, "03-popover-subcategory")
    kb.press("2")          # Mistranslation (Addition, Mistranslation, ...: Omission is not offered on the translation)
    page.wait_for_selector("#popover.step-sev")
    shot(page, "03b-popover-severity")
    kb.press("3")          # Major (Neutral, Minor, Major, Critical): saved at once
    page.wait_for_selector("#popover", state="hidden")
    kb.press("c")          # a note on the mark under focus
    page.wait_for_selector("#pop-note")
    kb.type("wrong sense")
    kb.press("Enter")
    wait_saved(page)
    # segment 2: an omission on the source side (Tab), Accuracy > Omission preselected: Enter, Enter, Minor
    kb.press("ArrowDown")
    kb.press("Tab")
    kb.press("End")
    kb.press("Enter")
    kb.press("Enter")
    kb.press("Enter")
    kb.press("2")
    wait_saved(page)
    # segment 3: a Non-translation
    kb.press("j")
    kb.press("n")
    wait_saved(page)
    shot(page, "04-marks")
    # back to segment 1: edit the mark (now Minor), then delete and undo
    kb.press("k")
    kb.press("k")
    kb.press("]")
    kb.press("e")
    kb.press("Enter")      # keep Accuracy
    kb.press("Enter")      # keep Mistranslation
    kb.press("2")          # Minor (saved at once; the note is kept)
    wait_saved(page)
    kb.press("x")
    wait_saved(page)
    marks, *_ = server_marks(world, item["public_id"])
    assert len(marks) == 2
    kb.press("u")
    wait_saved(page)
    marks, *_ = server_marks(world, item["public_id"])
    assert len(marks) == 3
    by_cat = {m["category"] + "/" + m["subcategory"]: m for m in marks}
    mis = by_cat["Accuracy/Mistranslation"]
    tgt0 = "Der alte Fährmann ruderte langsam über den grauen Fluss."
    assert (mis["seg"], mis["side"], mis["severity"], mis["note"]) == (0, "target", "Minor", "wrong sense")
    assert mis["text"] == "alte Fährmann ruderte" and tgt0[mis["start"]:mis["end"]] == mis["text"]
    om = by_cat["Accuracy/Omission"]
    assert (om["seg"], om["side"], om["severity"]) == (1, "source", "Minor")
    assert om["text"] == "."           # End: the last token of the source (punctuation is a token)
    nt = by_cat["Non-translation/"]
    assert nt["seg"] == 2 and nt["start"] == 0 and nt["severity"] == "Critical"
    # read to the end (each segment for its minimum reading time) and finish with Shift+F, Enter
    read_to_end(page)
    kb.press("Shift+F")
    page.wait_for_selector("#finish-dialog:not([hidden])")
    shot(page, "05-finish-dialog")
    kb.press("Enter")
    page.wait_for_selector("#finished-banner:not([hidden])")
    shot(page, "06-finished")
    *_, times, state = server_marks(world, item["public_id"])
    assert state == "finished"
    assert set(times) <= {"0", "1", "2", "3"} and sum(times.values()) > 0
    ctx.close()


def _drag(page, seg, side, first, last):
    cell = page.locator(f"#seg-{seg} .text[data-side='{side}']")
    a = cell.locator(".tok").nth(first).bounding_box()
    b = cell.locator(".tok").nth(last).bounding_box()
    page.mouse.move(a["x"] + 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=5)   # ends mid-word: snaps
    page.mouse.up()


def test_mouse_annotation_and_reload(live, browser):
    base, world = live
    cid = new_campaign(world, annotators=("ann2@example.org",), redundancy=1, ranges="orchard", seed=12)
    item = assignments_of(world, cid, "ann2@example.org")[0]
    ctx, page = login(browser, base, "ann2@example.org")
    open_item(page, base, item["public_id"])
    # drag over words 2-4 of the first target, then click Fluency > Grammar > Critical, Save
    _drag(page, 0, "target", 1, 3)
    page.wait_for_selector("#popover:not([hidden])")
    page.click("#popover .opt:has-text('Fluency')")
    page.click("#popover .opt:has-text('Grammar')")
    page.click("#popover .opt:has-text('Critical')")     # saved at once
    wait_saved(page)
    # an omission dragged in the source of segment 2
    page.click("#seg-1 .segnum")
    _drag(page, 1, "source", 2, 2)
    page.click("#popover .opt:has-text('Accuracy')")
    page.click("#popover .opt:has-text('Omission')")
    page.click("#popover .opt:has-text('Minor')")
    page.click("#seg-1 .mark button.add-note")           # a note, afterwards, by its button
    page.fill("#pop-note", "the autumn")
    page.click("#popover button:has-text('Done')")
    wait_saved(page)
    page.click("#seg-2 .segnum")     # the reading cursor moves to the third segment
    page.wait_for_timeout(300)
    wait_saved(page)
    shot(page, "07-mouse-marks")
    marks, cursor, furthest, *_ = server_marks(world, item["public_id"])
    read = page.evaluate("window.enfaceAnnotate.read()")
    assert len(marks) == 2 and cursor == 2
    assert furthest == (read.index(False) - 1 if False in read else len(read) - 1)   # read segments, not visited ones
    assert next(m for m in marks if m["subcategory"] == "Omission")["note"] == "the autumn"
    grammar = next(m for m in marks if m["subcategory"] == "Grammar")
    texts = page.evaluate("window.enfaceAnnotate.marks().map(m => m.text)")
    assert grammar["text"] in texts
    # snapped to whole words
    tgt = next(s for s in page.evaluate("JSON.parse(document.getElementById('annotate-state').textContent).segments"))
    assert grammar["text"] == " ".join(tgt["target"].split()[1:4])
    # reload mid-document: every mark is back, highlighted, and the cursor where it was
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=10000)
    assert page.locator(".mark").count() == 2
    assert page.locator(".tok.marked").count() >= 4
    assert page.locator("#seg-2.current").count() == 1
    assert page.locator("#progress-text").inner_text().startswith("Segment 3")
    shot(page, "08-after-reload")
    ctx.close()


def test_offline_changes_survive_a_closed_tab(live, browser):
    base, world = live
    cid = new_campaign(world, annotators=("ann3@example.org",), redundancy=1, ranges="river.1", seed=13)
    item = assignments_of(world, cid, "ann3@example.org")[0]
    ctx, page = login(browser, base, "ann3@example.org")
    open_item(page, base, item["public_id"])
    page.route("**/annotate/api/**", lambda route: route.abort())     # the network drops
    page.keyboard.press("Enter")
    page.keyboard.press("2")     # Fluency
    page.keyboard.press("3")     # Grammar
    page.keyboard.press("2")     # Minor: saved (queued) at once
    page.wait_for_selector("#save-status.offline")
    shot(page, "09-offline")
    assert server_marks(world, item["public_id"])[0] == []
    page.close()                   # the tab is closed while offline
    page = ctx.new_page()          # ... and opened again once the network is back
    open_item(page, base, item["public_id"])
    wait_saved(page)
    marks = server_marks(world, item["public_id"])[0]
    assert len(marks) == 1 and marks[0]["subcategory"] == "Grammar"
    ctx.close()


def test_other_items_and_system_names_are_out_of_reach(live, browser):
    base, world = live
    cid = new_campaign(world, annotators=("ann1@example.org", "ann4@example.org"), redundancy=1, seed=14,
                       systems=list(SYSTEMS))
    mine = assignments_of(world, cid, "ann4@example.org")
    theirs = assignments_of(world, cid, "ann1@example.org")
    ctx, page = login(browser, base, "ann4@example.org")
    seen_requests = []
    page.on("request", lambda r: seen_requests.append(r.url + " " + (r.post_data or "")))
    page.goto(f"{base}/annotate/")
    shot(page, "10-my-items")
    texts = [page.content()]
    for a in mine:
        open_item(page, base, a["public_id"])
        texts.append(page.content())
        texts.append(page.inner_text("body"))
        page.keyboard.press("Enter")
        page.keyboard.press("1")
        page.keyboard.press("1")
        page.keyboard.press("1")
        wait_saved(page)
    resp = page.goto(f"{base}/annotate/item/{theirs[0]['public_id']}")
    assert resp.status == 404
    texts.append(page.content())
    shot(page, "11-other-item-404")
    api = page.evaluate("""async (url) => { const r = await fetch(url); return [r.status, await r.text()]; }""",
                        f"{base}/annotate/api/items/{theirs[0]['public_id']}")
    assert api[0] == 404
    for url in (f"{base}/campaigns/{cid}", f"{base}/campaigns/{cid}/export.tsv"):
        assert page.goto(url).status == 404
        texts.append(page.content())
    everything = "\n".join(texts + seen_requests + [json.dumps(api)]).lower()
    for name in list(SYSTEMS) + ["alder", "birch"]:
        assert name not in everything, name
    ctx.close()


def test_rtl_and_cjk(live, browser, tmp_path):
    """A zh->ar item: Chinese characters are single words; Arabic runs right to left."""
    base, world = live
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User
    from enface.services.testsets import import_testset

    from tests.support.campaigns import add_submission, write_testset

    with world.ctx():
        ts = import_testset(write_testset(tmp_path / "zh", ZH_DOCS, "zh", "ar", name="Lantern zh-ar"), "Lit 2026")
        sid = add_submission(ts.id, "lotus-llm", "Cedar", "primary", True, AR_OUT)
        camp = svc.create_campaign(db.session.get(User, world.users["org@example.org"]), ts, svc.CampaignInput(
            name="Lantern MQM", submission_ids=[sid], ranges="lantern", settings={"attention_share": 0}, seed=3))
        svc.add_annotator(camp, db.session.get(User, world.users["ann1@example.org"]))
        svc.start_campaign(svc.get_campaign(camp.id))
        cid = camp.id
    item = assignments_of(world, cid, "ann1@example.org")[0]
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, item["public_id"])
    assert page.get_attribute("#seg-0 .text.tgt", "dir") == "rtl"
    assert page.get_attribute("#seg-0 .text.src", "dir") == "ltr"
    # the Chinese source: every character is a token; mark two characters of segment 1 as an omission
    first = page.locator("#seg-0 .text.src .tok").first.inner_text()
    assert first == "林"
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.keyboard.press("3")
    wait_saved(page)
    # the Arabic target: ArrowLeft moves forward in reading order
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    page.keyboard.press("2")
    page.keyboard.press("3")
    page.keyboard.press("2")
    wait_saved(page)
    shot(page, "12-rtl-cjk")
    marks = {m["side"]: m for m in server_marks(world, item["public_id"])[0]}
    assert marks["source"]["text"] == "清远" and marks["source"]["subcategory"] == "Omission"
    assert marks["target"]["text"] == "فتح"
    ctx.close()


def test_organizer_pages(live, browser):
    """The dashboard (progress, agreement tables, error chart), the form, the leaderboard with MQM."""
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User
    from enface.protocols.mqm import services as mqm_svc

    from tests.support.campaigns import mark_uuid

    base, world = live
    raters = ("ann1@example.org", "ann2@example.org", "ann3@example.org")
    cid = new_campaign(world, annotators=raters, redundancy=3, seed=15, attention=0.3)
    severities = ["Minor", "Major", "Critical", "Neutral"]
    cats = [("Accuracy", "Mistranslation"), ("Fluency", "Grammar"), ("Style", "Awkwardness"),
            ("Terminology", "Inconsistent")]
    # (the live app checks CSRF tokens: the annotations are made through the services directly)
    for n, email in enumerate(raters):
        with world.app.test_request_context():
            user = db.session.get(User, world.users[email])
            for k, a in enumerate(assignments_of(world, cid, email)):
                for j in range((n + k) % 3 + a["submission_id"] % 2):
                    cat, sub = cats[(j + k) % 4]
                    mqm_svc.save_mark(user, a["public_id"], mark_uuid(), {
                        "rev": 1, "seg": j % a["segments"], "start": 0, "end": 3, "category": cat,
                        "subcategory": sub, "severity": severities[(n + j + k) % 4]})
                last = a["segments"] - 1
                svc.save_progress(user, a["public_id"], {"cursor": last, "furthest": last,
                                                         "times": {str(i): 20000 + 3000 * i for i in range(last + 1)}})
                if not (n == 2 and k == 0):
                    svc.finish(user, a["public_id"])
    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/{cid}")
    shot(page, "20-dashboard-top")
    page.goto(f"{base}/campaigns/{cid}#results")
    shot(page, "21-dashboard-results")
    page.goto(f"{base}/campaigns/{cid}#agreement")
    shot(page, "22-dashboard-agreement")
    page.goto(f"{base}/campaigns/{cid}#errors")
    shot(page, "23-dashboard-errors")
    page.goto(f"{base}/campaigns/new?testset={world.testset_id}")
    shot(page, "24-new-campaign")
    page.goto(f"{base}/campaigns/{cid}")
    page.click("button:has-text('Release to the leaderboard')")
    page.click("button:has-text('Yes, release the results')")      # the confirmation page
    page.wait_for_load_state("networkidle")
    from enface.services.testsets import get_testset, update_settings

    with world.ctx():
        ts = get_testset(world.testset_id)
        update_settings(ts, deadline=ts.deadline, opens_at=ts.opens_at, quota_per_day=ts.quota_per_day,
                        quota_total=ts.quota_total, document_level_allowed=ts.document_level_allowed,
                        released=True, references_public=False)
    page.goto(f"{base}/leaderboard/{world.testset_id}")
    assert page.locator("th.mqm").count() == 1
    assert "ordered by the official human ranking" in page.locator("#order-note").inner_text().lower()
    page.click("th.mqm button.sort")
    shot(page, "25-leaderboard-mqm")
    page.goto(f"{base}/campaigns/{cid}/results")
    shot(page, "26-public-results")
    ctx.close()


def test_invite_link_creates_an_annotator_account(live, browser):
    """A new annotator opens an invite link, registers on that page (CSRF on) and lands on their items."""
    from enface.campaigns import services as svc
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    base, world = live
    cid = new_campaign(world, annotators=("ann1@example.org",), redundancy=1, seed=21)
    with world.ctx():
        [(_inv, secret)] = svc.create_invites(db.session.get(Campaign, cid), count=1, label="browser")
    ctx = browser.new_context(viewport={"width": 1366, "height": 800})
    page = ctx.new_page()
    page.on("pageerror", lambda e: ERRORS.append(str(e)))
    page.goto(f"{base}/annotate/join/{secret}")
    page.click("button:has-text('Create the account and join')")    # empty: refused, nothing created
    page.wait_for_load_state("networkidle")
    assert page.locator(".field.has-error .error-text").count() >= 3   # name, e-mail, password
    page.fill("input[name=name]", "Nova Annotator")
    page.fill("input[name=email]", "nova@example.org")
    page.fill("input[name=password]", "a long enough password")
    page.fill("input[name=confirm]", "a long enough password")
    shot(page, "30-invite-join")
    page.click("button:has-text('Create the account and join')")
    page.wait_for_load_state("networkidle")
    assert page.url.endswith("/annotate/") and "You are an annotator in" in page.content()
    # the campaign had started: the newcomer gets a share of the unstarted items at once
    assert page.locator("a[href*='/annotate/item/']").count() >= 1
    shot(page, "31-invite-joined")
    ctx.close()
    assert ERRORS == []
