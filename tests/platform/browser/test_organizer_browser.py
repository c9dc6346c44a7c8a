"""Real browser (Playwright + Debian's chromium), issue 15: what organizers tripped over.

* a test set imported with a name, renamed, deleted after a confirmation page (a reload asks again); one
  that was submitted to cannot be deleted, and says why;
* phenomenon tags can change while an MQM campaign runs on the test set, not once a rubric campaign did;
* Start and Release answer a GET (a reload, a bookmark) with their confirmation page, not a 405;
* an MQM campaign with the human reference: chosen on the form, marked "Human reference" in the campaign's
  ranking and in the leaderboard's human ranking;
* a full progress bar fills its whole track, and the track spans its column.

Screenshots: tests/artifacts/organizer-*.png.
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from PIL import Image

from tests.support.browser import chromium, live_server, login_page, screenshots, twin_app
from tests.support.campaigns import (
    PASSWORD,
    World,
    annotate_all,
    build_world,
    new_campaign,
    set_testset_released,
    write_testset,
)

pytestmark = pytest.mark.browser
shot = screenshots("organizer", full=True)
SYSTEMS = ["zephyr-mt", "quokka-nmt", "walrus-baseline"]
TRACK = (0xE6, 0xE9, 0xEE)       # a progress bar's track (style.css); its value has the page's accent colour


def _zip_of(folder) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path in folder.rglob("*"):
            if path.is_file():
                z.write(path, path.relative_to(folder).as_posix())
    return buf.getvalue()


def _near(pixel, colour, tolerance=40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], colour))


def _bar_colours(locator) -> tuple[tuple, tuple]:
    """The colours at 3 % and 97 % of a progress bar's width, on its middle line."""
    image = Image.open(io.BytesIO(locator.screenshot())).convert("RGB")
    w, h = image.size
    return image.getpixel((int(w * 0.03), h // 2)), image.getpixel((int(w * 0.97), h // 2))


def test_test_sets_are_named_renamed_and_deleted(db_template, tmp_path):
    errors: list[str] = []
    with live_server(db_template, tmp_path) as (base, app, _url), chromium() as browser:
        world = build_world(app, tmp_path)
        ctx, page = login_page(browser, base, "org@example.org", PASSWORD, errors)

        page.goto(f"{base}/admin/testsets/import")
        page.fill("input[name=task]", "Literary 2026")
        page.fill("input[name=name]", "Imported under its own name")
        archive = tmp_path / "upload.zip"
        archive.write_bytes(_zip_of(write_testset(tmp_path / "to-upload", {"one": ["A line.", "Another."]},
                                                  name="The name in testset.json")))
        page.set_input_files("input[name=archive]", str(archive))
        shot(page, "import-named")
        page.click("button:has-text('Import')")
        page.wait_for_load_state("networkidle")
        assert "Imported under its own name" in page.locator("h1").inner_text()
        new_url = page.url

        page.fill("#rename input[name=name]", "Renamed set")
        page.click("#rename button:has-text('Rename')")
        page.wait_for_load_state("networkidle")
        assert "Renamed set" in page.locator("h1").inner_text()
        assert "is now called 'Renamed set'" in page.locator(".flash.success").inner_text()
        shot(page, "renamed")

        page.click("a:has-text('Delete this test set')")
        page.get_by_role("heading", name="Delete Literary 2026: Renamed set?").wait_for()
        page.goto(page.url)    # a reload of the confirmation's URL asks again and deletes nothing
        page.get_by_role("heading", name="Delete Literary 2026: Renamed set?").wait_for()
        shot(page, "delete-confirm")
        page.click("button:has-text('Yes, delete the test set')")
        page.locator(".flash.success", has_text="deleted").wait_for()
        assert page.goto(new_url).status == 404

        # the world's test set has submissions: no delete button, and the confirmation says why
        page.goto(f"{base}/admin/testsets/{world.testset_id}")
        assert page.locator("a:has-text('Delete this test set')").count() == 0
        assert "only be deleted before anything is submitted" in page.inner_text("#rename")
        page.goto(f"{base}/admin/testsets/{world.testset_id}/delete")
        assert page.locator("button:has-text('Yes, delete the test set')").is_disabled()
        assert "submissions were made to this test set" in page.inner_text(".confirm")
        shot(page, "delete-refused")
        ctx.close()
    assert not errors, errors


def test_tags_confirmations_references_and_progress_bars(db_template, tmp_path):
    errors: list[str] = []
    with live_server(db_template, tmp_path) as (base, app, url), chromium() as browser, \
            twin_app(tmp_path, url) as twin:
        built = build_world(app, tmp_path)
        world = World(app=twin, testset_id=built.testset_id, subs=built.subs, users=built.users)
        mqm_id = new_campaign(world, systems=SYSTEMS, references=[1], ranges="river.1\norchard")
        draft_id = new_campaign(world, systems=SYSTEMS, ranges="orchard", start=False)
        ctx, page = login_page(browser, base, "org@example.org", PASSWORD, errors)

        # phenomenon tags while a started MQM campaign is on the test set: accepted
        tags = tmp_path / "phenomena.jsonl"
        tags.write_text(json.dumps({"document": "orchard", "segment": 1, "dimension": "idiom",
                                    "requirement": "before the war: a time, not a place"}) + "\n", encoding="utf-8")
        page.goto(f"{base}/admin/testsets/{world.testset_id}")
        page.set_input_files("#phenomena input[name=file]", str(tags))
        page.click("#phenomena button:has-text('Upload')")
        page.locator(".flash.success", has_text="1 phenomena tagged").wait_for()
        shot(page, "tags-with-mqm")
        # ... refused once a rubric campaign (whose items are the tagged segments) has started, with the reason
        from enface.campaigns import services as svc
        from enface.extensions import db
        from enface.models import TestSet, User
        from enface.protocols.rubric.protocol import campaign_input as rubric_campaign_input

        with twin.app_context():
            ts = db.session.get(TestSet, world.testset_id)
            rubric = svc.create_campaign(None, ts, rubric_campaign_input(
                name="Tagged rubric", submission_ids=[world.subs["zephyr-mt"]], testset=ts, seed=1))
            svc.add_annotator(rubric, db.session.get(User, world.users["ann3@example.org"]))
            svc.start_campaign(svc.get_campaign(rubric.id))
        page.set_input_files("#phenomena input[name=file]", str(tags))
        page.click("#phenomena button:has-text('Upload')")
        refusal = page.locator(".flash.error").inner_text()
        assert "the rubric campaign 'Tagged rubric'" in refusal and "its items are the tagged segments" in refusal
        shot(page, "tags-refused")

        # Start, then open its URL again: the confirmation again, not a 405
        page.goto(f"{base}/campaigns/{draft_id}")
        page.click("button:has-text('Start: assign items')")
        page.get_by_role("heading", name="Start Tales MQM?").wait_for()
        reloaded = page.goto(page.url)
        assert reloaded.status == 200
        page.get_by_role("heading", name="Start Tales MQM?").wait_for()
        shot(page, "start-reloaded")
        page.goto(f"{base}/campaigns/{draft_id}")
        assert page.locator("button:has-text('Start: assign items')").count() == 1   # still a draft

        # the MQM campaign with reference 1: every item finished, released, on the released leaderboard
        annotate_all(world, mqm_id, errors_in=SYSTEMS)
        page.goto(f"{base}/campaigns/{mqm_id}/release")      # a GET: the confirmation page
        page.get_by_role("heading", name="Release Tales MQM?").wait_for()
        shot(page, "release-get")
        page.click("button:has-text('Yes, release the results')")
        page.locator(".flash.success", has_text="Released").wait_for()
        set_testset_released(world)

        page.goto(f"{base}/campaigns/{mqm_id}")
        bar = page.locator("progress.campaign-progress")
        assert bar.get_attribute("value") == bar.get_attribute("max")
        column = page.locator("section.campaign-page.dashboard").bounding_box()
        box = bar.bounding_box()
        assert box["width"] >= 0.9 * column["width"], (box, column)    # the track spans the column
        left, right = _bar_colours(bar)
        # full: the value's colour (the page's accent) at both ends, never the track's
        assert _near(left, right, 10) and not _near(right, TRACK), (left, right)
        first = page.locator("#official-ranking tbody tr").first
        assert "reference 1" in first.inner_text() and "Human reference" in first.inner_text()
        shot(page, "dashboard-full-bar")
        with twin.app_context():     # a bar that is not full shows its track where nothing is done yet
            svc.add_annotator(svc.get_campaign(draft_id), db.session.get(User, world.users["ann1@example.org"]))
            svc.start_campaign(svc.get_campaign(draft_id))
        page.goto(f"{base}/campaigns/{draft_id}")
        empty = page.locator("progress.campaign-progress")
        assert empty.get_attribute("value") == "0" and empty.bounding_box()["width"] >= 0.9 * column["width"]
        assert all(_near(c, TRACK) for c in _bar_colours(empty))
        shot(page, "dashboard-empty-bar")

        page.goto(f"{base}/leaderboard/{world.testset_id}")
        ranking = page.locator("#human-ranking")
        row = ranking.locator("tr.kind-reference")
        assert row.count() == 1 and "Human reference" in row.inner_text() and "reference 1" in row.inner_text()
        ranking.scroll_into_view_if_needed()
        shot(page, "leaderboard-reference")

        # the new-campaign form offers the references
        page.goto(f"{base}/campaigns/new?testset={world.testset_id}")
        assert page.locator("#references input[name=references][value='1']").count() == 1
        page.locator("#references").scroll_into_view_if_needed()
        shot(page, "new-campaign-references")
        ctx.close()
    assert not errors, errors
