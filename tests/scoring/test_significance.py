"""Paired significance tests (scoring/significance.py): equal to sacrebleu, all pairs, bounded memory."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest

from scoring.significance import (
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    MetricStats,
    batch_score_fn_for,
    mean_stats,
    paired_test,
    rank_and_cluster,
    sacrebleu_seed,
    sacrebleu_stats,
)

# ---------------------------------------------------------------------------
# Synthetic but realistic data: English reference sentences, a second reference
# and systems made by perturbing reference 1 (drop, replace, swap words).

WORDS = ("the a an of to in on at by for with from about into over after before under between through "
         "house river mountain city night morning letter window garden road forest village king queen "
         "child mother father friend stranger soldier teacher doctor writer painter sailor merchant "
         "old young quiet dark bright cold warm long short strange gentle bitter sweet heavy empty "
         "walked spoke looked waited listened remembered forgot opened closed carried followed found "
         "lost wrote read sang smiled wept slept dreamed returned left").split()

N_SEGMENTS = 200
RATES = {"base": 0.30, "sysA": 0.29, "sysB": 0.32}   # close enough for p-values between 0.01 and 0.5
METRICS = [("bleu", "BLEU", BLEU), ("chrf", "chrF2", CHRF), ("ter", "TER", TER)]


def _sentence(r: random.Random) -> str:
    s = " ".join(r.choice(WORDS) for _ in range(r.randint(6, 22)))
    return s[0].upper() + s[1:] + r.choice([".", ".", ".", "!", "?"])


def _perturb(s: str, r: random.Random, rate: float) -> str:
    out = []
    for w in s.split():
        x = r.random()
        if x < rate / 3:
            continue                                  # drop
        out.append(r.choice(WORDS) if x < 2 * rate / 3 else w)   # replace / keep
    for _ in range(int(len(out) * rate / 3)):         # swap neighbours
        if len(out) > 2:
            i = r.randrange(len(out) - 1)
            out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(out) if out else "."


def make_data(n=N_SEGMENTS, seed=7, rates=RATES):
    r = random.Random(seed)
    ref1 = [_sentence(r) for _ in range(n)]
    ref2 = [_perturb(s, r, 0.15) for s in ref1]
    systems = {name: [_perturb(s, r, rate) for s in ref1] for name, rate in rates.items()}
    return [ref1, ref2], systems


def _memoise_statistics(metric):
    """sacrebleu metric whose per-segment statistics are computed once per hypothesis list.

    sacrebleu's PairedTest extracts every system's statistics again on each call;
    caching that deterministic step keeps these tests fast and leaves the
    significance code under test untouched (the CLI test runs sacrebleu whole).
    """
    extract, cache = metric._extract_corpus_statistics, {}

    def cached(hypotheses, references):
        key = tuple(hypotheses)
        if key not in cache:
            cache[key] = extract(hypotheses, references)
        return cache[key]

    metric._extract_corpus_statistics = cached
    return metric


@pytest.fixture(scope="module")
def data():
    refs, systems = make_data()
    metrics, stats = {}, {}
    for key, disp, cls in METRICS:
        metrics[disp] = _memoise_statistics(cls(references=refs))
        stats[key] = {s: metrics[disp]._extract_corpus_statistics(h, None) for s, h in systems.items()}
    return refs, systems, stats, metrics


def _sacrebleu_inprocess(data, test, n, order=None):
    _, systems, _, metrics = data
    order = order or list(systems)
    _, scores = PairedTest([(s, systems[s]) for s in order], metrics, None, test_type=test, n_samples=n)()
    return scores


# ---------------------------------------------------------------------------
# Equivalence with sacrebleu


@pytest.mark.parametrize("test,n,block", [("bs", 200, 37), ("ar", 500, 64)])
def test_equals_sacrebleu_paired_test_in_process(data, test, n, block, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    _, systems, stats, _ = data
    scores = _sacrebleu_inprocess(data, test, n)
    names = list(systems)
    seen_p = set()
    for key, disp, _ in METRICS:
        ms = sacrebleu_stats(key, "en", stats[key])
        for pairs in ("baseline", "all"):
            res = paired_test(ms, test=test, n_samples=n, pairs=pairs, block_size=block)
            assert res.seed == DEFAULT_SEED == sacrebleu_seed({})
            for i, name in enumerate(names):
                ours = next(r for r in res.ranking if r["system"] == name)
                theirs = scores[disp][i]
                assert ours["score"] == theirs.score
                if test == "bs":        # the bootstrap mean and CI come from the same resamples
                    assert (ours["bs_mean"], ours["bs_ci"]) == (theirs.mean, theirs.ci)
                if i:
                    assert res.p_value("base", name) == theirs.p_value, (key, pairs, name)
                    seen_p.add(theirs.p_value)
    assert len(seen_p) >= 4 and max(seen_p) > 0.05 and min(seen_p) < 0.05   # not a trivial comparison


@pytest.mark.parametrize("test,n", [("bs", 200), ("ar", 300)])
def test_all_pairs_equal_sacrebleu_with_either_system_as_baseline(data, test, n, monkeypatch):
    """A pair without the baseline gets the p-value sacrebleu gives with one of them as its baseline."""
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    _, _, stats, _ = data
    scores = _sacrebleu_inprocess(data, test, n, order=["sysA", "sysB"])
    flipped = _sacrebleu_inprocess(data, test, n, order=["sysB", "sysA"])
    for key, disp, _ in METRICS:
        res = paired_test(sacrebleu_stats(key, "en", stats[key]), test=test, n_samples=n)
        assert res.p_value("sysA", "sysB") == scores[disp][1].p_value == flipped[disp][1].p_value
        assert res.p_value("base", "sysB") == paired_test(
            sacrebleu_stats(key, "en", stats[key]), test=test, n_samples=n, pairs="baseline").p_value("base", "sysB")


@pytest.mark.parametrize("test,flag,n", [("bs", "--paired-bs", 200), ("ar", "--paired-ar", 300)])
def test_equals_sacrebleu_cli(data, tmp_path, test, flag, n):
    refs, systems, stats, _ = data
    m = 120     # a prefix keeps sacrebleu's own statistics extraction short; per-segment stats slice
    for name, lines in [("ref1", refs[0]), ("ref2", refs[1]), *systems.items()]:
        (tmp_path / name).write_text("\n".join(lines[:m]) + "\n", encoding="utf-8")
    stats = {key: {s: v[:m] for s, v in by_sys.items()} for key, by_sys in stats.items()}
    exe = Path(sys.executable).with_name("sacrebleu")
    env = {k: v for k, v in os.environ.items() if k != "SACREBLEU_SEED"}
    proc = subprocess.run([str(exe), "ref1", "ref2", "-i", *systems, "-m", "bleu", "chrf", "ter",
                           flag, f"{flag}-n", str(n), "-f", "json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=True)
    cli = {row["system"].removeprefix("Baseline: "): row for row in json.loads(proc.stdout)}
    assert list(cli) == list(systems)
    for key, disp, _ in METRICS:
        res = paired_test(sacrebleu_stats(key, "en", stats[key]), test=test, n_samples=n)
        for name in systems:
            row = next(r for r in res.ranking if r["system"] == name)
            assert row["score"] == cli[name][disp]["score"]
            if name != "base":
                assert res.p_value("base", name) == cli[name][disp]["p_value"], (key, name)
            if test == "bs":
                assert row["bs_mean"] == cli[name][disp]["mean"]
                assert row["bs_ci"] == cli[name][disp]["ci"]


def test_vectorised_scores_are_bit_identical_to_sacrebleu():
    rng = np.random.default_rng(0)
    m = 1500
    # BLEU: sys_len, ref_len, correct[4], total[4]; include no matches, empty orders, short output
    total = rng.integers(0, 3000, size=(m, 4))
    total[rng.random(m) < 0.1, 2:] = 0
    correct = np.minimum(total, rng.integers(0, 3000, size=(m, 4)))
    correct[rng.random(m) < 0.2, 3] = 0
    correct[rng.random(m) < 0.05] = 0
    lens = rng.integers(0, 4000, size=(m, 2))
    lens[rng.random(m) < 0.02, 0] = 0
    bleu_stats = np.concatenate([lens, correct, total], axis=1)
    # chrF / chrF++ / eps smoothing: (hyp, ref, match) per order, with zeros
    def chrf_stats(order):
        hyp = rng.integers(0, 5000, size=(m, order))
        ref = rng.integers(0, 5000, size=(m, order))
        hyp[rng.random((m, order)) < 0.05] = 0
        ref[rng.random((m, order)) < 0.05] = 0
        match = np.minimum(np.minimum(hyp, ref), rng.integers(0, 5000, size=(m, order)))
        match[rng.random(m) < 0.02] = 0
        return np.stack([hyp, ref, match], axis=2).reshape(m, 3 * order)
    ter_stats = np.stack([rng.integers(0, 500, m) / 2, rng.integers(0, 800, m) / 2], axis=1)
    ter_stats[:5] = [[0, 0], [3, 0], [0, 4], [1.5, 0.5], [0, 0]]
    cases = [(BLEU(), bleu_stats), (BLEU(smooth_method="none"), bleu_stats),
             (BLEU(smooth_method="floor"), bleu_stats), (BLEU(effective_order=True), bleu_stats),
             (BLEU(effective_order=True, smooth_method="floor"), bleu_stats), (CHRF(), chrf_stats(6)),
             (CHRF(word_order=2), chrf_stats(8)), (CHRF(eps_smoothing=True), chrf_stats(6)),
             (TER(), ter_stats)]
    for metric, st in cases:
        batch = batch_score_fn_for(metric)
        for arr in (st, st.astype(np.float64)):
            expected = np.array([metric._compute_score_from_stats(row).score for row in arr], dtype=np.float64)
            got = batch(arr)
            assert got.dtype == np.float64
            assert np.array_equal(got, expected), type(metric).__name__
        assert batch(st.astype(np.float32)) is None      # float32 sums go through sacrebleu itself
    assert batch_score_fn_for(BLEU(smooth_method="add-k")) is None


# ---------------------------------------------------------------------------
# Behaviour


def test_batch_score_fn_takes_subclasses_by_type():
    """The compiled TER (a TER subclass) gets the vectorised score, a changed score function does not."""
    from scoring.metrics.fast_ter import CompiledTER, _ter

    class OddTER(TER):
        def _compute_score_from_stats(self, stats):
            return super()._compute_score_from_stats(stats)

    stats = np.array([[3.0, 10.0], [0.0, 0.0], [2.0, 0.0]])
    expected = np.array([TER()._compute_score_from_stats(row).score for row in stats])
    if _ter is not None:
        assert np.array_equal(batch_score_fn_for(CompiledTER())(stats), expected)
    assert np.array_equal(batch_score_fn_for(TER())(stats), expected)
    assert batch_score_fn_for(OddTER()) is None
    assert batch_score_fn_for(object()) is None


def test_seeded_and_reproducible(data):
    _, _, stats, _ = data
    ms = sacrebleu_stats("chrf", "en", stats["chrf"])
    a = paired_test(ms, test="bs", n_samples=200, seed=1)
    b = paired_test(ms, test="bs", n_samples=200, seed=1, block_size=3)
    c = paired_test(ms, test="bs", n_samples=200, seed=2)
    assert a.to_dict() == b.to_dict()
    assert [p.p_value for p in a.pairs] != [p.p_value for p in c.pairs]
    ar1 = paired_test(ms, test="ar", n_samples=300, seed=1)
    assert ar1.to_dict() == paired_test(ms, test="ar", n_samples=300, seed=1, block_size=5).to_dict()
    assert [p.p_value for p in ar1.pairs] != [p.p_value for p in paired_test(ms, test="ar", n_samples=300, seed=2).pairs]
    unseeded = paired_test(ms, test="bs", n_samples=50, seed=None)
    assert unseeded.seed is None and len(unseeded.pairs) == 3


def test_defaults_and_seed_env():
    assert DEFAULT_SAMPLES == {"bs": 1000, "ar": 10000}
    assert sacrebleu_seed({}) == 12345
    assert sacrebleu_seed({"SACREBLEU_SEED": "None"}) is None
    assert sacrebleu_seed({"SACREBLEU_SEED": "42"}) == 42
    ms = mean_stats("comet", {"a": [0.1, 0.2, 0.3], "b": [0.2, 0.1, 0.4]})
    assert paired_test(ms).n_samples == 1000
    assert paired_test(ms, test="ar").n_samples == 10000


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_identical_systems_are_not_significant(data, test):
    _, _, stats, _ = data
    st = dict(stats["bleu"])
    st["copy"] = [list(r) for r in st["base"]]
    res = paired_test(sacrebleu_stats("bleu", "en", st), test=test, n_samples=200)
    pair = res.pair("base", "copy")
    assert pair.p_value == 1.0 and pair.delta == 0 and not pair.significant and pair.winner is None
    clusters = {r["system"]: r["cluster"] for r in res.ranking}
    assert clusters["base"] == clusters["copy"]


@pytest.mark.parametrize("test", ["bs", "ar"])
def test_clearly_better_system_is_significant_and_alone(test):
    refs, systems = make_data(n=150, rates={"good": 0.05, "bad1": 0.4, "bad2": 0.41})
    metric = CHRF()
    st = {s: metric._extract_corpus_statistics(h, refs) for s, h in systems.items()}
    res = paired_test(sacrebleu_stats("chrf", "en", st), test=test, n_samples=300)
    for other in ("bad1", "bad2"):
        pair = res.pair("good", other)
        assert pair.significant and pair.winner == "good" and pair.p_value < 0.01
    assert res.clusters() == [["good"], ["bad1", "bad2"]] or res.clusters() == [["good"], ["bad2", "bad1"]]
    top = res.ranking[0]
    assert top["system"] == "good" and (top["rank_low"], top["rank_high"]) == (1, 1) and top["wins"] == 2


def test_rank_ranges_and_clusters_hand_computed():
    scores = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}
    # A > B, A > C, B > C, B > D, C > D significantly; A vs D not significant
    better = {("A", "B"), ("A", "C"), ("B", "C"), ("B", "D"), ("C", "D")}
    wmt = rank_and_cluster(scores, better)
    got = {r["system"]: (r["wins"], r["losses"], r["rank_low"], r["rank_high"], r["cluster"]) for r in wmt}
    assert got == {"A": (2, 0, 1, 2, 1), "B": (2, 1, 2, 2, 1), "C": (1, 2, 3, 3, 1), "D": (0, 2, 3, 4, 1)}
    # WMT: no cut, A does not beat D. Rank ranges: {A,B} = 1-2 do not overlap {C,D} = 3-4
    ranges = rank_and_cluster(scores, better, method="rank_range")
    assert [r["cluster"] for r in ranges] == [1, 1, 2, 2]
    # full domination of lower clusters: both conventions cut
    better2 = {("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")}
    for method in ("wmt", "rank_range"):
        rows = rank_and_cluster(scores, better2, method=method)
        assert [(r["system"], r["rank_low"], r["rank_high"], r["cluster"]) for r in rows] == [
            ("A", 1, 2, 1), ("B", 1, 2, 1), ("C", 3, 3, 2), ("D", 4, 4, 3)]
    # lower is better: order reverses
    rows = rank_and_cluster({"x": 10.0, "y": 20.0}, {("x", "y")}, higher_is_better=False)
    assert [(r["system"], r["cluster"]) for r in rows] == [("x", 1), ("y", 2)]
    with pytest.raises(ValueError):
        rank_and_cluster(scores, better, method="nope")


def test_ter_lower_is_better(data):
    _, _, stats, _ = data
    for test in ("bs", "ar"):
        res = paired_test(sacrebleu_stats("ter", "en", stats["ter"]), test=test, n_samples=300)
        assert not res.higher_is_better
        scores = {r["system"]: r["score"] for r in res.ranking}
        assert [r["system"] for r in res.ranking] == sorted(scores, key=scores.get)
        pair = res.pair("base", "sysA")
        assert pair.delta > 0 and pair.significant and pair.winner == "sysA"   # sysA has the lower TER
        assert next(r for r in res.ranking if r["system"] == "sysA")["wins"] >= 1


def _naive_bootstrap_p(a, b, n_samples, seed, scale):
    """sacrebleu's algorithm, materialising every resample."""
    n = len(a)
    idx = np.random.default_rng(seed).choice(n, size=(n_samples, n), replace=True)
    sa = np.array([s.sum(0) / n * scale for s in a[idx]])
    sb = np.array([s.sum(0) / n * scale for s in b[idx]])
    d = np.abs(sb - sa)
    stat = d - d.mean()
    diff = abs(a.sum() / n * scale - b.sum() / n * scale)
    return (np.sum(stat > diff) + 1) / (n_samples + 1)


def _naive_ar_p(a, b, n_samples, seed, scale):
    n = len(a)
    pos = np.random.default_rng(seed).integers(2, size=(n_samples, n), dtype=bool)
    sa = (pos @ a + ~pos @ b) / n * scale
    sb = (~pos @ a + pos @ b) / n * scale
    diff = abs(a.sum() / n * scale - b.sum() / n * scale)
    return (np.sum(np.abs(sa - sb) > diff) + 1) / (n_samples + 1)


def test_comet_style_mean_stats():
    rng = np.random.default_rng(3)
    n = 400
    base = rng.normal(0.80, 0.08, n)
    seg = {"base": base, "close": base + rng.normal(0.0, 0.05, n), "better": base + rng.normal(0.03, 0.05, n)}
    ms = mean_stats("comet", {k: v.tolist() for k, v in seg.items()}, scale=100)
    res = paired_test(ms, test="bs", n_samples=500, seed=11)
    for r in res.ranking:
        assert math.isclose(r["score"], seg[r["system"]].mean() * 100, rel_tol=1e-12)
    for other in ("close", "better"):
        assert math.isclose(res.p_value("base", other),
                            _naive_bootstrap_p(seg["base"], seg[other], 500, 11, 100), abs_tol=1e-12)
    ar = paired_test(ms, test="ar", n_samples=1000, seed=11)
    for other in ("close", "better"):
        assert math.isclose(ar.p_value("base", other),
                            _naive_ar_p(seg["base"], seg[other], 1000, 11, 100), abs_tol=1e-12)
    assert res.pair("base", "better").winner == "better"
    assert res.ranking[0]["system"] == "better" and res.ranking[0]["cluster"] == 1
    assert res.pair("base", "close").p_value > 0.05


def test_memory_is_bounded():
    """5000 segments, chrF-sized statistics, 1000 resamples: sacrebleu would hold 1000 x 5000 x 18 float32 (360 MB)."""
    rng = np.random.default_rng(5)
    n, order = 5000, 6

    def chrf_like(shift):
        hyp = rng.integers(20, 200, size=(n, order))
        ref = rng.integers(20, 200, size=(n, order))
        match = np.minimum(hyp, ref) - rng.integers(0, 20 + shift, size=(n, order)).clip(0)
        return np.stack([hyp, ref, match.clip(0)], axis=2).reshape(n, 3 * order)

    # the engine under test; chrF scores through the vectorised copy of sacrebleu's chrF (float64 path),
    # so that tracemalloc's overhead on Python-level calls stays small
    ms = MetricStats("chrf", {"a": chrf_like(0), "b": chrf_like(2)}, score_fn=lambda s: 0.0,
                     batch_score_fn=batch_score_fn_for(CHRF()))
    tracemalloc.start()
    try:
        res = paired_test(ms, test="bs", n_samples=1000)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        small = paired_test(ms, test="bs", n_samples=1000, block_size=50)
        _, peak_small = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, peak
    assert peak_small < 12 * 2**20, peak_small
    assert small.to_dict() == res.to_dict()


def test_result_serialisation_and_text(data):
    _, _, stats, _ = data
    res = paired_test(sacrebleu_stats("bleu", "en", stats["bleu"]), test="bs", n_samples=100)
    d = json.loads(json.dumps(res.to_dict()))
    assert d["metric"] == "bleu" and d["test"] == "bs" and d["n_samples"] == 100 and d["seed"] == 12345
    assert len(d["pairs"]) == 3 and {"system_a", "system_b", "p_value", "significant", "delta"} <= set(d["pairs"][0])
    assert [r["system"] for r in d["ranking"]] == [r["system"] for r in res.ranking]
    assert {"wins", "losses", "rank_low", "rank_high", "cluster", "bs_mean", "bs_ci"} <= set(d["ranking"][0])
    text = res.format_text()
    assert "bootstrap" in text and all(s in text for s in ("base", "sysA", "sysB"))
    baseline = paired_test(sacrebleu_stats("bleu", "en", stats["bleu"]), test="ar", n_samples=100,
                           pairs="baseline", baseline="sysB")
    assert baseline.baseline == "sysB" and {(p.system_a, p.system_b) for p in baseline.pairs} == {
        ("sysB", "base"), ("sysB", "sysA")}
    assert "randomisation" in baseline.format_text()


def test_input_errors():
    with pytest.raises(ValueError):
        MetricStats("x", {"a": np.zeros((3, 2)), "b": np.zeros((4, 2))}, score_fn=lambda s: 0.0)
    with pytest.raises(ValueError):
        MetricStats("x", {"a": np.zeros((0, 2))}, score_fn=lambda s: 0.0)
    ms = mean_stats("m", {"a": [1.0, 2.0], "b": [2.0, 3.0]})
    with pytest.raises(ValueError):
        paired_test(ms, test="t")
    with pytest.raises(ValueError):
        paired_test(ms, pairs="some")
    with pytest.raises(ValueError):
        paired_test(ms, pairs="baseline", baseline="zzz")
    single = paired_test(mean_stats("m", {"a": [1.0, 2.0]}))
    assert single.pairs == [] and single.ranking[0]["cluster"] == 1
