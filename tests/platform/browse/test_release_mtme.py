"""The release bundle in mt-metrics-eval's layout (``mtme/``): the toolkit's file names, higher-is-better
scores, and the round trip: read the exported layout back and get the meta page's numbers."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.platform.browse.test_freeze_release import _released_campaign, _scores

SEGMENTS = [0.1, 0.5, 0.2, 0.9, 0.3, 0.4, 0.8]      # 7 segments: river.1 (4) and orchard (3)


def _segment_scores(world):
    from enface.extensions import db
    from enface.models import ScoreRow
    from enface.services.testsets import bump_scores_version

    with world.ctx(), db.write():
        for i, system in enumerate(("zephyr-mt", "quokka-nmt", "walrus-baseline")):
            db.session.add(ScoreRow(submission_id=world.subs[system], metric="chrf", scope="corpus", name="chrF",
                                    value=50.0 - 7 * i + (3 if i == 2 else 0), higher_is_better=True))
            db.session.add(ScoreRow(submission_id=world.subs[system], metric="chrf", scope="segment", name="chrF",
                                    values=[v - i / 10 for v in SEGMENTS], higher_is_better=True))
        bump_scores_version(db.session, world.testset_id)


def test_release_has_the_layout_and_it_reads_back_with_the_pages_numbers(world, tmp_path):
    from scoring.meta.mtme import read_mtme
    from scoring.meta.mtme_eval import evaluate_mtme

    ts = world.testset_id
    _scores(world)
    _segment_scores(world)
    _released_campaign(world)
    zf = zipfile.ZipFile(io.BytesIO(world.client().get(f"/browse/{ts}/downloads/release.zip").data))
    root = zf.namelist()[0].split("/")[0]
    layout = {n[len(root) + len("/mtme/"):]: n for n in zf.namelist() if n.startswith(f"{root}/mtme/")}
    lp = next(p for p in layout if p.startswith("documents/"))[len("documents/"):-len(".docs")]
    assert {f"documents/{lp}.docs", f"sources/{lp}.txt", f"human-scores/{lp}.mqm.sys.score",
            f"human-scores/{lp}.mqm.seg.score", f"metric-scores/{lp}/bleu-all.sys.score",
            f"metric-scores/{lp}/chrf-all.sys.score", f"metric-scores/{lp}/chrf-all.seg.score",
            f"system-outputs/{lp}/Alder.zephyr-mt.txt"} <= set(layout)
    assert not any(p.startswith("references/") for p in layout)          # the references are not public
    for path, name in layout.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(zf.read(name))
    ms = read_mtme(tmp_path, lp)
    assert len(ms.human[("mqm", "sys")]) == 3
    assert ms.metrics[("chrf-all", "seg")]["Alder.zephyr-mt"] == pytest.approx(SEGMENTS)
    assert ms.outputs["Alder.zephyr-mt"][0].startswith("Der alte Fährmann")
    back = evaluate_mtme(ms, "mqm", level="sys", n_boot=100)
    page = world.client().get(f"/leaderboard/{ts}/meta.json").get_json()
    metrics = page["sources"][0]["metrics"]
    # higher is better in the layout: a lower-is-better MQM scheme is stored negated
    sign = 1 if page["sources"][0]["higher_is_better"] else -1
    shown = {p["system"]: p["human"] for p in metrics["bleu"]["points"]}
    assert sorted(v[0] for v in ms.human[("mqm", "sys")].values()) == pytest.approx(
        sorted(sign * v for v in shown.values()))
    for key in ("bleu", "chrf"):
        for stat in ("pearson", "spearman", "kendall", "pairwise_accuracy"):
            assert back["metrics"][f"{key}-all"][stat]["value"] == pytest.approx(metrics[key][stat]["value"]), \
                (key, stat)
    # the README says how to read it
    readme = zf.read(f"{root}/README.md").decode()
    assert f"python -m scoring meta --mtme mtme --lp {lp} --human mqm" in readme
