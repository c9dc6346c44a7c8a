"""The compiled BLEU and chrF n-gram statistics against sacrebleu's own classes, segment by segment.

Exactness is the contract: the statistics (integers) must be sacrebleu's for every segment, and so the
corpus and sentence scores, on real WMT outputs and on random text built for the corners (empty sides,
repeated n-grams, more than two references, non-BMP characters, tokens whose hashes might collide).
"""

from __future__ import annotations

import random

import pytest
from sacrebleu.metrics import BLEU, CHRF

from scoring.metrics import fast_ngrams
from scoring.metrics.sacrebleu_metrics import make_metric
from tests.support import SHARED_DATA
from tests.support.realdata import require
from tests.support.services import require_service

WMT23 = SHARED_DATA / "wmt23-mtme" / "wmt23"


@pytest.fixture
def compiled():
    require_service(fast_ngrams._ngrams is not None,
                    "the compiled n-gram extension is not built (pip install -e . needs a C compiler)")


def stats_of(metric, hyps, refs):
    cache = metric._cache_references(refs)
    return [metric._compute_segment_statistics(metric._preprocess_segment(h), cache[i]) for i, h in enumerate(hyps)]


def pairs(compiled_metric, reference_metric, hyps, refs):
    got, want = stats_of(compiled_metric, hyps, refs), stats_of(reference_metric, hyps, refs)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g == w, (i, hyps[i], [r[i] for r in refs])
        assert all(type(x) is int for x in g)
    assert compiled_metric.corpus_score(hyps, refs).score == reference_metric.corpus_score(hyps, refs).score


ALPHABET = list("ab c") + ["ä", "ß", "😀", "中", "文", ".", ",", "'", "-", "\u3000", "\t"]


def random_text(rng: random.Random) -> str:
    n = rng.choice([0, 0, 1, 2, 3, 5, 8, 20, 60])
    return "".join(rng.choice(ALPHABET) for _ in range(n))


@pytest.mark.parametrize("seed", range(4))
def test_random_text_equals_sacrebleu(compiled, seed):
    rng = random.Random(seed)
    n_refs = 1 + seed % 3
    hyps = [random_text(rng) for _ in range(300)]
    refs = [[random_text(rng) if rng.random() < 0.7 else h for h in hyps] for _ in range(n_refs)]
    for sentence in (False, True):
        pairs(fast_ngrams.CompiledBLEU(effective_order=sentence), BLEU(effective_order=sentence), hyps, refs)
        pairs(fast_ngrams.CompiledBLEU(tokenize="char"), BLEU(tokenize="char"), hyps, refs)
    pairs(fast_ngrams.CompiledCHRF(), CHRF(), hyps, refs)
    pairs(fast_ngrams.CompiledCHRF(char_order=3, beta=1), CHRF(char_order=3, beta=1), hyps, refs)
    pairs(fast_ngrams.CompiledCHRF(eps_smoothing=True), CHRF(eps_smoothing=True), hyps, refs)
    pairs(fast_ngrams.CompiledBLEU(max_ngram_order=2, lowercase=True), BLEU(max_ngram_order=2, lowercase=True),
          hyps, refs)


def test_repeated_ngrams_and_ties(compiled):
    hyps = ["a a a a a", "x y x y x y", "", "same", "the the the cat"]
    refs = [["a a", "y x y x", "", "same", "the cat the cat"], ["a a a a a a a", "x", "nothing", "", "cat the"]]
    pairs(fast_ngrams.CompiledBLEU(), BLEU(), hyps, refs)
    pairs(fast_ngrams.CompiledCHRF(), CHRF(), hyps, refs)


def test_chrf_plus_plus_is_refused(compiled):
    with pytest.raises(ValueError, match="character n-grams"):
        fast_ngrams.CompiledCHRF(word_order=2)


def test_make_metric_takes_the_compiled_classes_unless_told(compiled, monkeypatch):
    make_metric.cache_clear()
    assert type(make_metric("bleu", "de")) is fast_ngrams.CompiledBLEU
    assert type(make_metric("chrf")) is fast_ngrams.CompiledCHRF
    ours, theirs = make_metric("bleu", "de"), BLEU(trg_lang="de")
    ours.num_refs = theirs.num_refs = 2
    assert ours.get_signature().format() == theirs.get_signature().format()
    make_metric.cache_clear()
    monkeypatch.setenv("ENFACE_NGRAMS", "sacrebleu")
    try:
        assert type(make_metric("bleu", "de")) is BLEU and type(make_metric("chrf")) is CHRF
    finally:
        make_metric.cache_clear()


@pytest.mark.parametrize("system", ["ONLINE-B", "AIRC", "ZengHuiMT"])
def test_wmt23_outputs_equal_sacrebleu(compiled, system):
    root = require(WMT23)
    refs = [(root / "references" / f"en-de.{r}.txt").read_text(encoding="utf-8").splitlines()
            for r in ("refA", "synthetic_ref")]
    hyps = (root / "system-outputs" / "en-de" / f"{system}.txt").read_text(encoding="utf-8").splitlines()
    pairs(fast_ngrams.CompiledBLEU(trg_lang="de"), BLEU(trg_lang="de"), hyps, refs)
    pairs(fast_ngrams.CompiledCHRF(), CHRF(), hyps, refs)


def test_fast_13a_tokenizer_equals_sacrebleus():
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    from scoring.metrics.fast_ngrams import FastRegexpTokenizer

    rng = random.Random(9)
    chars = [chr(c) for c in range(32, 127)] + ["ä", "—", "\u00a0", "\t", "\n", "&quot;", "&amp;", "<skipped>", "1."]
    ours, theirs = FastRegexpTokenizer(), TokenizerRegexp()
    for _ in range(5000):
        line = "".join(rng.choice(chars) for _ in range(rng.randint(0, 50)))
        assert ours(line) == theirs(line), line
    assert type(fast_ngrams.CompiledBLEU().tokenizer) is Tokenizer13a     # the signature still says tok:13a
    assert type(fast_ngrams.CompiledBLEU().tokenizer._post_tokenizer) is FastRegexpTokenizer
