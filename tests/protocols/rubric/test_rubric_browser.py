"""Real-browser test of the rubric item page: Playwright driving Debian's chromium against a live server.

An annotator scores an item with two phenomena by keyboard only (0/1/2 move through the criteria; Specific 0
locks both General scores at 0), opens the level descriptions (h), writes a comment (c, Esc), reloads and
finds every score; finishes with Enter and lands on the next item; on a Cultural Safety item marks a justified
refusal (r), which sets Sensitive Information Handling to 2 and locks it; is refused a General score under
Specific 0 and an incomplete finish, with the reasons on the page. The organizer's dashboard then shows the
results. Screenshots go to tests/artifacts/rubric-*.png.
"""

from __future__ import annotations

from functools import partial

import pytest
from rubric_helpers import PASSWORD, annotator_assignments, build_rubric_world, items_of, new_rubric

from tests.support.browser import live_server, login_page, screenshots, twin_app, wait_for_saves

pytestmark = pytest.mark.browser

ERRORS: list[str] = []


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rubric-browser")
    with live_server(db_template, tmp) as (base, app, url), twin_app(tmp, url) as twin:
        world = build_rubric_world(twin, annotators=1)
        cid = new_rubric(world, annotators=("ann1@example.org",), redundancy=1)
        yield base, world, cid


@pytest.fixture(autouse=True)
def _no_js_errors():
    ERRORS.clear()
    yield
    assert not ERRORS, ERRORS


def login(browser, base, email):
    return login_page(browser, base, email, PASSWORD, ERRORS, (1280, 900), console=True)


shot = screenshots("rubric", full=True)


def open_item(page, base, public_id):
    page.goto(f"{base}/annotate/item/{public_id}")
    page.wait_for_selector("#rubric[data-ready='1']", timeout=10000)


wait_saved = partial(wait_for_saves, pending="window.enfaceRubric.pending()", what="scores")


def chosen(page, dimension, criterion):
    sel = f".rb-phenomenon[data-dimension='{dimension}'] [data-criterion='{criterion}'] .rb-choice.chosen"
    found = page.query_selector(sel)
    return int(found.get_attribute("data-score")) if found else None


def active(page):
    el = page.query_selector(".rb-criterion.active")
    return (el.evaluate("e => e.closest('.rb-phenomenon').dataset.dimension"), el.get_attribute("data-criterion"))


def stored(world, public_id):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        asg = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id))
        by_key = {}
        for r in sorted(asg.responses, key=lambda r: r.id):
            if not r.deleted:
                by_key[r.key] = r.data
        return asg.state, by_key


def test_score_by_keyboard_reload_and_finish(live, browser):
    base, world, cid = live
    states = items_of(world, cid, "ann1@example.org")
    two = next(s for s in states if s["item"]["document"] == "tea-house" and s["item"]["segment"] == 4)
    pid = two["item"]["id"]
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, pid)
    assert active(page) == ("tense", "sp")
    for key in "212":       # tense: S 2, G1 1, G2 2, then on to the zero-pronoun phenomenon
        page.keyboard.press(key)
    assert active(page) == ("zero_pronoun", "sp")
    page.keyboard.press("0")   # Specific 0: both General scores become 0 and lock
    assert [chosen(page, "zero_pronoun", k) for k in ("sp", "g_1", "g_2")] == [0, 0, 0]
    assert page.is_visible(".rb-phenomenon[data-dimension='zero_pronoun'] [data-criterion='g_1'].locked")
    page.keyboard.press("j")
    page.keyboard.press("1")   # refused: locked
    error = page.inner_text(".rb-phenomenon[data-dimension='zero_pronoun'] .rb-error")
    assert "Locked: the Specific score is 0" in error
    assert chosen(page, "zero_pronoun", "g_1") == 0
    page.keyboard.press("h")
    assert page.is_visible(".rb-phenomenon[data-dimension='tense'] [data-criterion='sp'] .rb-levels")
    page.keyboard.press("c")
    page.keyboard.type("Both dropped subjects are wrong.")
    page.keyboard.press("Escape")
    wait_saved(page)
    page.wait_for_timeout(600)   # the comment's own short debounce
    wait_saved(page)
    shot(page, "scored")

    state, data = stored(world, pid)
    by_dim = {p["dimension"]: data[p["id"]] for p in two["phenomena"]}
    assert {k: by_dim["tense"][k] for k in ("sp", "g_1", "g_2")} == {"sp": 2, "g_1": 1, "g_2": 2}
    assert by_dim["zero_pronoun"] == {"sp": 0, "g_1": 0, "g_2": 0, "refusal": None,
                                      "comment": "Both dropped subjects are wrong."}
    assert state == "started"

    page.reload()
    page.wait_for_selector("#rubric[data-ready='1']")
    assert [chosen(page, "tense", k) for k in ("sp", "g_1", "g_2")] == [2, 1, 2]
    assert [chosen(page, "zero_pronoun", k) for k in ("sp", "g_1", "g_2")] == [0, 0, 0]
    assert page.input_value(".rb-phenomenon[data-dimension='zero_pronoun'] textarea") == \
        "Both dropped subjects are wrong."
    shot(page, "reloaded")

    page.keyboard.press("Enter")   # asks first: one Enter finishes nothing
    page.wait_for_selector("#finish-confirm:not([hidden])")
    assert "Finish this item?" in page.inner_text("#finish-confirm")
    page.wait_for_timeout(300)
    assert stored(world, pid)[0] == "started" and pid in page.url
    shot(page, "finish-confirm", full=False)
    page.keyboard.press("Escape")  # back to scoring: still not finished, a score key scores again
    assert page.locator("#finish-confirm").is_hidden() and stored(world, pid)[0] == "started"
    page.keyboard.press("Enter")
    page.wait_for_selector("#finish-confirm:not([hidden])")
    page.keyboard.press("Enter")   # Enter again: finished, the next item opens
    page.wait_for_url(lambda url: pid not in url, timeout=10000)
    page.wait_for_selector("#rubric[data-ready='1']")
    assert stored(world, pid)[0] == "finished"
    # an unscored item cannot be finished: the reason is shown, nothing changes
    page.keyboard.press("Enter")
    page.wait_for_selector("#finish-error:not([hidden])")
    assert "Score every criterion first" in page.inner_text("#finish-error")
    shot(page, "incomplete", full=False)
    page.goto(f"{base}/annotate/")
    assert "1 of 45 items finished" in page.inner_text("main")
    shot(page, "list", full=False)
    ctx.close()


def test_refusal_by_keyboard_and_the_organizers_results(live, browser):
    base, world, cid = live
    with world.ctx():   # other tests of this module's world may have finished items before this one
        finished_before = {a.public_id for a in annotator_assignments(world, cid, "ann1@example.org")
                           if a.state == "finished"}
    states = items_of(world, cid, "ann1@example.org")
    safety = next(s for s in states if s["phenomena"][0]["dimension"] == "cultural_safety"
                  and s["translation"].startswith("I'm sorry"))
    pid = safety["item"]["id"]
    ctx, page = login(browser, base, "ann1@example.org")
    open_item(page, base, pid)
    page.keyboard.press("2")          # Content Compliance 2
    page.keyboard.press("r")          # justified refusal: Sensitive Information Handling 2, locked
    assert page.is_checked(".rb-refusal-row input[value='justified']")
    assert chosen(page, "cultural_safety", "g_2") == 2
    page.keyboard.press("r")          # unjustified: 0
    assert chosen(page, "cultural_safety", "g_2") == 0
    page.keyboard.press("1")          # Value Alignment 1 (the cursor is on G1)
    wait_saved(page)
    shot(page, "refusal")
    _, data = stored(world, pid)
    assert data[safety["phenomena"][0]["id"]] == {"sp": 2, "g_1": 1, "g_2": 0, "refusal": "unjustified",
                                                  "comment": ""}
    page.keyboard.press("Enter")
    page.click("#finish-yes")       # the button of the question finishes too
    page.wait_for_url(lambda url: pid not in url, timeout=10000)
    assert stored(world, pid)[0] == "finished"
    ctx.close()

    with world.ctx():
        finished = {a.public_id for a in annotator_assignments(world, cid, "ann1@example.org")
                    if a.state == "finished"}
    assert finished - finished_before == {pid}
    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/campaigns/{cid}#results")
    page.wait_for_selector("#rubric-systems")
    text = page.inner_text("#rubric-systems")
    assert "Cultural Safety" in text and "Average Σ" in text
    if finished_before:   # the module's first test finished a tense item in this world
        assert "Tense Consistency" in text
    shot(page, "dashboard")
    page.goto(f"{base}/campaigns/new?testset={world.testset_id}&protocol=rubric")
    page.wait_for_selector("#rubric-new")
    assert "17 tagged phenomena" in page.inner_text("#phenomena-count")
    page.fill("#name", "Second rubric")
    page.fill("#ranges", "sect-trial")
    page.click("#rubric-new button[type=submit]")
    page.wait_for_selector("#phenomena-table")
    assert "Second rubric" in page.inner_text("h1")
    shot(page, "new-campaign-draft")
    ctx.close()


def test_import_errors_show_one_a_line(live, browser, tmp_path):
    import shutil
    import zipfile

    from rubric_helpers import PHENOMENA_DIR

    base, world, _cid = live
    folder = tmp_path / "bad-set"
    shutil.copytree(PHENOMENA_DIR / "testset", folder)
    (folder / "testset.json").write_text((folder / "testset.json").read_text(encoding="utf-8")
                                         .replace("Demo phenomena zh-en", "Broken phenomena"), encoding="utf-8")
    (folder / "phenomena.jsonl").write_text(
        '{"document": "tea-house", "segment": 99, "dimension": "idiom", "requirement": "x"}\n'
        '{"document": "tea-house", "segment": 1, "dimension": "poetry", "requirement": "x"}\n{oops\n', encoding="utf-8")
    archive = tmp_path / "bad-set.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in folder.rglob("*"):
            z.write(path, str(path.relative_to(tmp_path)))
    ctx, page = login(browser, base, "org@example.org")
    page.goto(f"{base}/admin/testsets/import")
    page.fill("input[name=task]", "Broken")
    page.set_input_files("input[name=archive]", str(archive))
    page.click("form[enctype='multipart/form-data'] button[type=submit]")
    page.wait_for_selector(".flash.error")
    # the lines are one a line by style.css (white-space: pre-line): read them once the page has loaded
    # its stylesheet, or innerText may join them with spaces (it did once, in the PostgreSQL pass)
    page.wait_for_load_state("load")
    page.wait_for_function("getComputedStyle(document.querySelector('.flash.error')).whiteSpace === 'pre-line'")
    lines = page.inner_text(".flash.error").splitlines()
    assert lines == ["phenomena.jsonl:1: segment 99 is out of range: 'tea-house' has segments 1-10",
                     "phenomena.jsonl:2: unknown dimension 'poetry' (one of: idiom, ambiguity, terminology, tense, "
                     "zero_pronoun, cultural_safety)",
                     "phenomena.jsonl:3: not valid JSON: Expecting property name enclosed in double quotes (column 2)"]
    shot(page, "import-errors", full=False)
    ctx.close()
