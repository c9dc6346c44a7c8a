"""Guard rails against a user's own mistakes (issue 11, "people also trip over"), through the web forms
and the API with the test client. tests/platform/browser/test_guard_rails_browser.py shows them in chromium.
"""

from __future__ import annotations

import html as htmllib
import io
import re

from tests.support.testkit import demo_testset_zip, login, submit_form, system_files, upload


def state_of(world, sid):
    sub = world.submission(sid)
    return sub.label, sub.slot, sub.withdrawn


# --------------------------------------------------------------------------- withdraw and make primary


def test_withdraw_asks_first_and_says_it_is_final(client, world):
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    sid = upload(client, ts, token).get_json()["id"]
    login(client, "cap@a.org")
    page = client.post(f"/submissions/{sid}/withdraw", data={"back": "mine"})
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and f"Withdraw #{sid} my-system?" in html
    assert "cannot be undone" in html and "quota are given back" in html
    assert 'name="confirmed" value="yes"' in html and 'name="back" value="mine"' in html   # the choice is kept
    assert state_of(world, sid)[2] is False                                             # nothing happened yet
    done = client.post(f"/submissions/{sid}/withdraw", data={"back": "mine", "confirmed": "yes"})
    assert done.status_code == 302 and done.headers["Location"].endswith("/submissions")
    assert state_of(world, sid) == ("primary", None, True)


def test_no_confirmation_page_for_what_one_may_not_do(client, world):
    ts = world.testset()
    _a, token_a = world.team_with_token("cap@a.org", "Team A")
    world.user("cap@b.org", team="Team B")
    sid = upload(client, ts, token_a).get_json()["id"]
    login(client, "cap@b.org")
    for action in ("withdraw", "primary"):
        resp = client.post(f"/submissions/{sid}/{action}")
        assert resp.status_code == 404 and "my-system" not in resp.get_data(as_text=True)


def test_make_primary_confirms_and_offers_an_undo(client, world):
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    first = upload(client, ts, token, system_name="first-sys").get_json()["id"]
    second = upload(client, ts, token, files=system_files("weak-mt"), label="contrastive",
                    system_name="second-sys").get_json()["id"]
    login(client, "cap@a.org")
    page = htmllib.unescape(client.post(f"/submissions/{second}/primary").get_data(as_text=True))
    assert f"Make #{second} second-sys primary?" in page and f"#{first} 'first-sys', becomes contrastive" in page
    assert state_of(world, second)[0] == "contrastive"
    done = client.post(f"/submissions/{second}/primary", data={"confirmed": "yes"})
    assert done.status_code == 302 and done.headers["Location"].endswith(f"/submissions/{second}")
    assert state_of(world, second)[0] == "primary" and state_of(world, first)[0] == "contrastive"
    html = client.get(done.headers["Location"]).get_data(as_text=True)
    assert f"Undo: make #{first} primary again" in html and "offered for 10 minutes after the switch" in html
    # the offer stays on the page (a reload, another page and back) for the stated window, then goes
    client.get("/submissions")
    assert f"Undo: make #{first} primary again" in client.get(f"/submissions/{second}").get_data(as_text=True)
    _age_switch(world, minutes=11)
    assert "Undo:" not in client.get(f"/submissions/{second}").get_data(as_text=True)
    _age_switch(world, minutes=-11)
    # The undo is the same switch back, without a second confirmation.
    undone = client.post(f"/submissions/{first}/primary", data={"undo": "1"})
    assert undone.status_code == 302 and undone.headers["Location"].endswith(f"/submissions/{first}")
    assert state_of(world, first)[0] == "primary" and state_of(world, second)[0] == "contrastive"
    # After the switch back, the offer is for the other way; a withdrawn one offers nothing.
    assert f"Undo: make #{second} primary again" in client.get(f"/submissions/{first}").get_data(as_text=True)
    client.post(f"/submissions/{second}/withdraw", data={"confirmed": "yes"})
    assert "Undo:" not in client.get(f"/submissions/{first}").get_data(as_text=True)
    assert "Undo:" not in client.get(f"/submissions/{first}?undo=²").get_data(as_text=True)


def _age_switch(world, minutes: int) -> None:
    """Move every switch event ``minutes`` into the past (negative: back)."""
    from datetime import timedelta

    from enface.extensions import db
    from enface.models import SubmissionEvent
    from sqlalchemy import select

    with world.app.app_context(), db.write():
        for event in db.session.scalars(select(SubmissionEvent)
                                        .where(SubmissionEvent.message.startswith("now contrastive"))):
            event.created_at -= timedelta(minutes=minutes)


# --------------------------------------------------------------------------- the submission form


def test_label_is_not_primary_when_the_team_has_one(client, world):
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    login(client, "cap@a.org")
    fresh = re.search(r'<select id="label".*?</select>', client.get(f"/testsets/{ts}/submit").get_data(as_text=True))
    assert fresh.group(0).startswith('<select id="label" name="label"><option value="primary">')   # the first one
    assert "selected" not in fresh.group(0)
    sid = upload(client, ts, token, system_name="the-primary").get_json()["id"]
    html = htmllib.unescape(client.get(f"/testsets/{ts}/submit").get_data(as_text=True))
    assert re.search(r'<option selected value="contrastive">', html)
    assert not re.search(r'<option selected value="primary">', html)
    assert f"Your team's primary is #{sid} the-primary" in html
    # The form as the browser sends it by default is accepted (no guaranteed 409).
    assert submit_form(client, ts, "weak-mt", label="contrastive").status_code == 302


def test_a_byte_identical_reupload_through_the_api_is_accepted_with_a_warning(client, world):
    """Scripts may mean it (the same output under another label): the API accepts and warns, the timeline says so."""
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    first = upload(client, ts, token)
    assert first.status_code == 202 and first.get_json()["warnings"] == []
    again = upload(client, ts, token, label="contrastive", system_name="again")
    assert again.status_code == 202
    [warning] = again.get_json()["warnings"]
    assert warning["code"] == "duplicate_upload" and warning["duplicate_of"] == first.get_json()["id"]
    assert f"byte-identical to your team's submission #{first.get_json()['id']}" in warning["message"]
    body = client.get(again.get_json()["url"], headers={"Authorization": f"Bearer {token}"}).get_json()
    assert any(f"byte-identical to submission #{first.get_json()['id']}" in e["message"] for e in body["timeline"])
    # other bytes (one changed line) are no duplicate
    changed = [(n, c + b"x\n" if i == 0 else c) for i, (n, c) in enumerate(system_files())]
    assert upload(client, ts, token, files=changed, label="contrastive").get_json()["warnings"] == []


def test_a_withdrawn_submission_may_be_uploaded_again_without_a_question(client, world):
    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    first = int(submit_form(client, ts).headers["Location"].rsplit("/", 1)[1])
    client.post(f"/submissions/{first}/withdraw", data={"confirmed": "yes"})
    assert submit_form(client, ts).status_code == 302


def test_the_web_form_refuses_a_duplicate_until_confirmed(client, world):
    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    first = submit_form(client, ts)
    sid = int(first.headers["Location"].rsplit("/", 1)[1])
    resp = submit_form(client, ts, label="contrastive", system_name="again")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 409 and f"submission #{sid}" in html and "Choose the files again" in html
    assert 'name="allow_duplicate"' in html and "Submit anyway" in html
    assert len(world.app.test_client().get(f"/api/v1/testsets/{ts}").get_json()) and world.submission(sid + 1) is None
    done = submit_form(client, ts, label="contrastive", system_name="again", allow_duplicate="y")
    assert done.status_code == 302
    assert f"byte-identical to submission #{sid}" in client.get(done.headers["Location"]).get_data(as_text=True)


def test_submitting_without_files_names_the_files(client, world):
    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    resp = client.post(f"/testsets/{ts}/submit", data={"label": "primary", "constrained": "constrained",
                                                        "system_name": "", "description": ""},
                       content_type="multipart/form-data")
    html = htmllib.unescape(resp.get_data(as_text=True))
    assert resp.status_code == 400
    assert "No output files chosen: select the 3 <document>.txt files" in html
    assert "jade-lantern.1.txt, jade-lantern.2.txt, mountain-inn.txt" in html and "all 67 segments" in html
    assert "This field is required." in html                   # and the system name, on the same page
    # With a name but no files: the files are named, not "System name required".
    resp = client.post(f"/testsets/{ts}/submit", data={"label": "primary", "constrained": "constrained",
                                                        "system_name": "my-sys"}, content_type="multipart/form-data")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 400 and "No output files chosen" in html and "This field is required." not in html
    # With files but no name: the page says the files must be chosen again.
    html = submit_form(client, ts, system_name="").get_data(as_text=True)
    assert "choose the files again" in html


def test_the_line_count_finding_reads_whole_and_fills_the_line_column(client, world):
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    sid = upload(client, ts, token, files=system_files("broken-mt")).get_json()["id"]
    login(client, "cap@a.org")
    html = client.get(f"/submissions/{sid}").get_data(as_text=True)
    row = re.search(r'<tr class="sev-error">(.*?)</tr>', html, re.S).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    assert "jade-lantern.2.txt" in cells[1] and cells[2].strip() == "12"
    assert "expected 23 lines" in cells[3] and "and they are not accepted here." in cells[3]
    assert "submit it as one" not in html


# --------------------------------------------------------------------------- the token page


def test_the_token_page_shows_whole_commands(client, world):
    ts = world.testset()
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    html = client.get("/auth/tokens").get_data(as_text=True)
    assert "--token $ENFACE_TOKEN" in html and f"--testset {ts} " in html
    html = client.post("/auth/tokens", data={"name": "laptop"}).get_data(as_text=True)
    secret = re.search(r'<pre class="token" id="new-token">([^<]+)</pre>', html).group(1)
    enface = re.search(r'<pre class="example" id="example-enface">(.*?)</pre>', html, re.S).group(1)
    curl = re.search(r'<pre class="example" id="example-curl">(.*?)</pre>', html, re.S).group(1)
    assert f"--token {secret}" in enface and "…" not in enface and "out/*.txt" in enface
    assert f'Authorization: Bearer {secret}' in curl and "-F files=@out/jade-lantern.1.txt" in curl
    assert curl.rstrip().endswith(f"/api/v1/testsets/{ts}/submissions") and "-F system_name=my-system" in curl


def test_the_token_page_names_the_teams_own_test_sets_and_the_light_client(client, world, tmp_path):
    """A team that submitted to test set 2 (not the first one imported) sees commands for test set 2."""
    from tests.support.testkit import upload

    first = world.testset()
    second = world.testset(task="Second task")
    uid, token = world.team_with_token("cap@a.org", "Team A")
    assert upload(client, second, token).status_code == 202
    login(client, "cap@a.org")
    html = client.get("/auth/tokens").get_data(as_text=True)
    enface = re.search(r'<pre class="example" id="example-enface">(.*?)</pre>', html, re.S).group(1)
    assert f"--testset {second} " in enface and f"--testset {first} " not in html
    assert f"/api/v1/testsets/{second}/submissions" in html and f"/api/v1/testsets/{first}/" not in html
    assert '<pre class="example" id="install-client">pip install ./clients/submit</pre>' in html
    # a team that has not submitted yet: every open test set, each with its own commands
    world.user("new@b.org", team="Team B")
    other = client.application.test_client()
    login(other, "new@b.org")
    html = other.get("/auth/tokens").get_data(as_text=True)
    assert f"--testset {first} " in html and f"--testset {second} " in html
    assert f'id="example-enface-{second}"' in html


# --------------------------------------------------------------------------- imported test sets


def test_an_imported_test_set_is_closed_and_links_no_leaderboard_it_cannot_show(client, world):
    ts = world.testset(opens_at=None)        # as imported: closed, hidden
    html = client.get("/").get_data(as_text=True)
    assert "closed</span> (not open yet)" in html and f'href="/leaderboard/{ts}"' not in html
    assert "leaderboard not released yet" in html
    assert f'href="/leaderboard/{ts}"' not in client.get("/leaderboard/").get_data(as_text=True)
    assert f'href="/leaderboard/{ts}"' not in client.get(f"/testsets/{ts}").get_data(as_text=True)
    assert client.get(f"/leaderboard/{ts}").status_code == 404
    # a team member sees the link (to the team's own rows), and the page answers
    world.user("cap@a.org", team="Team A")
    login(client, "cap@a.org")
    html = client.get("/").get_data(as_text=True)
    assert f'href="/leaderboard/{ts}"' in html and "(not released: your team's rows)" in htmllib.unescape(html)
    assert client.get(f"/leaderboard/{ts}").status_code == 200
    assert "not open yet" in client.get(f"/testsets/{ts}/submit").get_data(as_text=True)


def test_a_second_web_import_of_the_same_data_warns(client, world):
    world.user("org@x.org", role="organizer")
    login(client, "org@x.org")
    archive = demo_testset_zip()

    def post(task):
        return client.post("/admin/testsets/import", content_type="multipart/form-data",
                           data={"task": task, "archive": (io.BytesIO(archive), "testset.zip")})

    first = post("Literary 2026")
    assert "Warning" not in client.get(first.headers["Location"]).get_data(as_text=True)
    second = post("Another task")
    html = client.get(second.headers["Location"]).get_data(as_text=True)
    assert "Warning: Literary 2026: " in html and "holds the same documents, sources and references" in html
    assert "closed and hidden" in html


def test_the_settings_page_refuses_a_deadline_before_the_opening(client, world):
    ts = world.testset(opens_at=None)
    world.user("org@x.org", role="organizer")
    login(client, "org@x.org")
    resp = client.post(f"/admin/testsets/{ts}", data={"opens_at": "2026-05-01T00:00", "deadline": "2026-04-01T00:00",
                                                      "quota_per_day": "", "quota_total": "", "description": ""})
    html = htmllib.unescape(resp.get_data(as_text=True))
    assert resp.status_code == 200 and "the deadline (2026-04-01 00:00 UTC) must come after the opening" in html
    t = client.get(f"/api/v1/testsets/{ts}").get_json()
    assert t["opens_at"] is None and t["deadline"] is None            # nothing changed
    assert "empty: closed, not scheduled yet" in html                 # what an empty opening means
