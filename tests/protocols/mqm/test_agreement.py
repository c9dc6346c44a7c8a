"""Tables 4 and 5 of the WMT 2023 literary findings on a small campaign, against values computed by hand.

Three annotators read the same document ("river.1", 9 + 7 + 9 + 12 = 37 source words by
whitespace) translated by three systems. Their penalties (5 Minor, 10 Major, 25 Critical):

    system            rater1        rater2           rater3
    zephyr-mt         1 Minor = 5   nothing = 0      1 Neutral = 0
    quokka-nmt        1 Major = 10  2 Minor = 10     1 Critical = 25
    walrus-baseline   1 Crit. = 25  Major+Minor = 15 Critical+Major = 35

Table 4, S = 100 (1 - P / 37):

    zephyr-mt         86.49         100.00           100.00          average 95.50
    quokka-nmt        72.97          72.97            32.43                  59.46
    walrus-baseline   32.43          59.46             5.41                  32.43

Table 5: a Pearson correlation is unchanged by S = 100 - (100/37) P, so it is the correlation
of the penalty vectors. rater1 = (5, 10, 25), mean 40/3, deviations (-25/3, -10/3, 35/3),
sum of squares 650/3; rater2 = (0, 10, 15), mean 25/3, deviations (-25/3, 5/3, 20/3), 350/3;
rater3 = (0, 25, 35), mean 20, deviations (-20, 5, 15), 650.

    r(1,2) = (625 - 50 + 700)/9 / sqrt(650/3 * 350/3) = (1275/9) / (sqrt(227500)/3) = 0.8910
    r(1,3) = (500/3 - 50/3 + 525/3) / sqrt(650/3 * 650) = 325 / (650/sqrt 3) = sqrt(3)/2 = 0.8660
    r(2,3) = (500/3 + 25/3 + 300/3) / sqrt(350/3 * 650) = 275 / 275.38 = 0.9986

The "Average" row correlates each rater with the Table 4 average; the average penalties are
(5/3, 15, 25): deviations (-35/3, 0, 35/3), so r(k, mean) = (35/3)(d3 - d1) / sqrt(2 (35/3)^2 * SS_k):

    rater1: (35/3)(35/3 + 25/3) / sqrt(2 * 1225/9 * 650/3) = 0.9347
    rater2: (35/3)(20/3 + 25/3) / sqrt(2 * 1225/9 * 350/3) = 0.9942
    rater3: (35/3)(15 + 20)     / sqrt(2 * 1225/9 * 650)   = 0.9872
"""

from __future__ import annotations

import pytest

from tests.support.campaigns import assignments_of, finish, new_campaign, put_mark, read_all

RATERS = ("ann1@example.org", "ann2@example.org", "ann3@example.org")
PLAN = {
    "ann1@example.org": {"zephyr-mt": ["Minor"], "quokka-nmt": ["Major"], "walrus-baseline": ["Critical"]},
    "ann2@example.org": {"zephyr-mt": [], "quokka-nmt": ["Minor", "Minor"], "walrus-baseline": ["Major", "Minor"]},
    "ann3@example.org": {"zephyr-mt": ["Neutral"], "quokka-nmt": ["Critical"], "walrus-baseline": ["Critical", "Major"]},
}


@pytest.fixture
def campaign(world):
    cid = new_campaign(world, annotators=RATERS, redundancy=3, ranges="river.1")
    by_sub = {v: k for k, v in world.subs.items()}
    for email, plan in PLAN.items():
        client = world.client(email)
        for a in assignments_of(world, cid, email):
            for seg, severity in enumerate(plan[by_sub[a["submission_id"]]]):
                r, _ = put_mark(client, a["public_id"], {"seg": seg, "start": 0, "end": 3, "category": "Fluency",
                                                         "subcategory": "Grammar", "severity": severity})
                assert r.status_code == 200, r.get_json()
            assert read_all(client, a["public_id"], a["segments"]).status_code == 200
            assert finish(client, a["public_id"]).status_code == 200
    return cid


def test_table4_and_table5_match_hand_computed_values(world, campaign):
    from enface.campaigns import services as svc
    from enface.protocols.mqm import services as mqm_svc

    with world.ctx():
        res = mqm_svc.compute_results(svc.get_campaign(campaign))
    ag = res["agreement"]
    assert ag["raters"] == ["rater1", "rater2", "rater3"]
    expected = {"zephyr-mt": (86.49, 100.00, 100.00, 95.50), "quokka-nmt": (72.97, 72.97, 32.43, 59.46),
                "walrus-baseline": (32.43, 59.46, 5.41, 32.43)}
    for system, (r1, r2, r3, avg) in expected.items():
        row = ag["scores"][system]
        assert [round(row[r], 2) for r in ("rater1", "rater2", "rater3")] == [r1, r2, r3]
        assert round(ag["average"][system], 2) == avg
        # the system score is the mean over annotators (the Table 4 average)
        assert round(res["systems"][system]["score"], 2) == avg
    p = ag["pearson"]
    assert p["rater2"]["rater1"] == pytest.approx(0.8910, abs=5e-5)
    assert p["rater3"]["rater1"] == pytest.approx(3 ** 0.5 / 2, abs=1e-9)
    assert p["rater3"]["rater2"] == pytest.approx(0.9986, abs=5e-5)
    assert p["rater1"]["rater1"] == 1.0
    vs_mean = ag["pearson_vs_mean"]
    assert vs_mean["rater1"] == pytest.approx(0.9347, abs=5e-5)
    assert vs_mean["rater2"] == pytest.approx(0.9942, abs=5e-5)
    assert vs_mean["rater3"] == pytest.approx(0.9872, abs=5e-5)
    # the ranking: zephyr-mt is the best system overall; three one-document systems cannot be separated
    errors = res["errors"]
    assert errors["walrus-baseline"]["Fluency"] == {"Critical": 2, "Major": 2, "Minor": 1}


def test_dashboard_shows_the_tables(world, campaign):
    client = world.client("org@example.org")
    html = client.get(f"/campaigns/{campaign}").get_data(as_text=True)
    for text in ("Table 4", "Table 5", "86.49", "59.46", "0.891", "0.866", "0.999", "0.935", "0.994", "0.987",
                 "<svg", "Figure 4"):
        assert text in html, text
    # restricted to the one document, the same tables
    html = client.get(f"/campaigns/{campaign}?doc=river.1").get_data(as_text=True)
    assert "0.891" in html and "document river.1 only" in html
