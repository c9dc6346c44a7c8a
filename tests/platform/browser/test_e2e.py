"""A real browser (Playwright driving Debian's chromium) against a real server and a real Celery worker.

A newcomer registers, creates a team, uploads the demo output through the
form, watches it get validated and scored, and finds the scores on the
leaderboard. Screenshots go to tests/artifacts/. Nothing downloads a browser:
without /usr/bin/chromium the test skips (fails in CI, ENFACE_STRICT_SERVICES=1).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.testkit import DEMO, TestConfigEnv, require_service, system_files, upload

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]


@pytest.fixture
def browser():
    require_service(CHROMIUM.exists(), f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def platform(make_app, live_server_factory):
    """The app behind a threaded server, jobs on the SQLite broker, a real Celery worker consuming them."""
    from tests.support.testkit import World

    app = make_app(JOBS="celery")
    world = World(app)
    ts = world.testset(quota_per_day=None, quota_total=None)
    server = live_server_factory(app)
    worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "enface.worker", "worker", "-P", "solo",
                               "-Q", "cpu,gpu", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
                               "--without-heartbeat"], env=TestConfigEnv(app),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    yield app, world, ts, server.url
    worker.terminate()
    try:
        worker.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        worker.kill()


def wait_scored(client, token, sids, timeout=120):
    deadline = time.monotonic() + timeout
    for sid in sids:
        while client.get(f"/api/v1/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}
                         ).get_json()["state"] not in ("scored", "invalid", "failed"):
            assert time.monotonic() < deadline
            time.sleep(0.3)


def test_newcomer_submits_and_finds_the_scores(browser, platform):
    app, world, ts, url = platform
    ARTIFACTS.mkdir(exist_ok=True)
    # Other systems already there: an organizer's baseline and another team's unconstrained primary.
    org = world.token(world.user("org@demo.org", role="organizer"))
    _b, other = world.team_with_token("cap@inkstone.example", "Inkstone MT")
    client = app.test_client()
    sids = [upload(client, ts, org, label="baseline", system_name="literal-baseline",
                   files=system_files("literal-mt")).get_json()["id"],
            upload(client, ts, other, system_name="inkstone-llm", constrained="false",
                   files=system_files("weak-mt")).get_json()["id"]]
    wait_scored(client, org, sids)
    world.settings(ts, released=True)

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    console_errors = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.goto(url + "/")
    page.get_by_role("link", name="Register").click()
    page.fill("#name", "Lin Qingyuan")
    page.fill("#email", "lin@lantern-lab.example")
    page.fill("#password", "jade lantern 2026")
    page.fill("#confirm", "jade lantern 2026")
    page.get_by_role("button", name="Create the account").click()
    page.wait_for_url(re.compile(r".*/team/$"))
    page.fill("#create-name", "Lantern Lab")
    page.get_by_role("button", name="Create the team").click()
    page.wait_for_selector("text=Team Lantern Lab")
    page.screenshot(path=str(ARTIFACTS / "e2e-team.png"), full_page=True)

    page.goto(f"{url}/testsets/{ts}")
    page.get_by_role("link", name="Submit an output").click()
    page.set_input_files("#files", [str(p) for p in sorted((DEMO / "systems" / "strong-mt").glob("*.txt"))])
    page.fill("#system_name", "lantern-nmt")
    page.fill("#description", "Document-level NMT fine-tuned on web novels.")
    page.get_by_role("button", name="Upload and validate").click()
    page.wait_for_url(re.compile(r".*/submissions/\d+$"))
    # The page follows the job (it refreshes itself) until the badge says scored.
    page.wait_for_selector(".badges .state-scored", timeout=120_000)
    bleu = page.text_content('td.score[data-metric="bleu"]')
    assert bleu.strip() == "45.04"
    assert "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0" in page.content()
    page.screenshot(path=str(ARTIFACTS / "e2e-submission.png"), full_page=True)

    page.get_by_role("link", name="Leaderboards").click()
    page.get_by_role("link", name=re.compile("Demo")).click()
    row = page.locator("tr.entry", has_text="lantern-nmt")
    assert row.count() == 1
    cells = row.locator("td").all_text_contents()
    # A score cell is its value, followed by its rank range (span.rr) once the automatic clusters are computed.
    scores = [cell.inner_text() if cell.locator("span.rr").count() == 0
              else cell.inner_text().removesuffix(cell.locator("span.rr").inner_text())
              for cell in row.locator("td.num").all()]
    assert cells[0] == "Lantern Lab" and "45.04" in scores and "n/a" in scores
    assert page.locator("tbody.group-primary-constrained tr.entry.top", has_text="lantern-nmt").count() == 1
    assert page.locator("tbody.group-baseline tr.entry", has_text="literal-baseline").count() == 1
    assert page.locator("tbody.group-primary-unconstrained .star").count() == 1
    # Sorting: TER (lower is better) sorts ascending on the first click.
    page.get_by_role("button", name="Sort by TER").click()
    assert page.locator("th[data-key=ter]").get_attribute("aria-sort") == "ascending"
    page.screenshot(path=str(ARTIFACTS / "e2e-leaderboard.png"), full_page=True)
    assert console_errors == []
