"""The meta-evaluation page in a real browser: from the leaderboard to the page, tables and plots; a screenshot."""

from __future__ import annotations

import re

import pytest
from test_meta_page import (  # (tests/platform is not a package: by file name)
    SEGMENT_METRIC,
    WORLD_SYSTEMS,
    _annotate,
    _scores,
)

from tests.support.browser import ARTIFACTS, chromium, live_server, login_page
from tests.support.campaigns import PASSWORD, build_world

pytestmark = pytest.mark.browser


def _chrf_segments(world) -> None:
    """A second metric with segment scores, so that soft pairwise accuracy and acc_eq have clusters."""
    from enface.extensions import db
    from enface.models import ScoreRow

    with world.ctx(), db.write():
        for system, sid in world.subs.items():
            seg = [round(v * 80 + (i % 3) * 2, 3) for i, v in enumerate(reversed(SEGMENT_METRIC[system]))]
            db.session.add(ScoreRow(submission_id=sid, metric="chrf", scope="corpus", name="chrF",
                                    value=sum(seg) / len(seg), higher_is_better=True))
            db.session.add(ScoreRow(submission_id=sid, metric="chrf", scope="segment", name="chrF", value=None,
                                    values=seg, higher_is_better=True))


def test_meta_page_in_chromium(db_template, tmp_path):
    from enface import create_app
    from enface.campaigns import services as svc
    from enface.config import TestConfig

    with live_server(db_template, tmp_path) as (base, _live_app, url):
        # the data through a second app on the same database (CSRF off, like the other page tests)
        app = create_app(TestConfig.for_dir(tmp_path / "setup", url, META_BOOTSTRAP_SAMPLES=200))
        world = build_world(app, tmp_path, systems=WORLD_SYSTEMS)
        _scores(world)
        _chrf_segments(world)
        cid = _annotate(world)
        with world.ctx():
            svc.release(svc.get_campaign(cid))
        app.extensions["enface_db"][0].dispose()

        errors: list[str] = []
        with chromium() as browser:
            ctx, page = login_page(browser, base, "org@example.org", PASSWORD)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/leaderboard/{world.testset_id}")
            page.click("#meta-link")
            page.wait_for_load_state("networkidle")
            assert page.url.endswith(f"/leaderboard/{world.testset_id}/meta")
            assert page.locator("h1").inner_text().startswith("Meta-evaluation")
            flips = page.locator(".meta-flips table.flips tbody tr")
            assert flips.count() >= 1 and "zephyr-mt" in flips.first.inner_text()
            assert page.locator("table.meta-system tbody tr").count() == 4      # BLEU, TER, chrF, Judge
            assert page.locator("svg.meta-scatter").count() == 4
            assert page.locator("svg.meta-scatter circle").count() == 16        # 4 systems x 4 metrics
            box = page.locator("svg.meta-scatter").first.bounding_box()
            assert box and box["width"] > 200 and box["height"] > 150
            assert page.locator("table.meta-items tbody tr").count() == 4
            # the toolkit's statistics: soft pairwise accuracy where segment scores exist, acc_eq with its threshold
            judge = page.locator("table.meta-system tbody tr[data-metric='judge'] td.spa").inner_text()
            assert "segments" in judge and float(judge.split()[0]) > 0
            assert page.locator("table.meta-system tbody tr[data-metric='bleu'] td.spa").inner_text() == "n/a"
            assert "ε =" in page.locator("table.meta-items td.acc-eq").first.inner_text()
            # clusters: one table per statistic, every clustered metric ranked
            for stat in ("pearson", "pairwise_accuracy", "soft_pairwise_accuracy", "acc_eq"):
                rows = page.locator(f"table.clusters[data-statistic='{stat}'] tbody tr")
                assert rows.count() == (4 if stat in ("pearson", "pairwise_accuracy") else 2), stat
                assert rows.first.locator("td").first.inner_text() == "1"
            # the definitions are on the page
            defs = page.locator("#meta-definitions").inner_text()
            for term in ("Soft pairwise accuracy", "acc_eq", "Metric clusters", "Pairwise accuracy (untied)"):
                assert term in defs
            # 4 systems: a caution that the system-level numbers mean little
            caution = page.locator(".few-systems")
            assert caution.count() == 1 and "only 4 systems" in caution.inner_text()
            # every point estimate reads inside its interval, to the same decimals; ρ²×100 has ρ's sign
            cells = page.locator("table.meta-system td.num, table.meta-items td.num").all_inner_texts()
            with_ci = [re.fullmatch(r"([+−-]?[\d.]+) \[([+−-]?[\d.]+), ([+−-]?[\d.]+)\](?: \(\d+ pairs\))?", c)
                       for c in cells]
            numbers = [[float(x.replace("−", "-")) for x in m.groups()] for m in with_ci if m]
            assert len(numbers) >= 9
            assert all(lo <= point <= hi for point, lo, hi in numbers), numbers
            assert all(len(x.split(".")[1]) == 3 for m in with_ci if m for x in m.groups())
            for row in page.locator("table.meta-system tbody tr").all():
                rho, share = row.locator("td").nth(2).inner_text(), row.locator("td").nth(3).inner_text()
                assert share[0] in "+-" and share[0] == rho[0], (rho, share)
            assert "shown with ρ's sign" in page.inner_text("#meta-method")
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "meta-page.png"), full_page=True)
            ctx.close()
        assert errors == []

