"""Real-browser test of the reader study: Playwright driving Debian's chromium against a live server.

A reader types the passphrase, reads Translation 1 (reloading half-way: the page keeps the position),
answers its questions (reloading half-way: the answers are kept), reads Translation 2, answers, compares,
finishes Part 1, finds Part 2 locked, comes back after the break (the server clock moved), highlights
words with the mouse (selection + popover) and with the keyboard, removes one by clicking it, answers every
chunk, reloads mid-way and finds every answer and highlight again, finishes; then the final questions with
the feedback. Screenshots go to tests/artifacts/reader-*.png.
"""

from __future__ import annotations

import time
from datetime import timedelta
from functools import partial

import pytest
from reader_api import Book
from reader_helpers import PASSWORD, books_of, build_reader_world, new_study

from tests.support.browser import live_server, login_page, screenshots, twin_app, wait_for_saves

pytestmark = pytest.mark.browser

ERRORS: list[str] = []


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reader-browser")
    with live_server(db_template, tmp) as (base, app, url):
        world = build_reader_world(app, tmp)
        with twin_app(tmp, url) as world.api_app:   # the test's own API calls, without CSRF
            yield base, world


@pytest.fixture(autouse=True)
def _no_js_errors():
    from enface.campaigns import clock

    ERRORS.clear()
    yield
    clock.shift(None)
    assert not ERRORS, ERRORS


def login(browser, base, email):
    # (refusals the test provokes, a wrong passphrase and the locked page, are logged as failed loads: ignored)
    return login_page(browser, base, email, PASSWORD, ERRORS, (1366, 860), console=True)


shot = screenshots("reader")


def ready(page):
    page.wait_for_selector("body[data-ready='1']", timeout=10000)


def open_book(page, base, public_id):
    page.goto(f"{base}/annotate/item/{public_id}")
    ready(page)


wait_saved = partial(wait_for_saves, pending="window.enfaceReader ? window.enfaceReader.pending() : -1",
                     what="answers")


def reload(page):
    wait_saved(page)
    page.reload()
    ready(page)


def confirm(page):
    page.wait_for_selector("#confirm:not([hidden])")
    page.click("#confirm-yes")


def responses(world, public_id):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        a = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        live = [r for r in a.responses if not r.deleted]
        return ({(r.kind, r.key): r.data for r in live if r.kind != "highlight"},
                [dict(r.data, chunk=int(r.key)) for r in live if r.kind == "highlight"], a.stage, a.state,
                dict(a.times or {}))


def read_to_the_end(page, label):
    """Scroll through the book like a reader (a few screens a step), checking the progress bar grows."""
    assert page.inner_text(".rd-kicker").strip().lower() == f"translation {label}"
    height = page.evaluate("() => document.documentElement.scrollHeight")
    y = 0
    while y < height:
        y += 500
        page.mouse.wheel(0, 500)
        page.wait_for_timeout(60)
    page.wait_for_timeout(200)
    assert not page.is_disabled("#done-reading")


def answer_form(page, form, answers):
    for q, value in answers.items():
        fs = f"#{form} fieldset[data-q='{q}']"
        if isinstance(value, str) and page.locator(f"{fs} textarea").count():
            page.fill(f"{fs} textarea", value)
        else:
            page.click(f"{fs} input[value='{value}'] + *" if page.locator(f"{fs} .rq-dot").count()
                       else f"{fs} label:has(input[value='{value}'])")


SINGLE = {"acceptability": 4, "smoothness": 3, "immersion": 4, "continue": 5, "positive": "The dialogue felt alive.",
          "negative": "A few stiff phrases.", "origin": "human", "origin_confidence": 3}
COMPARE = {"dialogue": "1", "word_choice": "none", "continue_choice": "1-clearly",
           "continue_why": "T1 kept me inside the story; T2 was stiffer.", "ai_version": "2", "ai_confidence": 4,
           "ai_why": "T2 sounded literal."}


def api_client(world, email):
    c = world.api_app.test_client()
    r = c.post("/auth/login", data={"email": email, "password": PASSWORD})
    assert r.status_code in (302, 303), r.status_code
    return c


def select_words(page, side, k1, k2):
    """Drag the mouse from word k1 to word k2 of column T<side>."""
    a = page.locator(f".rd-text[data-side='{side}'] .t[data-k='{k1}']").bounding_box()
    b = page.locator(f".rd-text[data-side='{side}'] .t[data-k='{k2}']").bounding_box()
    page.mouse.move(a["x"] + 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move((a["x"] + b["x"]) / 2, b["y"] + b["height"] / 2, steps=4)
    page.mouse.move(b["x"] + b["width"] - 2, b["y"] + b["height"] / 2, steps=4)
    assert page.is_hidden("#hl-popover")
    page.mouse.up()
    page.wait_for_selector("#hl-popover:not([hidden])")


def test_a_reader_walks_through_the_study(live, browser):
    from enface.campaigns import clock

    base, world = live
    cid = new_study(world, passphrase="evening lamp", lock_hours=24, chunk_words=60,
                    readers=("reader1@example.org", "reader2@example.org"))
    books = books_of(world, cid, "reader1@example.org")
    pid = books[0]["public_id"]
    ctx, page = login(browser, base, "reader1@example.org")

    # -- the list and the passphrase
    page.goto(f"{base}/annotate/")
    shot(page, "00-list")
    open_book(page, base, pid)
    assert page.is_visible("#passphrase-form")
    shot(page, "01-passphrase")
    page.fill("#passphrase-input", "morning lamp")
    page.press("#passphrase-input", "Enter")
    page.wait_for_selector("#passphrase-error:not([hidden])")
    assert "passphrase" in page.inner_text("#passphrase-error")
    page.fill("#passphrase-input", "Evening Lamp")
    page.press("#passphrase-input", "Enter")
    page.wait_for_selector("#book")
    ready(page)

    # -- Translation 1: read, reload half-way (position kept), read to the end
    shot(page, "02-reading-top")
    assert page.is_disabled("#done-reading")
    page.mouse.wheel(0, 900)
    page.wait_for_timeout(300)
    para_before = page.evaluate("() => { const ps = [...document.querySelectorAll('.rd-pages p')];"
                                " return ps.findIndex(p => p.getBoundingClientRect().bottom > 12); }")
    assert para_before > 0
    shot(page, "03-reading-middle")
    page.wait_for_timeout(4200)            # the position is saved every 4 seconds
    reload(page)
    page.wait_for_timeout(300)
    para_after = page.evaluate("() => { const ps = [...document.querySelectorAll('.rd-pages p')];"
                               " return ps.findIndex(p => p.getBoundingClientRect().bottom > 12); }")
    assert para_after == para_before, (para_before, para_after)
    read_to_the_end(page, "1")
    shot(page, "04-reading-end")
    page.click("#done-reading")
    confirm(page)
    page.wait_for_selector("#single-form")
    ready(page)

    # -- its questions: half of them, reload, the rest
    shot(page, "05-questions-1", full=True)
    answer_form(page, "single-form", {k: SINGLE[k] for k in ("acceptability", "smoothness", "positive")})
    page.click("#single-form fieldset[data-q='immersion'] legend")   # leave the textarea: saved
    reload(page)
    assert page.is_checked("#single-form fieldset[data-q='acceptability'] input[value='4']")
    assert page.is_checked("#single-form fieldset[data-q='smoothness'] input[value='3']")
    assert page.input_value("#single-form fieldset[data-q='positive'] textarea") == SINGLE["positive"]
    # the next step names what is missing
    page.click("#next-step")
    assert "Still to answer" in page.inner_text("#form-missing")
    assert page.is_hidden("#confirm")
    # rereading the text is possible while answering
    page.click("#reread")
    assert page.is_visible("#book") and page.is_hidden("#questions")
    page.click("#back-to-questions")
    answer_form(page, "single-form", SINGLE)
    page.click("#next-step")
    confirm(page)
    page.wait_for_selector("#book")
    ready(page)

    # -- Translation 2, its questions, the comparison
    read_to_the_end(page, "2")
    page.click("#done-reading")
    confirm(page)
    page.wait_for_selector("#single-form")
    ready(page)
    answer_form(page, "single-form", SINGLE)
    page.click("#next-step")
    confirm(page)
    page.wait_for_selector("#compare-form")
    ready(page)
    answer_form(page, "compare-form", COMPARE)
    shot(page, "06-compare", full=True)
    page.click("#finish-stage")
    confirm(page)
    page.wait_for_selector("#lock")
    shot(page, "07-locked")
    assert "opens on" in page.inner_text("#lock")
    found, _h, stage, _state, times = responses(world, pid)
    assert stage == 1 and times.get("read:1", 0) > 0 and times.get("read:2", 0) > 0
    assert found[("compare", "")]["ai_version"] == "2" and found[("single", "1")] == SINGLE

    # -- a day later: close reading
    clock.shift(timedelta(hours=24, minutes=5))
    open_book(page, base, pid)
    page.wait_for_selector("#close")
    n_chunks = page.locator("#chunk-list button").count()
    assert n_chunks >= 3
    shot(page, "08-close-start")
    # mouse: words 2..4 of T1 are good
    select_words(page, "1", 2, 4)
    shot(page, "09-popover")
    page.click("#hl-popover button[data-label='good']")
    # mouse + key: words 6..7 of T2 are poor (P in the popover)
    select_words(page, "2", 6, 7)
    page.keyboard.press("p")
    # a third one, then removed by clicking it
    select_words(page, "1", 8, 9)
    page.click("#hl-popover button[data-label='poor']")
    assert page.locator(".rd-text[data-side='1'] mark.hl").count() == 2
    page.locator(".rd-text[data-side='1'] mark.hl.poor").click()
    assert page.locator(".rd-text[data-side='1'] mark.hl").count() == 1
    # keyboard only: focus T2, move to the 11th word, extend over two more, G
    page.focus(".rd-text[data-side='2']")
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("g")
    assert page.locator(".rd-text[data-side='2'] mark.hl.good").count() == 1
    wait_saved(page)
    shot(page, "10-highlights")
    page.click("#next-chunk")
    assert "Still to answer" in page.inner_text("#form-missing")     # the questions first
    answer_form(page, "chunk-form", {"preference": "1", "justification": "T1 is livelier; T2 is stiff.",
                                     "difficulty": "better"})
    shot(page, "11-chunk-answered", full=True)
    page.click("#next-chunk")
    assert page.inner_text("#chunk-now") == "2"
    select_words(page, "2", 0, 1)
    page.click("#hl-popover button[data-label='good']")
    answer_form(page, "chunk-form", {"preference": "2", "justification": "T2 reads better here.",
                                     "difficulty": "similar"})
    page.click("#chunk-form fieldset[data-q='difficulty'] legend")
    # a mouse highlight after the answers, then Tab and the arrow keys: the preference stays T2
    page.locator(".rd-text[data-side='1'] .t[data-k='3']").scroll_into_view_if_needed()
    select_words(page, "1", 3, 4)
    page.click("#hl-popover button[data-label='poor']")
    assert page.evaluate("document.activeElement.dataset.side") == "1"     # focus back on the text
    for key in ("Tab", "Tab", "Tab", "ArrowLeft", "ArrowUp", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
    assert page.is_checked("#chunk-form fieldset[data-q='preference'] input[value='2']")
    page.focus("#chunk-form fieldset[data-q='preference'] input[value='2']")
    page.keyboard.press("ArrowLeft")            # the focus moves, the choice does not
    assert page.is_checked("#chunk-form fieldset[data-q='preference'] input[value='2']")
    assert page.evaluate("document.activeElement.value") != "2"
    page.keyboard.press("Space")                # Space chooses
    assert not page.is_checked("#chunk-form fieldset[data-q='preference'] input[value='2']")
    page.click("#chunk-form fieldset[data-q='preference'] input[value='2']")
    page.locator(".rd-text[data-side='1'] mark.hl.poor").click()          # (the extra highlight goes again)

    # reload mid-way: every answer and highlight is still there
    reload(page)
    assert page.inner_text("#chunk-now") == "2"
    assert page.is_checked("#chunk-form fieldset[data-q='preference'] input[value='2']")
    assert page.locator(".rd-text[data-side='2'] mark.hl.good").count() == 1
    page.click("#chunk-list button[data-chunk='1']")
    assert page.is_checked("#chunk-form fieldset[data-q='difficulty'] input[value='better']")
    assert page.locator(".rd-text[data-side='1'] mark.hl.good").count() == 1
    assert page.locator(".rd-text[data-side='2'] mark.hl").count() == 2
    _f, hls, *_ = responses(world, pid)
    assert sorted((h["chunk"], h["side"], h["label"]) for h in hls) == [(1, "1", "good"), (1, "2", "good"),
                                                                          (1, "2", "poor"), (2, "2", "good")]
    for h in hls:
        assert h["text"].split()[0] in page.evaluate("() => document.body.innerText") or h["chunk"] == 2
    page.click("#chunk-list button[data-chunk='2']")
    page.click("#next-chunk")
    for n in range(3, n_chunks + 1):
        assert page.inner_text("#chunk-now") == str(n)
        answer_form(page, "chunk-form", {"preference": "1", "justification": f"Chunk {n}: T1.",
                                         "difficulty": "significantly_better"})
        if n < n_chunks:
            page.click("#next-chunk")
    shot(page, "12-last-chunk")
    page.click("#finish-stage")
    confirm(page)
    # the first book's final stage passes on its own: on to book 2
    page.wait_for_url(f"**/annotate/item/{books[1]['public_id']}", timeout=10000)
    ready(page)
    found, hls, stage, state, _t = responses(world, pid)
    assert state == "finished"
    assert all(found[("chunk", str(n))]["preference"] for n in range(1, n_chunks + 1))

    # -- book 2 through the API (the same pages, tested above), then the final questions in the browser
    client = api_client(world, "reader1@example.org")
    b2 = Book(client, books[1]["public_id"])
    b2.immersive()
    clock.shift(timedelta(hours=49))
    b2.close()
    open_book(page, base, books[1]["public_id"])
    page.wait_for_selector("#post-form")
    page.wait_for_timeout(500)
    assert page.inner_text("#save-status") == "All changes saved"    # (a late bookmark from book 2 is harmless)
    shot(page, "13-final-questions", full=True)
    feedback = page.inner_text("#feedback")
    assert "Book 1" in feedback and "Book 2" in feedback
    assert "identified the AI-translated version of Book 1" in page.inner_text("#post-form")
    answer_form(page, "post-form", {"expectations": "I expected stiff prose."})
    page.click("#post-form fieldset[data-q='accuracy'] legend")
    reload(page)
    assert page.input_value("#post-form fieldset[data-q='expectations'] textarea") == "I expected stiff prose."
    answer_form(page, "post-form", {"accuracy": "Somewhat surprised.", "opinion": "Readable, uneven."})
    page.click("#finish-stage")
    confirm(page)
    page.wait_for_selector("#done")
    shot(page, "14-done")
    found, *_rest = responses(world, books[1]["public_id"])
    assert found[("post", "")]["opinion"] == "Readable, uneven."
    ctx.close()


def test_the_organizer_pages(live, browser):
    """The creation form, the design before the start, progress and results after some reading."""
    from enface.campaigns import clock

    base, world = live
    readers = tuple(f"reader{n}@example.org" for n in range(1, 5))
    cid = new_study(world, readers=readers, ranges="lantern\nharbour\norchard\nmill", start=False, lock_hours=24)
    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/new?protocol=reader")
    shot(page, "20-organizer-pick")
    page.goto(f"{base}/campaigns/new?testset={world.testset_id}&protocol=reader")
    shot(page, "21-organizer-new", full=True)
    page.goto(f"{base}/campaigns/{cid}")
    assert page.locator("#design-readers tbody tr").count() == 4
    shot(page, "22-dashboard-design", full=True)
    page.click("text=Start: assign the books")
    page.click("button:has-text('Yes, start and assign the items')")   # the confirmation page
    page.wait_for_selector("#progress-table")
    # two readers finish Part 1 of a book (one far too fast), one starts Part 2 a day later
    for n, ms in ((1, 400_000), (2, 4_000)):
        b = Book(api_client(world, f"reader{n}@example.org"), books_of(world, cid, f"reader{n}@example.org")[0]["public_id"])
        b.immersive(ms=ms)
    page.goto(f"{base}/campaigns/{cid}?t={time.monotonic()}#progress")
    assert page.locator("#progress-table tr.stage-locked").count() == 2
    assert "fast reading" in page.inner_text("#progress-table")
    clock.shift(timedelta(hours=25))
    b = Book(api_client(world, "reader1@example.org"), books_of(world, cid, "reader1@example.org")[0]["public_id"])
    b.close()
    page.goto(f"{base}/campaigns/{cid}?t={time.monotonic()}#progress")
    assert page.locator("#progress-table tr.stage-close").count() == 1
    # the rows read by book: one open group per document, in name order, none finished yet
    groups = page.eval_on_selector_all("#progress-table details.doc-group", """els => els.map(d => [
        d.dataset.document, d.open, d.querySelector('summary').innerText, d.querySelectorAll('tbody tr').length])""")
    assert [g[0] for g in groups] == sorted(["lantern", "harbour", "orchard", "mill"])
    assert all(g[1] and f"0 of {g[3]} books finished" in g[2] for g in groups), groups
    assert sum(g[3] for g in groups) == page.locator("#progress-table tbody tr").count() >= 4
    shot(page, "23-dashboard-progress", full=True)
    page.goto(f"{base}/campaigns/{cid}/results")
    assert page.is_visible("#preferences")
    shot(page, "24-results", full=True)
    ctx.close()


def test_a_reader_in_two_studies_tells_them_apart(live, browser):
    """Two studies on one reader's list: two sections, each titled by its study's name."""
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    base, world = live
    readers = ("reader3@example.org", "reader4@example.org")
    first, second = new_study(world, readers=readers, seed=31), new_study(world, readers=readers, seed=32)
    with world.ctx(), db.write():
        db.session.get(Campaign, first).name = "Lantern study, spring"
        db.session.get(Campaign, second).name = "Lantern study, autumn"
    ctx, page = login(browser, base, "reader3@example.org")
    page.goto(f"{base}/annotate/")
    titles = [t for t in page.locator("h2.reader-study-title").all_inner_texts() if t.startswith("Lantern study,")]
    assert len(titles) == 2   # (the module's other tests may have put the reader in a study too)
    assert titles[0].startswith("Lantern study, spring") and titles[1].startswith("Lantern study, autumn")
    assert page.locator(f"#study-{first} + table.reader-books tbody tr").count() >= 1
    shot(page, "two-studies")
    # the guidelines' time estimates follow this book's length (not a fixed 1.5 and 2.5 hours)
    from enface.campaigns.models import Assignment
    from enface.protocols.reader.design import time_estimates
    from enface.protocols.reader.stages import words_of
    from sqlalchemy import select

    book = books_of(world, first, "reader3@example.org")[0]
    with world.ctx():
        asg = db.session.scalar(select(Assignment).where(Assignment.public_id == book["public_id"]))
        words = max(words_of(asg).values())
    part1, part2 = time_estimates(words, 60)
    open_book(page, base, book["public_id"])
    text = page.inner_text("#guidelines")
    assert f"Part 1, immersive reading ({part1})" in text and f"Part 2, close reading ({part2})" in text
    assert "1.5 hours" not in text and "2.5 hours" not in text
    ctx.close()
