"""Issue 15, finding 6: the public browser's page cache is keyed by the versions its view's leaderboard
was built for. Keyed by the database's newest version, a change made by another web process (a
withdrawal, an unfreeze) left a stale page cached as new until the next change."""

from __future__ import annotations

from sqlalchemy import text

from tests.support.testkit import upload


def _change_from_another_process(app, sql: str, **params) -> None:
    """A write this process's session never sees (no after-commit hook): as another web process's."""
    engine = app.extensions["enface_db"][0]
    with engine.begin() as conn:
        conn.execute(text(sql), params)
        conn.execute(text("UPDATE testsets SET scores_version = scores_version + 1"))


def test_a_withdrawal_elsewhere_reaches_the_cached_page(world, monkeypatch):
    from enface.services import leaderboard as lb

    tsid = world.testset(released=True)
    ids = {}
    for team, system in (("Alder", "zq-alder-sys"), ("Birch", "zq-birch-sys")):
        _uid, token = world.team_with_token(f"cap@{team.lower()}.test", team)
        resp = upload(world.app.test_client(), tsid, token, system_name=system)
        assert resp.status_code == 202
        ids[system] = resp.get_json()["id"]
    anon = world.app.test_client()
    monkeypatch.setattr(lb, "VERSION_CHECK_SECONDS", 3600)      # this process read the versions just now
    assert "zq-birch-sys" in anon.get(f"/browse/{tsid}").get_data(as_text=True)
    assert anon.get(f"/leaderboard/{tsid}.json").status_code == 200   # (the clusters are ready: versions kept)
    _change_from_another_process(world.app, "UPDATE submissions SET withdrawn_at = CURRENT_TIMESTAMP WHERE id = :id",
                                 id=ids["zq-birch-sys"])
    anon.get(f"/browse/{tsid}")          # within the window: this process may still show the old page
    monkeypatch.setattr(lb, "VERSION_CHECK_SECONDS", 0)         # the window has passed
    page = anon.get(f"/browse/{tsid}").get_data(as_text=True)
    assert "zq-alder-sys" in page and "zq-birch-sys" not in page
