"""Issue 15, finding 6: a system withdrawn after the freeze. The frozen standings are the record: it stays
in the board (marked), the browser and the release bundle, and its own page is public as theirs are.
Unfrozen, it leaves all of them at once."""

from __future__ import annotations

import io
import zipfile

from tests.support.testkit import upload


def test_withdrawn_after_the_freeze_stays_on_the_record_everywhere(world):
    from enface.extensions import db
    from enface.models import TestSet
    from enface.services import freeze as freeze_svc

    tsid = world.testset(released=True)      # open, no deadline: the team may still withdraw
    ids, tokens = {}, {}
    for team, system in (("Alder", "zq-alder-sys"), ("Birch", "zq-birch-sys")):
        _uid, tokens[system] = world.team_with_token(f"cap@{team.lower()}.test", team)
        ids[system] = upload(world.app.test_client(), tsid, tokens[system], system_name=system).get_json()["id"]
    with world.app.app_context():
        freeze_svc.freeze(db.session.get(TestSet, tsid))
    withdrawn = world.app.test_client().post(f"/api/v1/submissions/{ids['zq-birch-sys']}/withdraw", json={},
                                             headers={"Authorization": f"Bearer {tokens['zq-birch-sys']}"})
    assert withdrawn.status_code == 200, withdrawn.get_data(as_text=True)
    anon = world.app.test_client()
    board = anon.get(f"/leaderboard/{tsid}").get_data(as_text=True)
    assert "zq-birch-sys" in board and "withdrawn after the freeze" in board
    birch = ids["zq-birch-sys"]
    assert anon.get(f"/submissions/{birch}").status_code == 200
    assert anon.get(f"/browse/{tsid}/system/{birch}").status_code == 200
    assert "zq-birch-sys" in anon.get(f"/browse/{tsid}").get_data(as_text=True)
    release = anon.get(f"/browse/{tsid}/downloads/release.zip")
    with zipfile.ZipFile(io.BytesIO(release.get_data())) as zf:
        systems = next(zf.read(n).decode() for n in zf.namelist() if n.endswith("/systems.csv"))
    assert "zq-birch-sys" in systems
    with world.app.app_context():
        freeze_svc.unfreeze(db.session.get(TestSet, tsid))
    assert "zq-birch-sys" not in anon.get(f"/leaderboard/{tsid}").get_data(as_text=True)
    assert anon.get(f"/submissions/{birch}").status_code == 404
    assert anon.get(f"/browse/{tsid}/system/{birch}").status_code == 404
