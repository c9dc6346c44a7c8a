"""The crowd features through the web, on an MQM campaign: account-free links (bad, revoked, passphrase), the
welcome form with consent, the loud and silent tutorial, the gates, and the completion codes."""

from __future__ import annotations

import csv
import io

import pytest

from tests.support.campaigns import assignments_of, new_campaign, put_mark, read_all
from tests.support.crowd import GOOD_WELCOME_ANSWERS, tutorial_text, welcome_text


def _links(world, campaign_id: int, **form) -> list[tuple[str, str]]:
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{campaign_id}/crowd/links", data=form)
    assert resp.status_code == 200, resp.get_data(as_text=True)[:800]
    page = resp.get_data(as_text=True)
    text = page.split('id="new-links-text">', 1)[1].split("</textarea>", 1)[0]
    rows = [line.split(",", 1) for line in text.strip().splitlines()[1:]]
    return [(label, url.replace("http://localhost", "")) for label, url in rows]


def _setup(world, campaign_id: int, *, welcome=True, tutorial=True, codes=True, **extra):
    org = world.client("org@example.org")
    data = {}
    if welcome:
        data["welcome_file"] = (io.BytesIO(welcome_text().encode()), "welcome.json")
    if tutorial:
        data["tutorial_file"] = (io.BytesIO(tutorial_text().encode()), "tutorial.json")
    if codes:
        data.update({"pass_code": "PASS123", "fail_code": "FAIL999", "threshold": "0.75",
                     "redirect": "https://panel.example/complete?cc=${CODE}"})
    data.update(extra)
    resp = org.post(f"/campaigns/{campaign_id}/crowd/setup", data=data, content_type="multipart/form-data")
    assert resp.status_code == 302, resp.get_data(as_text=True)[:1500]


@pytest.fixture
def campaign(world):
    """A draft MQM campaign (one system, two documents) without annotators: links join it, :func:`start` starts it."""
    return new_campaign(world, annotators=(), redundancy=1, systems=["zephyr-mt"], start=False)


def start(world, campaign_id: int) -> None:
    from enface.campaigns import services as svc

    with world.ctx():
        svc.start_campaign(svc.get_campaign(campaign_id))


def _arrive(world, url: str, passphrase: str | None = None):
    c = world.app.test_client()
    landing = c.get(url)
    assert landing.status_code == 200 and "Start" in landing.get_data(as_text=True)
    assert ("passphrase" in landing.get_data(as_text=True)) == (passphrase is not None)
    resp = c.post(url, data={"passphrase": passphrase} if passphrase is not None else {})
    assert resp.status_code == 302, resp.get_data(as_text=True)[:500]
    return c, resp.headers["Location"]


def test_link_annotator_goes_through_consent_tutorial_items_and_gets_the_pass_code(world, campaign):
    _setup(world, campaign)
    (label, url), = _links(world, campaign, count="1", label="wave 1")
    assert label == "wave 1" and "/crowd/l/lnk_" in url
    c, where = _arrive(world, url)
    assert where.endswith(f"/crowd/c/{campaign}")
    step = c.get(where)
    assert step.headers["Location"].endswith(f"/crowd/c/{campaign}/welcome")
    # consent missing: refused with its reason, the answers kept in the page
    refused = c.post(f"/crowd/c/{campaign}/welcome", data={**GOOD_WELCOME_ANSWERS, "q_consent": ""})
    assert refused.status_code == 400
    page = refused.get_data(as_text=True)
    assert "only after agreeing" in page and 'value="26-40" checked' in page
    # the items are closed meanwhile: the gate, on the page and on every write
    start(world, campaign)
    items = assignments_of_link(world, campaign)
    assert items, "the link's annotator got the unstarted work"
    first = items[0]["public_id"]
    assert c.get(f"/annotate/item/{first}").headers["Location"].endswith("/welcome")
    blocked = read_all(c, first, items[0]["segments"])
    assert blocked.status_code == 409 and blocked.get_json()["error"]["code"] == "consent_required"
    ok = c.post(f"/crowd/c/{campaign}/welcome", data=GOOD_WELCOME_ANSWERS)
    assert ok.status_code == 302 and ok.headers["Location"].endswith("/tutorial")
    blocked = read_all(c, first, items[0]["segments"])
    assert blocked.status_code == 409 and blocked.get_json()["error"]["code"] == "tutorial_required"
    # loud item: a wrong answer shows the explanation and the same item again
    wrong = c.post(f"/crowd/c/{campaign}/tutorial", data={"item": "t1", "span": "0:3", "severity": "Major"})
    assert wrong.status_code == 200 and "Hund" in wrong.get_data(as_text=True)
    assert "a Major accuracy error" in wrong.get_data(as_text=True) and 'value="t1"' in wrong.get_data(as_text=True)
    right = c.post(f"/crowd/c/{campaign}/tutorial", data={"item": "t1", "span": "4:8", "severity": "Major"})
    assert right.status_code == 302
    silent = c.post(f"/crowd/c/{campaign}/tutorial", data={"item": "t2", "span_none": "1"})
    assert silent.status_code == 302
    assert c.get(f"/crowd/c/{campaign}/tutorial").headers["Location"].endswith(f"/annotate/item/{first}")
    answers = []
    for a in items:
        assert read_all(c, a["public_id"], a["segments"]).status_code == 200
        answers.append(c.post(f"/annotate/api/items/{a['public_id']}/finish", json={}).get_json())
    assert answers[-1]["next"].endswith(f"/crowd/c/{campaign}/done")    # after the last item: the code
    done = c.get(f"/crowd/c/{campaign}")
    assert done.headers["Location"].endswith("/done")
    page = c.get(f"/crowd/c/{campaign}/done").get_data(as_text=True)
    # 1 of 2 tutorial items right at the first try (the loud one was wrong first, the silent one right): 50% < 75%
    assert "FAIL999" in page and "https://panel.example/complete?cc=FAIL999" in page
    again = c.get(f"/crowd/c/{campaign}/done").get_data(as_text=True)
    assert "FAIL999" in again     # given once, kept
    org = world.client("org@example.org")
    rows = list(csv.DictReader(io.StringIO(org.get(f"/campaigns/{campaign}/crowd/codes.csv").get_data(as_text=True))))
    assert [(r["panel_id"], r["code"], r["passed"], r["right"], r["total"]) for r in rows] == [
        ("wave 1", "FAIL999", "no", "1", "2")]
    welcome_rows = list(csv.DictReader(io.StringIO(
        org.get(f"/campaigns/{campaign}/crowd/welcome.csv").get_data(as_text=True))))
    assert welcome_rows[0]["consent"] == "yes" and welcome_rows[0]["age"] == "26-40" and welcome_rows[0]["langs"] == "de"
    dashboard = org.get(f"/campaigns/{campaign}/crowd").get_data(as_text=True)
    assert "1 / 2 (2 answered, 3 attempts)" in dashboard


def assignments_of_link(world, campaign_id: int) -> list[dict]:
    from enface.crowd.models import CampaignLink
    from enface.extensions import db
    from enface.models import User
    from sqlalchemy import select

    with world.ctx():
        link = db.session.scalar(select(CampaignLink).where(CampaignLink.campaign_id == campaign_id,
                                                            CampaignLink.user_id.is_not(None)))
        email = db.session.get(User, link.user_id).email
    world.users[email] = link.user_id
    return assignments_of(world, campaign_id, email)


def test_a_right_first_answer_gets_the_pass_code_with_the_redirect(world, campaign):
    _setup(world, campaign, welcome=False)
    (_label, url), = _links(world, campaign, count="1")
    c, _ = _arrive(world, url)
    start(world, campaign)
    assert c.post(f"/crowd/c/{campaign}/tutorial", data={"item": "t1", "span": "3:6", "severity": "Major"}).status_code == 302
    assert c.post(f"/crowd/c/{campaign}/tutorial", data={"item": "t2", "span_none": "1"}).status_code == 302
    for a in assignments_of_link(world, campaign):
        assert read_all(c, a["public_id"], a["segments"]).status_code == 200
        assert c.post(f"/annotate/api/items/{a['public_id']}/finish", json={}).status_code == 200
    page = c.get(f"/crowd/c/{campaign}/done").get_data(as_text=True)
    assert "PASS123" in page and "cc=PASS123" in page and "FAIL" not in page
    org = world.client("org@example.org")
    same = {"pass_code": "PASS123", "fail_code": "FAIL999", "threshold": "0.75",
            "redirect": "https://panel.example/complete?cc=${CODE}"}
    assert org.post(f"/campaigns/{campaign}/crowd/setup", data=same).status_code == 302     # unchanged: saved
    changed = org.post(f"/campaigns/{campaign}/crowd/setup", data={**same, "threshold": "0.5"})
    assert changed.status_code == 409 and "already got a code" in changed.get_data(as_text=True)


def test_link_only_account_is_fenced_in(world, campaign):
    other = new_campaign(world, annotators=("ann2@example.org",), redundancy=1, systems=["quokka-nmt"],
                         ranges="orchard")
    (_l, url), = _links(world, campaign, count="1")
    c, _ = _arrive(world, url)
    start(world, campaign)
    for path in ("/auth/password", "/auth/tokens", "/team/", "/submissions", f"/campaigns/{campaign}",
                 f"/campaigns/{campaign}/crowd", f"/campaigns/{campaign}/crowd/codes.csv", f"/crowd/c/{other}",
                 f"/testsets/{world.testset_id}", "/leaderboard/", "/api/v1/me"):
        resp = c.get(path)
        assert resp.status_code in (401, 404), (path, resp.status_code)
    assert c.post("/auth/tokens", data={"name": "x"}).status_code == 404
    other_item = assignments_of(world, other, "ann2@example.org")[0]["public_id"]
    assert c.get(f"/annotate/item/{other_item}").status_code == 404
    assert c.get(f"/annotate/api/items/{other_item}").status_code == 404
    r, _ = put_mark(c, other_item, {"seg": 0, "start": 0, "end": 3, "category": "Style", "subcategory": "Unidiomatic",
                                    "severity": "Minor"})
    assert r.status_code == 404
    assert c.get("/annotate/").headers["Location"].endswith(f"/crowd/c/{campaign}")
    mine = assignments_of_link(world, campaign)[0]["public_id"]
    assert c.get(f"/annotate/item/{mine}").status_code == 200
    assert c.get("/static/style.css").status_code == 200


def test_bad_revoked_and_passphrase_links_are_refused_with_a_sentence(world, campaign):
    app_client = world.app.test_client()
    for token in ("nonsense", "lnk_" + "A" * 32, "lnk_" + "x" * 200, "%00", "lnk_%F0%9F%98%80"):
        resp = app_client.get(f"/crowd/l/{token}")
        assert resp.status_code == 404 and "not valid" in resp.get_data(as_text=True), token
    (_l, url), = _links(world, campaign, count="1", passphrase="open sesame")
    c = world.app.test_client()
    assert "passphrase" in c.get(url).get_data(as_text=True)
    assert c.post(url, data={}).status_code == 403
    wrong = c.post(url, data={"passphrase": "open barley"})
    assert wrong.status_code == 403 and "not the one" in wrong.get_data(as_text=True)
    assert c.get(f"/crowd/c/{campaign}").status_code == 302 and "/auth/login" in c.get(f"/crowd/c/{campaign}").headers["Location"]
    c, _ = _arrive(world, url, passphrase="open sesame")
    start(world, campaign)
    items = assignments_of_link(world, campaign)
    assert c.get(f"/annotate/item/{items[0]['public_id']}").status_code == 200
    from enface.crowd.models import CampaignLink
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        link_id = db.session.scalar(select(CampaignLink.id).where(CampaignLink.campaign_id == campaign))
    org = world.client("org@example.org")
    assert org.post(f"/campaigns/{campaign}/crowd/links/{link_id}/revoke").status_code == 302
    gone = world.app.test_client().get(url)
    assert gone.status_code == 410 and "withdrawn" in gone.get_data(as_text=True)
    # the open session ends with the revocation
    assert c.get(f"/annotate/item/{items[0]['public_id']}").status_code == 302
    assert org.post(f"/campaigns/{campaign}/crowd/links/99999/revoke").status_code == 404


def test_a_logged_in_person_is_never_swapped_into_a_link_account(world, campaign):
    (_l, url), = _links(world, campaign, count="1")
    org = world.client("org@example.org")
    assert "log out first" in org.get(url).get_data(as_text=True)
    assert org.post(url).status_code == 409
    assert org.get(f"/campaigns/{campaign}/crowd").status_code == 200      # still the organizer
    from enface.crowd.models import CampaignLink
    from enface.extensions import db
    from sqlalchemy import select

    with world.ctx():
        assert db.session.scalar(select(CampaignLink.user_id)) is None      # the link is still unused


def test_panel_ids_make_one_link_each_and_refuse_repeats(world, campaign):
    made = _links(world, campaign, panel_ids="P-1\n\nP-2\nP-3\n=HYPERLINK(1)\n")
    assert [label for label, _ in made] == ["P-1", "P-2", "P-3", "=HYPERLINK(1)"]
    url = made[-1][1]
    c, _ = _arrive(world, url)
    start(world, campaign)
    for a in assignments_of_link(world, campaign):
        assert read_all(c, a["public_id"], a["segments"]).status_code == 200
        assert c.post(f"/annotate/api/items/{a['public_id']}/finish", json={}).status_code == 200
    assert c.get(f"/crowd/c/{campaign}/done").status_code == 200
    codes = world.client("org@example.org").get(f"/campaigns/{campaign}/crowd/codes.csv").get_data(as_text=True)
    assert "\n'=HYPERLINK(1)," in codes      # a panel id never runs as a spreadsheet formula
    assert len({url for _l, url in made}) == 4
    org = world.client("org@example.org")
    for form, needle in (({"panel_ids": "P-9\nP-9"}, "listed twice"), ({"panel_ids": "P-2"}, "has a link already"),
                         ({"count": "0"}, "between 1 and"), ({"count": "x"}, "whole number"),
                         ({"count": "2", "panel_ids": "Q"}, "not both"), ({"panel_ids": "bad\x01id"}, "control")):
        resp = org.post(f"/campaigns/{campaign}/crowd/links", data=form)
        assert resp.status_code == 400 and needle in resp.get_data(as_text=True), (form, resp.status_code)


@pytest.mark.parametrize(("data", "needle"), [
    ({"welcome_file": (io.BytesIO(b"{not json"), "w.json")}, "welcome form: file"),
    ({"welcome_file": (io.BytesIO(b'{"questions": []}'), "w.json")}, "non-empty list"),
    ({"welcome_file": (io.BytesIO(b'{"questions": [{"id": "A", "type": "text", "text": "x"}]}'), "w.json")}, "id must"),
    ({"welcome_file": (io.BytesIO(b'{"questions": [{"id": "a", "type": "slider", "text": "x"}]}'), "w.json")},
     "type must be"),
    ({"welcome_file": (io.BytesIO(b'{"questions": [{"id": "a", "type": "consent", "text": "x", "required": false}]}'),
                       "w.json")}, "always required"),
    ({"welcome_file": (io.BytesIO(b"\xff\xfe"), "w.json")}, "not UTF-8"),
    ({"tutorial_file": (io.BytesIO(b'{"items": [{"id": "t", "source": "a", "translation": "b", "expected": '
                                   b'{"span": [0, 9], "severity": "Major"}, "explanation": "e"}]}'), "t.json")},
     "inside the translation"),
    ({"tutorial_file": (io.BytesIO(b'{"items": [{"id": "t", "source": "a", "translation": "bcd", "expected": '
                                   b'{"span": [0, 1], "severity": "Huge"}, "explanation": "e"}]}'), "t.json")},
     "severity must be"),
    ({"tutorial_file": (io.BytesIO(b'{"items": [{"id": "t", "source": "a", "translation": "bcd", "expected": '
                                   b'{"span": null}}]}'), "t.json")}, "needs an explanation"),
    ({"pass_code": "has space"}, "letters, digits"),
    ({"fail_code": "F1"}, "a pass code is needed"),
    ({"pass_code": "P", "fail_code": "P"}, "must differ"),
    ({"pass_code": "P", "threshold": "2"}, "between 0"),
    ({"pass_code": "P", "redirect": "javascript:alert(1)"}, "http(s) address"),
    ({"pass_code": "P", "redirect": "https://x.example/?a=${OTHER}"}, "only placeholder"),
])
def test_forged_setups_are_refused_with_the_reason(world, campaign, data, needle):
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{campaign}/crowd/setup", data=data, content_type="multipart/form-data")
    page = resp.get_data(as_text=True).replace("&#34;", '"').replace("&#39;", "'")
    assert resp.status_code == 400 and needle in page, (resp.status_code, page[:2000])


@pytest.mark.parametrize(("answers", "needle"), [
    ({"q_age": "99-100"}, "choose one of the options"),
    ({"q_age": ""}, "is required"),
    ({"q_langs": ["de", "klingon"]}, "choose among the options"),
    ({"q_years": "NaN"}, "between 0 and 90"),
    ({"q_years": "1e400"}, "between 0 and 90"),
    ({"q_years": "abc"}, "must be a number"),
    ({"q_note": "x" * 301}, "longer than 300"),
    ({"q_consent": "maybe"}, "only after agreeing"),
])
def test_forged_welcome_answers_are_refused_and_nothing_is_stored(world, campaign, answers, needle):
    _setup(world, campaign, tutorial=False, codes=False)
    (_l, url), = _links(world, campaign, count="1")
    c, _ = _arrive(world, url)
    resp = c.post(f"/crowd/c/{campaign}/welcome", data={**GOOD_WELCOME_ANSWERS, **answers})
    assert resp.status_code == 400 and needle in resp.get_data(as_text=True)
    assert c.get(f"/crowd/c/{campaign}").headers["Location"].endswith("/welcome")


@pytest.mark.parametrize("form", [
    {"item": "t1", "span": "8:4", "severity": "Major"}, {"item": "t1", "span": "0:999", "severity": "Major"},
    {"item": "t1", "span": "a:b"}, {"item": "t1", "span": "", "severity": "Major"},
    {"item": "t1", "span": "4:8", "severity": "Apocalyptic"}, {"item": "t1", "span": "٤:٨", "severity": "Major"},
])
def test_forged_tutorial_answers_are_refused_without_counting(world, campaign, form):
    _setup(world, campaign, welcome=False, codes=False)
    (_l, url), = _links(world, campaign, count="1")
    c, _ = _arrive(world, url)
    resp = c.post(f"/crowd/c/{campaign}/tutorial", data=form)
    assert resp.status_code == 400, resp.status_code
    from enface.crowd.models import CrowdAnswer
    from enface.extensions import db
    from sqlalchemy import func, select

    with world.ctx():
        assert db.session.scalar(select(func.count(CrowdAnswer.id))) == 0
    # an answer to an item other than the next one is no answer: the page shows the next one
    assert c.post(f"/crowd/c/{campaign}/tutorial", data={"item": "t2", "span_none": "1"}).status_code == 302


def test_invited_annotators_meet_the_same_gates(world, campaign):
    _setup(world, campaign, tutorial=False)
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import User

    with world.ctx():
        svc.add_annotator(svc.get_campaign(campaign), db.session.get(User, world.users["ann1@example.org"]))
    start(world, campaign)
    c = world.client("ann1@example.org")
    first = assignments_of(world, campaign, "ann1@example.org")[0]
    assert c.get(f"/annotate/item/{first['public_id']}").headers["Location"].endswith(f"/crowd/c/{campaign}/welcome")
    assert read_all(c, first["public_id"], first["segments"]).status_code == 409
    assert c.post(f"/crowd/c/{campaign}/welcome", data=GOOD_WELCOME_ANSWERS).status_code == 302
    assert read_all(c, first["public_id"], first["segments"]).status_code == 200
    # someone of another campaign (or none) sees nothing of this one's crowd pages
    assert world.client("ann2@example.org").get(f"/crowd/c/{campaign}/welcome").status_code == 404


def test_the_lait_form_is_ready(world, campaign):
    from enface.crowd.welcome import load_form

    form = load_form("lait")
    ids = [q.id for q in form.questions]
    assert [q.id for q in form.consents] == ["consent"]
    for needed in ("age", "gender", "education", "nationality", "ai_frequency", "native_language", "languages",
                   "literary_fiction", "translated_fiction", "full_name", "consent_date"):
        assert needed in ids
    _setup(world, campaign, welcome=False, tutorial=False, codes=False, welcome_ready="lait")
    (_l, url), = _links(world, campaign, count="1")
    c, _ = _arrive(world, url)
    page = c.get(f"/crowd/c/{campaign}/welcome").get_data(as_text=True)
    assert "How often do you read fiction translated into English?" in page


def test_link_visits_and_wrong_passphrases_are_rate_limited(make_app, tmp_path):
    from enface.campaigns import services as svc
    from enface.crowd import links

    from tests.support.campaigns import build_world

    app = make_app(RATELIMIT_ENABLED=True, CROWD_PASSPHRASE_RATE_LIMIT="2 per minute",
                   CROWD_LINK_RATE_LIMIT="6 per minute")
    world = build_world(app, tmp_path, annotators=1)
    cid = new_campaign(world, annotators=(), redundancy=1, systems=["zephyr-mt"], start=False)
    with app.app_context():
        (made,) = links.create_links(svc.get_campaign(cid), count=1, passphrase="right one")
    url = f"/crowd/l/{made.secret}"
    c = app.test_client()
    codes = [c.post(url, data={"passphrase": "wrong"}).status_code for _ in range(3)]
    assert codes == [403, 403, 429]                 # two wrong passphrases a minute, then refused
    other = app.test_client()
    visits = [other.get("/crowd/l/lnk_" + "b" * 32).status_code for _ in range(6)]
    # 6 visits a minute per address, whatever the link: the 2 answered posts above and 4 of these
    assert visits == [404, 404, 404, 404, 429, 429], visits


def test_an_answered_form_or_tutorial_is_fixed(world, campaign):
    _setup(world, campaign, codes=False)
    (_l, url), = _links(world, campaign, count="1")
    c, _ = _arrive(world, url)
    assert c.post(f"/crowd/c/{campaign}/welcome", data=GOOD_WELCOME_ANSWERS).status_code == 302
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{campaign}/crowd/setup", data={"welcome_ready": "lait"},
                    content_type="multipart/form-data")
    assert resp.status_code == 409 and "already answered it" in resp.get_data(as_text=True)
    assert org.post(f"/campaigns/{campaign}/crowd/setup", data={"clear": "welcome"}).status_code == 409
    # the tutorial nobody has answered yet may still change, and the codes too
    assert org.post(f"/campaigns/{campaign}/crowd/setup", data={"clear": "tutorial", "pass_code": "NEW1"}).status_code == 302


def test_nobody_registers_an_address_of_the_link_accounts(world):
    resp = world.app.test_client().post("/auth/register", data={
        "email": "someone@links.enface.invalid", "password": "p" * 12, "confirm": "p" * 12})
    assert resp.status_code in (200, 400) and "valid e-mail" in resp.get_data(as_text=True)   # the form, again
    from enface.services import accounts

    with world.ctx():
        assert accounts.get_user_by_email("someone@links.enface.invalid") is None
