"""The WMT-style leaderboard: groups, stars, highlights, n/a, signatures, downloads, cache."""

from __future__ import annotations

import csv
import io
import re

import pandas
import pytest

from tests.support.testkit import system_files, upload


def auth(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def board(world, client):
    ts = world.testset(quota_per_day=None, quota_total=None, document_level_allowed=True)
    org = world.token(world.user("org@x.org", role="organizer"))
    _a, a = world.team_with_token("cap@a.org", "Lantern Lab")
    _b, b = world.team_with_token("cap@b.org", "Inkstone")
    _c, c = world.team_with_token("cap@c.org", "Quill")
    ids = {
        "baseline": upload(client, ts, org, label="baseline", system_name="literal-base",
                           files=system_files("literal-mt")),
        "strong": upload(client, ts, a, system_name="lantern-nmt"),
        "weak": upload(client, ts, b, system_name="inkstone-llm", constrained="false", files=system_files("weak-mt")),
        "literal": upload(client, ts, c, system_name="quill-literal", constrained="false",
                          files=system_files("literal-mt")),
        "contrastive": upload(client, ts, a, label="contrastive", system_name="lantern-small",
                              files=system_files("weak-mt")),
        "doclevel": upload(client, ts, b, label="contrastive", system_name="inkstone-doc",
                           files=[(n, b" ".join(t.rstrip(b"\n").split(b"\n")) + b"\n")
                                  for n, t in system_files("strong-mt")]),
        "invalid": upload(client, ts, c, label="contrastive", system_name="quill-broken",
                          files=[(n, b"\x89PNG\r\n\x1a\n" + bytes(64)) for n, _ in system_files()]),
    }
    ids = {k: r.get_json()["id"] for k, r in ids.items()}
    world.settings(ts, released=True)
    return ts, ids, {"org": org, "a": a, "b": b}


def _groups_and_rows(client, board):
    ts, ids, _ = board
    body = client.get(f"/api/v1/testsets/{ts}/leaderboard").get_json()
    by_system = {r["system"]: r for r in body["rows"]}
    assert set(by_system) == {"literal-base", "lantern-nmt", "inkstone-llm", "quill-literal", "lantern-small",
                              "inkstone-doc"}   # not the invalid one
    assert by_system["literal-base"]["group"] == "baseline" and by_system["literal-base"]["baseline"] is True
    assert by_system["lantern-nmt"]["group"] == "primary-constrained"
    assert by_system["inkstone-llm"]["group"] == "primary-unconstrained"
    assert by_system["lantern-small"]["group"] == "contrastive"
    row = by_system["inkstone-doc"]
    assert row["document_level"] is True and row["scores"]["bleu"]["score"] is None
    assert "document-level" in row["scores"]["bleu"]["reason"] and row["scores"]["dbleu"]["score"] > 0
    assert by_system["lantern-nmt"]["scores"]["comet"]["score"] is None
    assert set(body["signatures"]) == {"bleu", "chrf", "ter", "dbleu"}
    assert body["columns"][3] == {"key": "ter", "name": "TER", "higher_is_better": False}


def _page(client, board):
    ts, ids, _ = board
    html = client.get(f"/leaderboard/{ts}").get_data(as_text=True)
    heads = re.findall(r'<tr class="group-head"><th[^>]*>([^<]+)</th>', html)
    assert heads == ["Baselines", "Primary systems, constrained", "Primary systems, unconstrained ⋆",
                     "Contrastive systems"]
    for col in ("BLEU↑", "chrF↑", "COMET↑", "TER↓", "d-BLEU↑"):
        assert col in html
    assert re.search(r'inkstone-llm</a> <span class="star"', html)          # unconstrained: starred
    assert not re.search(r'lantern-nmt</a> <span class="star"', html)
    unconstrained = html.split("Primary systems, unconstrained")[1].split("Contrastive systems")[0]
    # The better of the two unconstrained primaries is highlighted, with its best cells in bold.
    top = re.search(r'<tr class="entry top">.*?</tr>', unconstrained, re.S).group(0)
    assert "inkstone-llm" in top or "quill-literal" in top
    assert 'class="num best"' in top
    assert html.count('class="num na"') >= 6    # COMET everywhere, BLEU/chrF/TER of the document-level row
    assert "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0" in html   # signatures footnote
    assert 'id="sig-bleu"' in html and "leaderboard.js" in html
    assert "quill-broken" not in html


def _best_primary_is_the_highest(client, board):
    ts, ids, _ = board
    rows = client.get(f"/api/v1/testsets/{ts}/leaderboard").get_json()["rows"]
    unc = [r for r in rows if r["group"] == "primary-unconstrained"]
    assert unc[0]["scores"]["bleu"]["score"] >= unc[1]["scores"]["bleu"]["score"]   # sorted, best first


def _page_systems(html: str) -> list[str]:
    """The system names in the order the page shows them."""
    return re.findall(r'<td class="system"><a href="[^"]*">([^<]+)</a>', html)


def _csv_and_json(client, board):
    ts, ids, _ = board
    resp = client.get(f"/leaderboard/{ts}.csv")
    assert resp.mimetype == "text/csv" and "attachment" in resp.headers["Content-Disposition"]
    text = resp.get_data(as_text=True)
    assert not any(line.startswith("#") for line in text.splitlines())   # no comment lines: pandas reads it as is
    assert "n/a" not in text
    frame = pandas.read_csv(io.StringIO(text))
    assert list(frame.columns) == ["group", "team", "system", "label", "constrained", "baseline", "submission_id",
                                   "BLEU", "chrF", "COMET", "TER", "d-BLEU"]   # no MQM columns: no human ranking
    for col in ("BLEU", "chrF", "COMET", "TER", "d-BLEU"):
        assert frame[col].dtype == "float64", col
    assert frame["COMET"].isna().all()
    doc = frame.set_index("system").loc["inkstone-doc"]
    assert pandas.isna(doc["BLEU"]) and pandas.isna(doc["TER"]) and doc["d-BLEU"] > 0
    # The page's order, group by group in the WMT order.
    html = client.get(f"/leaderboard/{ts}").get_data(as_text=True)
    assert list(frame["system"]) == _page_systems(html)
    assert list(dict.fromkeys(frame["group"])) == ["baseline", "primary-constrained", "primary-unconstrained",
                                                   "contrastive"]
    # 4 decimals, the same for every score cell
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row[7:]][5:]
    assert cells and all(c == "" or re.fullmatch(r"-?\d+\.\d{4}", c) for c in cells)
    # The signatures: a sidecar download, linked next to the CSV.
    assert f'href="/leaderboard/{ts}.signatures.csv"' in html
    resp = client.get(f"/leaderboard/{ts}.signatures.csv")
    assert resp.mimetype == "text/csv" and "signatures.csv" in resp.headers["Content-Disposition"]
    sigs = pandas.read_csv(io.StringIO(resp.get_data(as_text=True)))
    assert list(sigs.columns) == ["metric", "signature"]
    assert set(sigs["metric"]) == {"BLEU", "chrF", "TER", "d-BLEU"}   # COMET has no score, so no signature
    api = client.get(f"/api/v1/testsets/{ts}/leaderboard").get_json()["signatures"]
    assert sorted(sigs["signature"]) == sorted(s for v in api.values() for s in v)
    assert "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0" in set(sigs["signature"])
    data = client.get(f"/leaderboard/{ts}.json").get_json()
    assert len(data["rows"]) == 6 and data["released"] is True


def test_released_leaderboard(client, board):
    """One board, built once (seven scored uploads), checked from every side."""
    _groups_and_rows(client, board)
    _page(client, board)
    _best_primary_is_the_highest(client, board)
    _csv_and_json(client, board)


def test_withdrawn_leave_and_cache_follows(client, board):
    ts, ids, tokens = board
    from enface.extensions import db
    from enface.models import TestSet

    before = client.get(f"/api/v1/testsets/{ts}/leaderboard").get_json()
    assert "lantern-small" in {r["system"] for r in before["rows"]}
    client.post(f"/api/v1/submissions/{ids['contrastive']}/withdraw", headers=auth(tokens["a"]))
    after = client.get(f"/api/v1/testsets/{ts}/leaderboard").get_json()
    assert "lantern-small" not in {r["system"] for r in after["rows"]}
    # Switching the primary moves rows between groups at once.
    client.post(f"/api/v1/submissions/{ids['doclevel']}/primary", headers=auth(tokens["b"]))
    rows = {r["system"]: r["group"] for r in client.get(f"/api/v1/testsets/{ts}/leaderboard").get_json()["rows"]}
    assert rows["inkstone-doc"] == "primary-constrained" and rows["inkstone-llm"] == "contrastive"
    with client.application.app_context():
        assert db.session.get(TestSet, ts).scores_version > 0


def test_cache_is_used_until_scores_change(client, board, monkeypatch):
    ts, ids, tokens = board
    from enface.services import leaderboard

    calls = []
    real = leaderboard._build
    monkeypatch.setattr(leaderboard, "_build", lambda *args: calls.append(1) or real(*args))
    for _ in range(3):
        client.get(f"/api/v1/testsets/{ts}/leaderboard")
        client.get(f"/leaderboard/{ts}")
    assert len(calls) <= 1
    # A re-score writes scores: the next request rebuilds.
    from tests.support.testkit import login

    login(client, "org@x.org")
    client.post(f"/admin/submissions/{ids['strong']}/rescore")
    client.get(f"/api/v1/testsets/{ts}/leaderboard")
    assert len(calls) >= 2


def test_team_view_before_release_has_no_cross_team_marks(client, world):
    ts = world.testset()
    _a, a = world.team_with_token("cap@a.org", "A")
    upload(client, ts, a)
    rows = client.get(f"/api/v1/testsets/{ts}/leaderboard", headers=auth(a)).get_json()["rows"]
    assert len(rows) == 1
    from tests.support.testkit import login

    login(client, "cap@a.org")
    html = client.get(f"/leaderboard/{ts}").get_data(as_text=True)
    assert "Not released yet" in html and 'class="entry top"' not in html and "num best" not in html


def test_csv_neutralises_formulas(client, world):
    """A system or team name that a spreadsheet would run as a formula is quoted with a leading '."""
    ts = world.testset(released=True)
    _a, a = world.team_with_token("cap@a.org", "@Evil team")
    upload(client, ts, a, system_name='=HYPERLINK("http://x.example","ok")')
    frame = pandas.read_csv(io.StringIO(client.get(f"/leaderboard/{ts}.csv").get_data(as_text=True)))
    assert frame["system"].tolist() == ['\'=HYPERLINK("http://x.example","ok")']
    assert frame["team"].tolist() == ["'@Evil team"]
    assert frame["BLEU"].dtype == "float64" and frame["BLEU"][0] > 0
