"""The compiled TER port against sacrebleu's own lib_ter, pair by pair.

Exactness is the contract: every (hypothesis, reference) pair must give
sacrebleu's ``(num_edits, ref_length)``, on real WMT outputs and on random
input built to reach the corners (empty sides, beam widening, the cap on shift
candidates, repeated words, block moves).
"""

from __future__ import annotations

import random

import pytest
from sacrebleu.metrics import TER
from sacrebleu.metrics import ter as sacrebleu_ter_module
from sacrebleu.metrics.lib_ter import translation_edit_rate as sacrebleu_ter

from scoring.metrics import fast_ter
from scoring.metrics.sacrebleu_metrics import SacrebleuScorer, make_metric
from tests.support.realdata import ENDE_TSV, ZHEN_TSV, system_segments, ter_pairs
from tests.support.services import require_service


@pytest.fixture
def compiled():
    require_service(fast_ter._ter is not None,
                    "the compiled TER extension is not built (pip install -e . needs a C compiler)")
    return fast_ter._ter.translation_edit_rate


def _both(compiled, hyp, ref):
    expected = sacrebleu_ter(hyp, ref)
    got = compiled(hyp, ref)
    assert got == expected, (hyp, ref)
    assert type(got[0]) is type(expected[0]) and type(got[1]) is type(expected[1])


@pytest.mark.parametrize("hyp, ref", [
    ([], []),
    (["a", "b"], []),
    ([], ["a", "b", "c"]),
    (["a"], ["a"]),
    (["a", "b", "c"], ["a", "b", "c"]),
    (["c", "a", "b"], ["a", "b", "c"]),
    ("d e f a b c".split(), "a b c d e f".split()),
    ("the cat sat on the mat".split(), "on the mat the cat sat".split()),
    ("a a a a b b b b".split(), "b b b b a a a a".split()),
    (["x"] * 3, ["y"] * 200),            # the beam widens for a length ratio > 50
    (["y"] * 200, ["x"] * 3),
    ("w " * 120 + "z", "z " + "w " * 120),  # strings are sequences too, as in sacrebleu
])
def test_hand_made_corners(compiled, hyp, ref):
    _both(compiled, list(hyp) if isinstance(hyp, str) else hyp, list(ref) if isinstance(ref, str) else ref)


def test_unicode_and_case_are_compared_as_python_strings(compiled):
    _both(compiled, ["大", "猫", "SS", "ss", "café"], ["café", "ss", "猫", "大"])
    _both(compiled, ["Cat"], ["cat"])  # case folding is the tokenizer's job, not the edit distance's


def test_candidate_cap_is_reached_like_sacrebleu(compiled):
    # Long runs of few word types give thousands of shift candidates: the 1,000 cap decides.
    rng = random.Random(7)
    ref = [rng.choice("ab") for _ in range(90)]
    hyp = ref[45:] + ref[:45]
    _both(compiled, hyp, ref)


def _random_pair(rng: random.Random) -> tuple[list[str], list[str]]:
    vocab = [f"w{i}" for i in range(rng.choice([2, 3, 5, 12, 40]))]
    ref = [rng.choice(vocab) for _ in range(rng.choice([1, 2, 4, 9, 17, 33, 60]))]
    hyp = list(ref)
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if r < 0.25 and hyp:
            hyp.pop(rng.randrange(len(hyp)))
        elif r < 0.5:
            hyp.insert(rng.randint(0, len(hyp)), rng.choice(vocab + ["oov"]))
        elif r < 0.6 and hyp:
            hyp[rng.randrange(len(hyp))] = rng.choice(vocab + ["oov"])
        elif hyp:  # move a block, as a reordering system would
            a = rng.randrange(len(hyp))
            block = hyp[a:a + rng.randint(1, 12)]
            del hyp[a:a + len(block)]
            at = rng.randint(0, len(hyp))
            hyp[at:at] = block
    if rng.random() < 0.15:
        hyp = [rng.choice(vocab + ["oov"]) for _ in range(rng.choice([0, 1, 5, 30, 70]))]
    return hyp, ref


@pytest.mark.parametrize("seed", range(4))
def test_random_pairs(compiled, seed):
    rng = random.Random(seed)
    for _ in range(120):
        _both(compiled, *_random_pair(rng))


@pytest.mark.parametrize("path", [ZHEN_TSV, ENDE_TSV], ids=["wmt23-zhen", "wmt21-ted-ende"])
def test_real_outputs_pair_by_pair(compiled, path):
    pairs = 0
    # sacrebleu needs ~30 ms a pair on these paragraphs: a sample here, all pairs in bench/ter.py.
    for hyp, ref in ter_pairs(path, systems=3, segments=200):
        _both(compiled, hyp, ref)
        pairs += 1
    assert pairs > 700


def test_corpus_scores_are_bit_identical(compiled):
    keys, _, targets = system_segments(ENDE_TSV)
    systems = sorted(targets)
    refs = [[targets[s].get(k, "") for k in keys] for s in systems[:2]]
    hyps = [targets[systems[2]].get(k, "") for k in keys]
    ours, theirs = fast_ter.CompiledTER(), TER()
    a, b = ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs)
    assert (a.score, a.num_edits, a.ref_length) == (b.score, b.num_edits, b.ref_length)
    assert a.score > 0
    assert ours.get_signature().format() == theirs.get_signature().format()


@pytest.fixture
def fresh_metrics():
    """make_metric decides the TER code once per process: forget that decision around the test."""
    make_metric.cache_clear()
    yield make_metric
    make_metric.cache_clear()


def _ter_score(metric_maker, hyp: str, ref: str):
    scorer = SacrebleuScorer("ter", [[ref]])
    assert scorer.metric is metric_maker("ter", "")
    return scorer.score_from_stats(scorer.segment_stats([hyp]))


def test_sacrebleu_backend_can_be_forced(monkeypatch, fresh_metrics):
    calls = []
    # sacrebleu's TER metric calls lib_ter's function through its own module.
    monkeypatch.setattr(sacrebleu_ter_module, "translation_edit_rate",
                        lambda h, r: calls.append(1) or sacrebleu_ter(h, r))
    monkeypatch.setenv("ENFACE_TER", "sacrebleu")
    assert fast_ter.backend() == "sacrebleu"
    metric = fresh_metrics("ter")
    assert type(metric) is TER
    stats = metric._compute_segment_statistics("b a", {"ref_words": [["a", "b"]]})
    assert stats == [sacrebleu_ter(["b", "a"], ["a", "b"])[0], 2.0]
    assert calls == [1]
    score = _ter_score(fresh_metrics, "b a", "a b")
    assert score.details["backend"] == "sacrebleu"
    assert score.details["num_edits"] == sacrebleu_ter(["b", "a"], ["a", "b"])[0]


def test_the_compiled_backend_is_the_default(compiled, monkeypatch, fresh_metrics):
    monkeypatch.delenv("ENFACE_TER", raising=False)
    assert fast_ter.backend() == "compiled"
    assert type(fresh_metrics("ter")) is fast_ter.CompiledTER
    assert _ter_score(fresh_metrics, "b a", "a b").details["backend"] == "compiled"


def test_without_the_extension_sacrebleu_runs(monkeypatch, fresh_metrics):
    monkeypatch.setattr(fast_ter, "_ter", None)
    assert fast_ter.backend() == "sacrebleu"
    assert fast_ter.translation_edit_rate("a b c".split(), "c a b".split()) == sacrebleu_ter("a b c".split(),
                                                                                           "c a b".split())
    assert type(fresh_metrics("ter")) is TER
    assert _ter_score(fresh_metrics, "a b c", "c a b").details["backend"] == "sacrebleu"
    with pytest.raises(RuntimeError):
        fast_ter.CompiledTER()


def test_cases_the_port_declines_go_to_sacrebleu(compiled, monkeypatch):
    class Declines:
        @staticmethod
        def translation_edit_rate(h, r):
            return None

    metric = fast_ter.CompiledTER()
    monkeypatch.setattr(fast_ter, "_ter", Declines)
    assert fast_ter.translation_edit_rate(["x", "y"], ["y", "x", "z"]) == sacrebleu_ter(["x", "y"], ["y", "x", "z"])
    assert metric._compute_segment_statistics("x y", {"ref_words": [["y", "x", "z"]]}) == \
        [sacrebleu_ter(["x", "y"], ["y", "x", "z"])[0], 3.0]


def test_bad_arguments_raise_type_errors(compiled):
    with pytest.raises(TypeError):
        compiled(3, ["a"])
    with pytest.raises(TypeError):
        compiled(["a"])
    with pytest.raises(TypeError):
        compiled([["unhashable"]], ["a"])
