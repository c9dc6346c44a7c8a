"""Scorer.document_scores: each metric on each document alone, summed from the statistics the scoring
kept, equals scoring that document by itself (and sacrebleu on it)."""

from __future__ import annotations

import sacrebleu

from scoring import Scorer, load_system_output, load_testset
from scoring.testset import TestSet
from tests.support import ROOT

DEMO = ROOT / "data" / "demo"


def test_document_scores_equal_scoring_each_document_alone():
    ts = load_testset(DEMO / "testset")
    out = load_system_output(ts, DEMO / "systems" / "literal-mt")
    scorer = Scorer(ts, ["bleu", "chrf", "ter", "dbleu"], workers=1)
    per_doc = scorer.document_scores(scorer.score(out))
    assert set(per_doc) == {"bleu", "chrf", "ter", "dbleu"}
    for i, doc in enumerate(ts.documents):
        alone = Scorer(TestSet("one", ts.src_lang, ts.tgt_lang, [doc], None, {}), list(per_doc),
                       workers=1).score({doc.name: out[doc.name]}).scores
        for key, values in per_doc.items():
            assert values[i] == alone[key].value, (doc.name, key)
        refs = [list(r) for r in doc.refs]
        assert per_doc["bleu"][i] == sacrebleu.corpus_bleu(out[doc.name], refs).score


def test_a_document_level_submission_has_only_d_bleu_by_document():
    ts = load_testset(DEMO / "testset")
    out = {d.name: [" ".join(load_system_output(ts, DEMO / "systems" / "strong-mt")[d.name])] for d in ts.documents}
    scorer = Scorer(ts, ["bleu", "dbleu"], workers=1)
    per_doc = scorer.document_scores(scorer.score(out, document_level=True))
    assert list(per_doc) == ["dbleu"] and len(per_doc["dbleu"]) == 3 and all(v > 0 for v in per_doc["dbleu"])
