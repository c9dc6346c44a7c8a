"""Issue 15, finding 4: a team's name, system name and description reach the release's systems.csv and
the leaderboard CSVs as text a spreadsheet shows, never as a formula it runs."""

from __future__ import annotations

import csv
import io
import zipfile

from tests.support.testkit import upload

FORMULA_TEAM = "=HYPERLINK(\"http://evil.test\",\"team\")"
FORMULA_SYSTEM = "+cmd|' /C calc'!A0"
FORMULA_DESC = "@SUM(1+1)*cmd|' /C calc'!A0"


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _no_cell_runs(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            assert cell[:1] not in ("=", "+", "@") or cell.lstrip("+").replace(".", "").isdigit(), (cell, row)


def test_release_and_leaderboard_csvs_neutralise_formulas(world):
    tsid = world.testset(released=True)
    _uid, token = world.team_with_token("cap@example.org", FORMULA_TEAM)
    resp = upload(world.app.test_client(), tsid, token, system_name=FORMULA_SYSTEM, description=FORMULA_DESC)
    assert resp.status_code == 202, resp.get_data(as_text=True)
    client = world.app.test_client()
    release = client.get(f"/browse/{tsid}/downloads/release.zip")
    assert release.status_code == 200
    with zipfile.ZipFile(io.BytesIO(release.get_data())) as zf:
        texts = {n.split("/", 1)[1]: zf.read(n).decode("utf-8") for n in zf.namelist() if n.endswith(".csv")}
    systems = _rows(texts["systems.csv"])
    assert systems[1][1:3] == ["'" + FORMULA_TEAM, "'" + FORMULA_SYSTEM] and systems[1][-1] == "'" + FORMULA_DESC
    for name, text in texts.items():
        _no_cell_runs(_rows(text))
        assert FORMULA_SYSTEM not in [c for row in _rows(text) for c in row], name
    for url in (f"/leaderboard/{tsid}.csv", f"/leaderboard/{tsid}/table-automatic.csv"):
        got = client.get(url)
        assert got.status_code == 200, url
        _no_cell_runs(_rows(got.get_data(as_text=True)))
        assert "'" + FORMULA_SYSTEM in got.get_data(as_text=True), url
