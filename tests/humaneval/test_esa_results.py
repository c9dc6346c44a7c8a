"""ESA results statistics on constructed rows with known answers: attention checks, exclusion, systems,
bootstrap, ranking, agreement and span overlap, timing."""

import pytest

from humaneval.esa import ErrorSpan, ScoreRow
from humaneval.esa.agreement import marked_characters, rater_agreement, span_overlap
from humaneval.esa.attention import attention_checks, check_pairs, one_sided_p
from humaneval.esa.results import bootstrap_interval, esa_results, timing
from humaneval.esa.segments import base_document, latest, segment_keys, source_document, source_keys


def row(annotator, system, item, score, document, kind="TGT", spans=(), start=0.0, seconds=10.0):
    return ScoreRow(annotator, system, str(item), kind, "eng", "deu", float(score), document, False, tuple(spans),
                    start, start + seconds)


def _annotator(name, tgt, bad, system="S", doc="d"):
    """``tgt`` scores of doc ``doc#system`` (items 1..n), then its BAD copy with ``bad`` scores."""
    n = len(tgt)
    out = [row(name, system, i + 1, s, f"{doc}#{system}") for i, s in enumerate(tgt)]
    out += [row(name, system, n + i + 1, s, f"{doc}#{system}#bad1", "BAD") for i, s in enumerate(bad)]
    return out


def test_segments_keys_and_documents():
    assert base_document("doc#S#bad2") == "doc#S" and base_document("doc#S#bad5#duplicate1") == "doc#S"
    assert source_document("doc#S#bad2") == "doc" and source_document("plain") == "plain"
    rows = [row("a", "S", 12, 50, "d#S"), row("a", "S", 10, 50, "d#S"), row("a", "S", 30, 1, "d#S#bad1", "BAD"),
            row("a", "S", 31, 1, "d#S#bad1", "BAD"), row("a", "T", 3, 9, "d#T")]
    assert segment_keys(rows) == [("d#S", 1), ("d#S", 0), ("d#S", 0), ("d#S", 1), ("d#T", 0)]
    assert source_keys(rows)[-1] == ("d", 0)
    resubmitted = [row("a", "S", 1, 10, "d#S", start=1), row("a", "S", 1, 20, "d#S", start=5)]
    assert [r.score for r in latest(resubmitted)] == [20.0]


def test_attention_pairs_and_verdicts_known_answers():
    careful = _annotator("careful", [90, 80, 70, 85, 95, 60], [20, 30, 10, 40, 50, 5])
    careless = _annotator("careless", [90, 80, 70, 85, 95, 60], [90, 80, 75, 85, 95, 60])
    lazy = [row("lazy", "S", 1, 50, "e#S")]
    assert check_pairs(careful)["careful"][0] == (20.0, 90.0)
    checks = {c.annotator: c for c in attention_checks(careful + careless + lazy)}
    good = checks["careful"]
    # every BAD copy lower, no ties: the exact one-sided signed-rank p is 1 / 2**6
    assert good.p_value == pytest.approx(1 / 64) and good.passed and good.pairs == 6 and good.lower_share == 1.0
    assert checks["careless"].passed is False and checks["careless"].lower_share == 0.0
    assert checks["careless"].p_value == 1.0        # the one differing pair is higher: nothing lower
    assert checks["lazy"].passed is None and checks["lazy"].pairs == 0


def test_attention_tests_are_scipys():
    from scipy.stats import mannwhitneyu, wilcoxon

    bad, original = [20.0, 95.0, 30.0, 60.0, 61.0], [90.0, 90.0, 80.0, 70.0, 62.0]
    assert one_sided_p(bad, original, "wilcoxon") == pytest.approx(wilcoxon(bad, original, alternative="less").pvalue)
    assert one_sided_p(bad, original, "mannwhitney") == pytest.approx(
        mannwhitneyu(bad, original, alternative="less").pvalue)
    assert one_sided_p([5.0, 6.0], [5.0, 6.0]) == 1.0
    with pytest.raises(ValueError, match="unknown attention-check test"):
        one_sided_p(bad, original, "t")


def _world():
    careful = _annotator("careful", [90, 80, 70, 85, 95, 60], [20, 30, 10, 40, 50, 5])
    careless = _annotator("careless", [10, 10, 10, 10, 10, 10], [90, 80, 75, 85, 95, 60], system="T")
    careful += [row("careful", "T", 20 + i, s, "d#T") for i, s in enumerate([50, 40, 30])]
    return careful + careless


def test_failing_annotators_are_excluded_by_default():
    out = esa_results(_world(), n_resamples=200)
    assert out.excluded == ["careless"]
    t = out.system("T")
    assert (t.items, t.score) == (3, 40.0)      # only the careful annotator's three T items are left
    assert [s.system for s in out.systems] == ["S", "T"]
    kept = esa_results(_world(), exclude_failing=False, n_resamples=200)
    assert kept.excluded == [] and kept.system("T").items == 9
    assert kept.system("T").score == pytest.approx((50 + 40 + 30 + 60) / 9)
    assert out.to_dict()["settings"]["exclude_failing"] is True


def test_z_is_computed_after_the_exclusion():
    out = esa_results(_world(), n_resamples=200)
    careful = [90, 80, 70, 85, 95, 60, 50, 40, 30]
    mean = sum(careful) / 9
    sd = (sum((x - mean) ** 2 for x in careful) / 9) ** 0.5
    assert out.system("T").z == pytest.approx(sum((x - mean) / sd for x in (50, 40, 30)) / 3)


def test_bootstrap_interval():
    values = [float(v) for v in range(0, 101, 5)]
    low, high = bootstrap_interval(values, seed=1)
    assert low < sum(values) / len(values) < high
    assert (low, high) == bootstrap_interval(values, seed=1)           # seeded: reproducible
    assert high - low == pytest.approx(2 * 1.96 * (sum((v - 50) ** 2 for v in values) / 21) ** 0.5 / 21 ** 0.5,
                                       rel=0.15)                      # about the normal interval's width
    assert bootstrap_interval([7.0]) == (None, None)
    assert bootstrap_interval([7.0, 7.0]) == (7.0, 7.0)


def test_ranking_uses_the_rank_sum_test_and_the_system_means():
    rows = [row(f"a{i % 3}", "good", i, 90 + i % 5, f"g{i}#good") for i in range(15)]
    rows += [row(f"a{i % 3}", "poor", i + 100, 40 + i % 7, f"p{i}#poor") for i in range(15)]
    out = esa_results(rows, n_resamples=100)
    ranking = out.ranking
    assert ranking["test"] == "mannwhitney" and ranking["by"] == "score"
    assert [(r["system"], r["cluster"]) for r in ranking["rows"]] == [("good", 1), ("poor", 2)]
    assert ranking["rows"][0]["score"] == out.system("good").score
    by_z = esa_results(rows, ranking_by="z", n_resamples=100).ranking
    assert by_z["rows"][0]["score"] == pytest.approx(out.system("good").z)
    with pytest.raises(ValueError, match="ranking_by"):
        esa_results(rows, ranking_by="mean")


def test_span_overlap_by_hand():
    a = [ErrorSpan(0, 4, "minor"), ErrorSpan(None, None, "major")]      # characters 0-4 and [missing]
    b = [ErrorSpan(3, 6, "major")]                                       # characters 3-6
    assert marked_characters(a) == {0: "minor", 1: "minor", 2: "minor", 3: "minor", 4: "minor", -1: "major"}
    got = span_overlap([(a, b), ([], [])])
    # |A| = 6, |B| = 4, |A ∩ B| = 2 (3, 4), |A ∪ B| = 8; no character with the same severity
    assert got == {"span_f1": pytest.approx(4 / 10), "span_jaccard": pytest.approx(2 / 8), "span_f1_severity": 0.0}
    assert span_overlap([([], [])]) == {"span_f1": None, "span_jaccard": None, "span_f1_severity": None}
    # overlapping spans of one annotator: the character takes the more severe
    assert marked_characters([ErrorSpan(0, 2, "minor"), ErrorSpan(2, 3, "major")])[2] == "major"


def test_rater_agreement_on_shared_segments():
    from scipy.stats import kendalltau, pearsonr

    xs, ys = [90, 70, 50, 30, 80], [85, 75, 40, 35, 60]
    rows = [row("r1", "S", i + 1, x, "d#S", spans=[ErrorSpan(0, 9, "minor")]) for i, x in enumerate(xs)]
    rows += [row("r2", "S", i + 50, y, "d#S", spans=[ErrorSpan(5, 9, "minor")]) for i, y in enumerate(ys)]
    rows += [row("r3", "S", 1, 10, "other#S")]                          # nobody else rated it
    got = rater_agreement(rows)
    assert (got.segments, got.pairs) == (5, 5)
    assert got.pearson == pytest.approx(pearsonr(xs, ys).statistic)
    assert got.kendall == pytest.approx(kendalltau(xs, ys).statistic)
    assert got.span_f1 == pytest.approx(2 * 25 / 75) and got.span_f1_severity == got.span_f1
    assert rater_agreement(rows[:5]).pearson is None


def test_timing():
    rows = [row("a", "S", 1, 50, "d#S", spans=[ErrorSpan(0, 1, "minor")] * 3, seconds=30.0),
            row("a", "S", 2, 50, "d#S", seconds=6.0), row("a", "S", 3, 50, "d#S", seconds=0.0)]
    t = timing(rows)
    assert (t.segments, t.spans, t.seconds) == (3, 3, 36.0)
    assert t.seconds_per_segment == 12.0 and t.median_seconds_per_segment == 6.0 and t.seconds_per_span == 12.0
    assert timing(rows[1:]).seconds_per_span is None


def test_unit_scores_are_source_segments_with_their_mean():
    from humaneval.esa.results import unit_scores

    rows = [row("a", "S", 1, 80, "d#S"), row("b", "S", 7, 60, "d#S"), row("a", "T", 2, 50, "d#T"),
            row("a", "T", 3, 40, "d#T")]
    assert unit_scores(rows) == {"S": {("d", 0): 70.0}, "T": {("d", 0): 50.0, ("d", 1): 40.0}}
    assert unit_scores(rows, [1.0, 0.0, 2.0, 3.0])["S"] == {("d", 0): 0.5}
