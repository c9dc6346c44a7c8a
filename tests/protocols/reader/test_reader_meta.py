"""A released reader study on the meta-evaluation page (chunk level), and its real export through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from reader_api import Book
from reader_helpers import DOCS, PASSWORD, books_of, build_reader_world, new_study
from scipy.stats import kendalltau

from tests.support.browser import ARTIFACTS, chromium, live_server, login_page

ROOT = Path(__file__).resolve().parents[3]
SYSTEMS = ("nightjar-mt", "owlet-nmt")


def _segment_values(system: str) -> list[float]:
    """A metric's stored segment scores over the whole test set (documents in order), made up per system."""
    n = sum(DOCS.values())
    return [((p * 7 + (3 if system == "nightjar-mt" else 5)) % 11) / 10 for p in range(n)]


def _store(world) -> None:
    from enface.extensions import db
    from enface.models import ScoreRow

    with world.ctx(), db.write():
        for system in SYSTEMS:
            values = _segment_values(system)
            db.session.add(ScoreRow(submission_id=world.subs[system], metric="judge", scope="corpus", name="Judge",
                                    value=sum(values) / len(values), higher_is_better=True))
            db.session.add(ScoreRow(submission_id=world.subs[system], metric="judge", scope="segment", name="Judge",
                                    values=values, higher_is_better=True))


def _run_study(world) -> int:
    cid = new_study(world, versions=SYSTEMS, lock_hours=0)
    for email, pref in (("reader1@example.org", "1"), ("reader2@example.org", "2")):
        c = world.client(email)
        books = [Book(c, i["public_id"]) for i in books_of(world, cid, email)]
        for b in books:
            b.immersive()
            b.close(preference=pref, highlight=False)
            b.finish()
        books[-1].ok("post", "", {"expectations": "a", "accuracy": "b", "opinion": "c"})
        assert books[-1].finish().status_code == 200
    return cid


def _expected(records: list[dict], names: dict[str, str]) -> tuple[list[float], list[int]]:
    keys = [(d, p) for d, n in DOCS.items() for p in range(n)]
    seg = {s: dict(zip(keys, _segment_values(s), strict=True)) for s in SYSTEMS}
    diffs, signed = [], []
    for r in records:
        doc, (start, end) = r["testset_document"], r["segments"]
        mean = {}
        for k in ("1", "2"):
            system = names[r["versions"][k]["label"]]
            mean[k] = sum(seg[system][(doc, p)] for p in range(start, end)) / (end - start)
        diffs.append(mean["1"] - mean["2"])
        signed.append(1 if r["preference"] == "1" else -1)
    return diffs, signed


def test_reader_study_chunk_level_on_the_page_and_through_the_cli(world, tmp_path):
    from enface.campaigns import services as svc

    _store(world)
    cid = _run_study(world)
    org = world.client("org@example.org")
    url = f"/leaderboard/{world.testset_id}/meta.json"
    assert org.get(url).get_json()["sources"] == []          # not released yet
    export = org.get(f"/campaigns/{cid}/export.jsonl").get_data(as_text=True)
    records = [json.loads(x) for x in export.splitlines() if json.loads(x)["record"] == "chunk"]
    assert records and all(r["testset_document"] in DOCS and r["segments"][0] < r["segments"][1] for r in records)
    with world.ctx():
        svc.release(svc.get_campaign(cid))

    body = org.get(url).get_json()
    [src] = body["sources"]
    assert src["kind"] == "reader" and src["campaign"]["id"] == cid
    assert src["chunk_level"]["versions"] == list(SYSTEMS)
    res = src["chunk_level"]["metrics"]["judge"]
    diffs, signed = _expected(records, {s: s for s in SYSTEMS})
    assert res["available"] and res["n"] == len(records)
    assert res["kendall"] == pytest.approx(kendalltau(diffs, signed).statistic, abs=1e-12)
    agree = sum(1 for d, s in zip(diffs, signed, strict=True) if (d > 0) - (d < 0) == s)
    assert res["agreements"] == agree
    assert res["readers_prefer"] == {"1": signed.count(1), "2": signed.count(-1)}
    assert "judge" in src["skipped"]                          # two systems: no system-level correlation
    html = org.get(f"/leaderboard/{world.testset_id}/meta").get_data(as_text=True)
    assert "Chunk level" in html and "reader study · Lantern study" in html

    # the same export and the same segment scores through python -m scoring meta
    (tmp_path / "export.jsonl").write_text(export, encoding="utf-8")
    keys = [[d, p] for d, n in DOCS.items() for p in range(n)]
    metrics = {"testset": "t", "segment_keys": keys, "systems": [
        {"name": f"out/{s}", "scores": {"judge": {"name": "Judge", "score": 0.5, "higher_is_better": True,
                                                  "segments": _segment_values(s)}}} for s in SYSTEMS]}
    (tmp_path / "metrics.json").write_text(json.dumps(metrics))
    out = subprocess.run([sys.executable, "-m", "scoring", "meta", "--human", str(tmp_path / "export.jsonl"),
                          "--metrics", str(tmp_path / "metrics.json"), "--json"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    cli = json.loads(out.stdout)["sources"][0]["chunk_level"]["metrics"]["judge"]
    assert cli["kendall"] == pytest.approx(res["kendall"], abs=1e-12) and cli["agreements"] == res["agreements"]


@pytest.mark.browser
def test_reader_chunk_table_in_chromium(db_template, tmp_path):
    """The released study's chunk-level table in a real browser (screenshot: tests/artifacts)."""
    from enface import create_app
    from enface.campaigns import services as svc
    from enface.config import TestConfig

    with live_server(db_template, tmp_path) as (base, _live_app, url):
        # the data through a second app on the same database (CSRF off, like the API-driven tests)
        app = create_app(TestConfig.for_dir(tmp_path / "setup", url))
        world = build_reader_world(app, tmp_path)
        _store(world)
        cid = _run_study(world)
        with world.ctx():
            svc.release(svc.get_campaign(cid))
        app.extensions["enface_db"][0].dispose()
        with chromium() as browser:
            ctx, page = login_page(browser, base, "org@example.org", PASSWORD)
            page.goto(f"{base}/leaderboard/{world.testset_id}/meta")
            rows = page.locator("table.meta-chunks tbody tr")
            assert rows.count() == 1 and rows.first.locator("th").inner_text() == "Judge"
            assert "/" in rows.first.locator("td").nth(2).inner_text()        # agreements/judgements (..%)
            assert "1 = nightjar-mt, 2 = owlet-nmt" in page.locator(".meta-source").inner_text()
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "meta-page-reader.png"), full_page=True)
            ctx.close()
