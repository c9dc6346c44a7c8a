# ruff: noqa: F811  (the fixtures live and _no_js_errors are imported from test_browser.py, and the
# tests take them as arguments by those names, which ruff reads as redefinitions)
"""Real-browser tests of the fixes to "tried as a new user would, the MQM page produces wrong data".

Same set-up as test_browser.py (its live server fixture; chromium from tests/support/browser.py): no preselected severity,
severities told apart by colour and letter, a note only when asked for (J right after a severity
moves on), categories offered by side, reading too fast reads nothing, the annotator's landing page
and navigation, read-only banners. Screenshots go to tests/artifacts/ (mqm-4x-*.png).
"""

from __future__ import annotations

import time

import pytest
from test_browser import (  # noqa: F401  (the fixtures: pytest finds them in this module's namespace)
    ERRORS,
    _no_js_errors,
    live,
    login,
    open_item,
    read_to_end,
    server_marks,
    shot,
    wait_saved,
)

from tests.support.campaigns import add_submission, assignments_of, mark_uuid, new_campaign, write_testset

pytestmark = pytest.mark.browser


def _popover_options(page):
    return page.eval_on_selector_all("#popover .opt", "els => els.map(e => e.dataset.name)")


def _one_item(world, email="ann1@example.org", seed=40, **kw):
    cid = new_campaign(world, annotators=(email,), redundancy=1, ranges="river.1", seed=seed, **kw)
    return cid, assignments_of(world, cid, email)[0]


def test_severity_is_never_preselected(live, browser):
    base, world = live
    _cid, item = _one_item(world, seed=41)
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, item["public_id"])
    kb = page.keyboard
    kb.press("ArrowRight")
    kb.press("Enter")           # open the menu
    kb.press("Enter")           # Accuracy (highlighted first)
    kb.press("Enter")           # its first subcategory
    page.wait_for_selector("#popover.step-sev")
    assert page.locator("#popover .opt.hi").count() == 0          # nothing highlighted
    assert page.locator("#popover .opt.chosen").count() == 0
    kb.press("Enter")           # Enter alone: nothing is saved, the menu stays at the severity
    kb.press("Enter")
    page.wait_for_timeout(400)
    assert page.locator("#popover.step-sev").is_visible()
    assert "Choose the severity" in page.inner_text("#pop-keys")
    shot(page, "40-severity-not-preselected")
    assert page.evaluate("window.enfaceAnnotate.marks().length") == 0
    wait_saved(page)
    assert server_marks(world, item["public_id"])[0] == []
    kb.press("2")               # Minor, chosen explicitly: saved at once
    page.wait_for_selector("#popover", state="hidden")
    wait_saved(page)
    [mark] = server_marks(world, item["public_id"])[0]
    assert (mark["category"], mark["subcategory"], mark["severity"], mark["note"]) == (
        "Accuracy", "Addition", "Minor", "")
    # the mouse: clicking Critical saves Critical; hovering changes nothing
    kb.press("j")
    kb.press("Enter")
    page.click("#popover .opt:has-text('Fluency')")
    page.click("#popover .opt:has-text('Spelling')")
    page.hover("#popover .opt:has-text('Neutral')")
    assert server_marks(world, item["public_id"])[0] == [mark]
    page.click("#popover .opt:has-text('Critical')")
    wait_saved(page)
    assert sorted(m["severity"] for m in server_marks(world, item["public_id"])[0]) == ["Critical", "Minor"]
    ctx.close()


def test_severities_differ_in_colour_and_letter(live, browser):
    from enface.extensions import db
    from enface.models import User
    from enface.protocols.mqm import services as mqm_svc

    base, world = live
    _cid, item = _one_item(world, seed=42, systems=["zephyr-mt"])   # (its text is the one below)
    # one mark per severity, made through the services (the page then draws them)
    target = "Der alte Fährmann ruderte langsam über den grauen Fluss."
    with world.app.test_request_context():
        user = db.session.get(User, world.users["ann1@example.org"])
        for word, sev in zip(["alte", "Fährmann", "ruderte", "langsam"], ["Neutral", "Minor", "Major", "Critical"]):
            start = target.index(word)
            mqm_svc.save_mark(user, item["public_id"], mark_uuid(), {
                "rev": 1, "seg": 0, "start": start, "end": start + len(word), "category": "Style",
                "subcategory": "Awkwardness", "severity": sev})
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, item["public_id"])
    badges = page.evaluate("""() => Array.from(document.querySelectorAll('#seg-0 .mark')).map(li => {
        const k = li.querySelector('.sev .sev-k');
        return [li.dataset.severity, k.textContent, getComputedStyle(k).backgroundColor,
                getComputedStyle(li.querySelector('.sev')).backgroundColor];
    })""")
    assert [b[0] for b in badges] == ["Neutral", "Minor", "Major", "Critical"]
    assert [b[1] for b in badges] == ["N", "Mi", "Ma", "C"]
    assert len({b[2] for b in badges}) == 4 and len({b[3] for b in badges}) == 4
    # in the text: four different highlights, each mark's last word followed by its letter(s)
    text = page.evaluate("""() => Array.from(document.querySelectorAll('#seg-0 .text.tgt .tok.marked')).map(t => [
        t.textContent, getComputedStyle(t).backgroundColor, getComputedStyle(t).borderBottomColor,
        getComputedStyle(t).borderBottomStyle, t.classList.contains('mark-end') ? getComputedStyle(t, '::after').content : null])""")
    assert [t[0] for t in text] == ["alte", "Fährmann", "ruderte", "langsam"]
    assert len({t[1] for t in text}) == 4 and len({t[2] for t in text}) == 4
    assert len({t[3] for t in text}) >= 3            # dotted, solid, double: not colour alone
    assert [t[4] for t in text] == ['"N"', '"Mi"', '"Ma"', '"C"']
    # the menu: letters and colours at the severity step
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.keyboard.press("1")
    page.keyboard.press("1")
    page.wait_for_selector("#popover.step-sev")
    menu = page.evaluate("""() => Array.from(document.querySelectorAll('#popover .opt .sev-k')).map(k =>
        [k.textContent, getComputedStyle(k).backgroundColor])""")
    assert [m[0] for m in menu] == ["N", "Mi", "Ma", "C"] and len({m[1] for m in menu}) == 4
    assert [m[1] for m in menu] == [b[2] for b in badges]      # the same colour everywhere
    page.keyboard.press("Escape")
    page.keyboard.press("k")
    page.wait_for_timeout(150)
    shot(page, "41-severity-colours-letters")
    ctx.close()


def test_j_right_after_a_severity_saves_no_note_and_moves_on(live, browser):
    base, world = live
    _cid, item = _one_item(world, seed=43)
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, item["public_id"])
    kb = page.keyboard
    kb.press("ArrowRight")
    kb.press("Enter")
    kb.press("1")              # Accuracy
    kb.press("2")              # Mistranslation
    kb.press("3")              # Major: saved
    kb.press("j")              # ... and straight on to the next segment
    page.wait_for_timeout(200)
    assert page.evaluate("window.enfaceAnnotate.cursor()") == 1
    assert page.locator("#pop-note").count() == 0 and page.locator("#popover").is_hidden()
    wait_saved(page)
    [mark] = server_marks(world, item["public_id"])[0]
    assert mark["severity"] == "Major" and mark["note"] == ""
    # a note is added on purpose, with C on the mark: saved as it is typed, before Enter
    kb.press("k")
    kb.press("]")
    kb.press("c")
    page.wait_for_selector("#pop-note")
    kb.type("sense reversed")
    shot(page, "42-note-editor")
    deadline = time.monotonic() + 5
    while server_marks(world, item["public_id"])[0][0]["note"] != "sense reversed":
        assert time.monotonic() < deadline, "the note was not autosaved"
        page.wait_for_timeout(100)
    kb.press("Enter")
    page.wait_for_selector("#popover", state="hidden")
    assert page.locator("#seg-0 .mark button.note").inner_text() == "sense reversed"
    # editing it later goes through the same queue; Esc undoes the changes made in that visit
    kb.press("c")
    kb.type(" (twice)")
    kb.press("Enter")
    wait_saved(page)
    assert server_marks(world, item["public_id"])[0][0]["note"] == "sense reversed (twice)"
    kb.press("c")
    kb.type(" oops")
    page.wait_for_timeout(900)          # autosaved meanwhile ...
    kb.press("Escape")                  # ... and put back
    wait_saved(page)
    [mark] = server_marks(world, item["public_id"])[0]
    assert mark["note"] == "sense reversed (twice)" and mark["severity"] == "Major" and mark["rev"] >= 4
    # J in the note field types a J (the field was opened on purpose); it never opens by itself
    kb.press("j")
    assert page.evaluate("window.enfaceAnnotate.cursor()") == 1
    ctx.close()


def test_categories_offered_by_side(live, browser):
    base, world = live
    _cid, item = _one_item(world, seed=44)
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, item["public_id"])
    kb = page.keyboard
    kb.press("Enter")                          # a word of the translation
    assert _popover_options(page) == ["Accuracy", "Fluency", "Style", "Terminology", "Locale convention", "Others"]
    kb.press("1")
    subs = _popover_options(page)
    assert "Omission" not in subs and subs[:2] == ["Addition", "Mistranslation"]
    kb.press("Escape")
    kb.press("Tab")                            # the source
    kb.press("Enter")
    assert _popover_options(page) == ["Accuracy", "Others"]
    shot(page, "43-source-side-categories")
    kb.press("Enter")                          # Accuracy (highlighted: omissions are what the source is for)
    assert _popover_options(page) == ["Omission"]
    kb.press("1")
    kb.press("2")                              # Minor
    wait_saved(page)
    [mark] = server_marks(world, item["public_id"])[0]
    assert (mark["side"], mark["subcategory"]) == ("source", "Omission")
    # the server holds the same rule: a page that sends an Omission on the translation is refused (400, field side)
    answer = page.evaluate("""async ([url, token]) => {
        const r = await fetch(url, {method: 'PUT', headers: {'Content-Type': 'application/json', 'X-CSRFToken': token},
          body: JSON.stringify({rev: 1, seg: 0, side: 'target', start: 0, end: 3, category: 'Accuracy',
                                subcategory: 'Omission', severity: 'Minor'})});
        return [r.status, await r.json()]; }""",
                           [f"{base}/annotate/api/items/{item['public_id']}/marks/{mark_uuid()}",
                            page.get_attribute("meta[name=csrf-token]", "content")])
    assert answer[0] == 400 and answer[1]["error"]["code"] == "wrong_side"
    assert answer[1]["error"]["details"]["field"] == "side"
    ctx.close()


LONG = [f"Sentence number {i} of the long chapter tells the reader a little more of the story." for i in range(1, 16)]


def test_fourteen_presses_in_a_second_read_nothing(live, browser, tmp_path):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User
    from enface.services.testsets import import_testset

    base, world = live
    with world.ctx():
        ts = import_testset(write_testset(tmp_path / "long", {"chapter": LONG}, name="Long en-de"), "Lit 2026")
        sid = add_submission(ts.id, "otter-mt", "Cedar", "primary", True,
                             {"chapter": [s.replace("Sentence number", "Satz Nummer") for s in LONG]})
        camp = svc.create_campaign(db.session.get(User, world.users["org@example.org"]), ts, svc.CampaignInput(
            name="Long MQM", submission_ids=[sid], ranges="chapter", settings={"attention_share": 0}, seed=5))
        svc.add_annotator(camp, db.session.get(User, world.users["ann2@example.org"]))
        svc.start_campaign(svc.get_campaign(camp.id))
        cid = camp.id
    item = assignments_of(world, cid, "ann2@example.org")[0]
    ctx, page = login(browser, base, "ann2@example.org")
    open_item(page, base, item["public_id"])
    assert min(page.evaluate("window.enfaceAnnotate.dwell()")) >= 1000     # 30 words at 20 words a second
    started = time.monotonic()
    for _ in range(14):
        page.keyboard.press("j")
    assert time.monotonic() - started < 1.5
    assert page.evaluate("window.enfaceAnnotate.cursor()") == 14
    read = page.evaluate("window.enfaceAnnotate.read()")
    assert sum(read) <= 1                       # at most the first, if the page was open long enough
    assert "(reading…)" in page.inner_text("#progress-text")
    page.keyboard.press("Shift+F")
    page.wait_for_selector("#finish-dialog:not([hidden])")
    assert page.locator("#finish-confirm").is_disabled()
    assert "not read yet" in page.inner_text("#finish-summary")
    shot(page, "44-finish-refused-too-fast")
    # the server agrees: the furthest segment is not raised, and finishing is refused with the segments named
    wait_saved(page)
    *_, furthest, times, _state = server_marks(world, item["public_id"])
    assert furthest <= 0
    answer = page.evaluate("""async ([url, token]) => {
        const r = await fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRFToken': token},
          body: '{}'}); return [r.status, await r.json()]; }""",
                           [f"{base}/annotate/api/items/{item['public_id']}/finish",
                            page.get_attribute("meta[name=csrf-token]", "content")])
    assert answer[0] == 409 and answer[1]["error"]["code"] == "not_read"
    assert len(answer[1]["error"]["details"]["unread"]) >= 14
    # "Go to segment" takes the annotator to the first unread one
    page.click("#finish-goto")
    first_unread = page.evaluate("window.enfaceAnnotate.read()").index(False)
    assert page.evaluate("window.enfaceAnnotate.cursor()") == first_unread
    ctx.close()


def test_annotator_lands_on_their_items_with_annotator_navigation(live, browser):
    base, world = live
    _one_item(world, "ann3@example.org", seed=45)
    ctx, page = login(browser, base, "ann3@example.org")
    assert page.url == f"{base}/annotate/"
    nav = page.inner_text("header.site nav")
    assert "My annotation items" in nav and "Annotator 3" in nav and "Log out" in nav
    for other in ("My submissions", "Team", "API tokens", "Test sets", "Leaderboards", "Organizer"):
        assert other not in nav, other
    shot(page, "45-annotator-landing")
    # their account page keeps the annotator's navigation
    page.click("header.site a.who")
    page.wait_for_load_state("networkidle")
    assert "My submissions" not in page.inner_text("header.site nav")
    ctx.close()
    # someone in a team who also annotates still lands on the shared task, with its navigation
    ctx, page = login(browser, base, "alder-ann@example.org")
    assert not page.url.endswith("/annotate/")
    assert "My submissions" in page.inner_text("header.site nav")
    ctx.close()


def test_read_only_views_say_so(live, browser):
    from enface.campaigns import services as svc

    base, world = live
    cid, item = _one_item(world, "ann4@example.org", seed=46)
    # the organizer opens an annotator's item: a banner, no marking, no finishing, no time recorded
    ctx, page = login(browser, base, "org@example.org")
    open_item(page, base, item["public_id"])
    banner = page.locator("#readonly-banner")
    assert banner.is_visible() and "Read-only view" in banner.inner_text() and "organizer" in banner.inner_text()
    assert page.locator("#finish-btn").count() == 0 and page.locator("#nt-btn").count() == 0
    page.keyboard.press("Enter")
    page.keyboard.press("j")
    assert page.locator("#popover").is_hidden()
    shot(page, "46-organizer-read-only")
    ctx.close()
    *_, times, _state = server_marks(world, item["public_id"])
    assert times == {}
    # the annotator, once the campaign is closed: a banner too
    with world.ctx():
        svc.set_state(svc.get_campaign(cid), "closed")
    ctx, page = login(browser, base, "ann4@example.org")
    open_item(page, base, item["public_id"])
    assert page.locator("#closed-banner").is_visible() and "Read-only" in page.inner_text("#closed-banner")
    assert page.inner_text("#save-status") == "Read-only"
    shot(page, "47-closed-read-only")
    ctx.close()
    assert ERRORS == []


def test_finished_item_banner(live, browser):
    base, world = live
    _cid, item = _one_item(world, "ann1@example.org", seed=47)
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, item["public_id"])
    read_to_end(page)
    page.keyboard.press("Shift+F")
    page.wait_for_selector("#finish-dialog:not([hidden])")
    page.keyboard.press("Enter")
    page.wait_for_selector("#finished-banner:not([hidden])")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert "Finished and locked" in page.inner_text("#finished-banner")
    assert page.inner_text("#save-status") == "Finished · read-only"
    ctx.close()


def test_dashboard_flags_a_fast_reader(live, browser):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User

    base, world = live
    raters = ("ann1@example.org", "ann2@example.org", "ann3@example.org")
    cid = new_campaign(world, annotators=raters, redundancy=3, ranges="river.1", seed=48)
    with world.app.test_request_context():
        for email, ms in zip(raters, (24_000, 30_000, 1_200)):     # ann3 reads 20 times faster than the others
            user = db.session.get(User, world.users[email])
            for a in assignments_of(world, cid, email):
                n = a["segments"]
                svc.save_progress(user, a["public_id"], {"cursor": n - 1, "furthest": n - 1,
                                                         "times": {str(i): ms for i in range(n)}})
                svc.finish(user, a["public_id"])
    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/{cid}#progress")
    rows = page.locator("#progress + progress + table tbody tr")
    flagged = [rows.nth(i).inner_text() for i in range(rows.count()) if "too fast" in rows.nth(i).inner_text()]
    assert len(flagged) == 1 and "Annotator 3" in flagged[0]
    shot(page, "48-dashboard-pace-flag")
    ctx.close()


def test_autosave_queue_api(live, browser):
    """static/kit/autosave.js on its own (no MQM): supersede by key in place, retry with backoff, refusals, 401, flush, revisions."""
    import json as jsonlib

    base, world = live
    _cid, item = _one_item(world, "ann2@example.org", seed=49)
    ctx, page = login(browser, base, "ann2@example.org")
    open_item(page, base, item["public_id"])         # a page that loads autosave.js
    calls = []

    def answer(route):
        req = route.request
        path = req.url.split("/autosave-test/")[1]
        calls.append((req.method, path, jsonlib.loads(req.post_data or "null"), req.headers.get("x-csrftoken")))
        if path == "flaky" and sum(1 for c in calls if c[1] == "flaky") == 1:
            route.fulfill(status=503, body="{}", content_type="application/json")
        elif path == "bad":
            route.fulfill(status=400, body='{"error": {"message": "refused for a reason"}}', content_type="application/json")
        elif path == "auth":
            route.fulfill(status=401, body="{}", content_type="application/json")
        else:
            route.fulfill(status=200, body='{"ok": true}', content_type="application/json")

    page.route("**/autosave-test/**", answer)
    out = page.evaluate("""async () => {
        const states = [], refused = [], saved = [];
        const q = new AutosaveQueue({key: 'test:queue', csrfToken: 'tok',
          onStatus: (s) => states.push(s.state), onRefused: (op, status) => refused.push([op.url, status]),
          onSaved: (op) => saved.push(op.url)});
        q.put('/autosave-test/flaky', {rev: 1});
        q.put('/autosave-test/ok', {n: 1}, {key: 'k'});
        let live = 'first';
        q.post('/autosave-test/ok', () => ({live: live}), {key: 'p', quiet: true});
        q.put('/autosave-test/ok', {n: 2}, {key: 'k'});          // replaces {n: 1} (not sent yet) where it stands
        q.delete('/autosave-test/bad', {rev: 3});
        const stored = JSON.parse(localStorage.getItem('test:queue'));
        live = 'at send time';
        const flushed = await q.flush(10000);
        const after = localStorage.getItem('test:queue');
        const revs = [q.nextRev('x'), q.nextRev('x')]; q.seenRev('x', 10); revs.push(q.nextRev('x'));
        const q2 = new AutosaveQueue({key: 'test:queue2', csrfToken: 'tok'});
        q2.put('/autosave-test/auth', {rev: 1});
        const flushed2 = await q2.flush(1500);
        return {stored: stored.map(o => [o.method, o.url, o.body]), flushed, after, pending: q.pending(), states, refused,
                saved, revs, uuid: AutosaveQueue.uuid(), flushed2, pending2: q2.pending(),
                stored2: JSON.parse(localStorage.getItem('test:queue2')).length};
    }""")
    assert out["stored"] == [["PUT", "/autosave-test/flaky", {"rev": 1}], ["PUT", "/autosave-test/ok", {"n": 2}],
                             ["POST", "/autosave-test/ok", {"live": "first"}], ["DELETE", "/autosave-test/bad", {"rev": 3}]]
    assert out["flushed"] is True and out["after"] is None and out["pending"] == 0
    sent = [(m, p, b) for m, p, b, _tok in calls if p != "auth"]
    assert sent == [("PUT", "flaky", {"rev": 1}), ("PUT", "flaky", {"rev": 1}), ("PUT", "ok", {"n": 2}),
                    ("POST", "ok", {"live": "at send time"}), ("DELETE", "bad", {"rev": 3})]
    assert all(tok == "tok" for *_x, tok in calls)
    assert "offline" in out["states"] and out["states"][-1] == "error"       # the refusal is shown until a success
    assert out["refused"] == [["/autosave-test/bad", 400]]
    assert out["revs"] == [1, 2, 11]
    assert len(out["uuid"]) == 36 and out["uuid"][14] == "4"
    # signed out: sending stops, the change stays stored for the next visit
    assert out["flushed2"] is False and out["pending2"] == 1 and out["stored2"] == 1
    ctx.close()
