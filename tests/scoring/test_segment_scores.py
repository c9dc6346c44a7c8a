"""Segment scores of BLEU, chrF and TER (document scores of d-BLEU): each equals sacrebleu's ``sentence_score``
with the sentence-level settings (``sacrebleu --sentence-level``: BLEU with effective order), and the signature
says so."""

from __future__ import annotations

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from scoring import Scorer, load_system_output, load_testset
from scoring.metrics.sacrebleu_metrics import join_document
from tests.support import ROOT, SHARED_DATA
from tests.support.realdata import require

DEMO = ROOT / "data" / "demo"
WMT23 = SHARED_DATA / "wmt23-mtme" / "wmt23"


def sentence_metrics(tgt_lang: str = "en"):
    return {"bleu": BLEU(trg_lang=tgt_lang, effective_order=True), "chrf": CHRF(), "ter": TER()}


def check_equal(hyps, refs, scores, tgt_lang="en"):
    for key, metric in sentence_metrics(tgt_lang).items():
        got = scores[key].segments
        assert len(got) == len(hyps)
        for i, h in enumerate(hyps):
            want = metric.sentence_score(h, [r[i] for r in refs]).score
            assert got[i] == want, (key, i, got[i], want)


def test_demo_segment_scores_equal_sentence_score():
    ts = load_testset(DEMO / "testset")
    for system in ("strong-mt", "literal-mt", "weak-mt"):
        out = load_system_output(ts, DEMO / "systems" / system)
        result = Scorer(ts, ["bleu", "chrf", "ter", "dbleu"], workers=1).score(out, name=system)
        hyps = [s for d in ts.doc_names for s in out[d]]
        check_equal(hyps, ts.references(), result.scores)
        docs = [join_document(out[d]) for d in ts.doc_names]
        drefs = [[join_document(d.refs[i]) for d in ts.documents] for i in range(ts.num_refs)]
        bleu = BLEU(trg_lang="en", effective_order=True)
        assert result.scores["dbleu"].segments == [bleu.sentence_score(h, [r[i] for r in drefs]).score
                                                   for i, h in enumerate(docs)]


def test_segment_signatures_say_sentence_score():
    ts = load_testset(DEMO / "testset")
    out = load_system_output(ts, DEMO / "systems" / "strong-mt")
    scores = Scorer(ts, ["bleu", "chrf", "ter", "dbleu"], workers=1).score(out).scores
    assert scores["bleu"].segment_signature.startswith("level:segment|score:sentence_score|nrefs:2|")
    assert "eff:yes" in scores["bleu"].segment_signature and "eff:no" in scores["bleu"].signature
    assert scores["dbleu"].segment_signature.startswith("level:document|score:sentence_score|")
    assert scores["ter"].segment_signature.endswith(scores["ter"].signature)
    assert "segments" not in scores["chrf"].to_dict() and "segment_signature" not in scores["chrf"].to_dict()
    assert scores["chrf"].to_dict(with_segments=True)["segment_signature"].startswith("level:segment|")


def test_parallel_segment_scores_equal_in_process():
    ts = load_testset(DEMO / "testset")
    out = load_system_output(ts, DEMO / "systems" / "weak-mt")
    one = Scorer(ts, ["bleu", "chrf", "ter"], workers=1).score(out).scores
    with Scorer(ts, ["bleu", "chrf", "ter"], workers=2) as scorer:
        scorer._sacrebleu["bleu"].PARALLEL_THRESHOLD = 1    # force the pool on this small set
        two = scorer.score(out).scores
    assert all(one[k].segments == two[k].segments for k in one)


@pytest.mark.parametrize("system", ["ONLINE-W", "NLLB_Greedy"])
def test_wmt23_paragraphs_equal_sentence_score(system):
    """Real WMT23 en-de paragraphs, two references (every 7th one: sacrebleu's own TER is slow)."""
    root = require(WMT23)
    refs = [(root / "references" / f"en-de.{r}.txt").read_text(encoding="utf-8").splitlines()
            for r in ("refA", "synthetic_ref")]
    hyps = (root / "system-outputs" / "en-de" / f"{system}.txt").read_text(encoding="utf-8").splitlines()
    keep = range(0, len(hyps), 7)
    hyps, refs = [hyps[i] for i in keep], [[r[i] for i in keep] for r in refs]
    from scoring.testset import Document, TestSet

    ts = TestSet("wmt23", "en", "de", [Document("all", tuple([""] * len(hyps)), tuple(tuple(r) for r in refs))], None, {})
    scores = Scorer(ts, ["bleu", "chrf", "ter"], workers=1).score({"all": hyps}).scores
    check_equal(hyps, refs, scores, tgt_lang="de")
