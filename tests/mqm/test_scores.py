"""Scheme scores computed by hand on small files (tests/mqm/fixtures/*.tsv).

literary_small.tsv (wmt23-literary): systems A, B, C; raters r1-r3; segment 1 has
12 source words, segment 2 has 8 (whitespace). Per annotator,
S = 100 * (1 - penalties / words judged), clamped at 0:

    A  r1: Minor 5 / 20 -> 75      r2: Major 10 (+ Neutral 0) / 20 -> 50
       r3: Critical 25 + Minor 5 = 30 / 20 -> -50 -> clamped 0          mean 41.667
    B  r1: nothing -> 100          r2: Minor + Minor = 10 / 20 -> 50
       r3: Major 10 / 20 -> 50                                           mean 66.667
    C  r1: Major + Major = 20 / 20 -> 0   r2: Major + Minor = 15 / 20 -> 25
       r3: judged segment 1 only: Minor 5 / 12 -> 58.333                 mean 27.778

google_small.tsv (google-mqm): systems X, Y; segments 1, 2 (doc d1) and 3 (doc d2):

    X s1: r1 Minor Fluency/Punctuation 0.1 + Major 5 = 5.1, r2 No-error 0  -> 2.55
    X s2: r1 Non-translation! 25                                         -> 25
    X s3: r2 Neutral 0 + Minor 1 = 1, r3 Major "Source issue" 5          -> 3
    X = (2.55 + 25 + 3) / 3 = 10.1833 (source errors zeroed: s3 = 0.5, X = 9.35)
    Y s1: r1 Major Fluency/Punctuation 5, r3 Minor omission 1 -> 3; s2: 0;
    Y s3: r1, r2 No-error 0 (r3 only has an attention check: not a rater here) -> 0
    Y = 1.0
"""

import json
from pathlib import Path

import pytest

import mqm
from mqm.scores import prepare, segment_scores, unit_scores
from mqm.words import WordCounter

FIXTURES = Path(__file__).parent / "fixtures"
LIT = mqm.load_scheme("wmt23-literary")
GOOGLE = mqm.load_scheme("google-mqm")


@pytest.fixture(scope="module")
def literary():
    return mqm.load(FIXTURES / "literary_small.tsv", scheme=LIT)


@pytest.fixture(scope="module")
def google():
    return mqm.load(FIXTURES / "google_small.tsv", scheme=GOOGLE)


def test_literary_system_scores(literary):
    result = mqm.score(literary, LIT, words=WordCounter("whitespace"))
    scores = result["scores"]
    assert scores["A"]["score"] == pytest.approx((75 + 50 + 0) / 3)
    assert scores["B"]["score"] == pytest.approx((100 + 50 + 50) / 3)
    assert scores["C"]["score"] == pytest.approx((0 + 25 + 100 * (1 - 5 / 12)) / 3)
    assert scores["A"]["segments"] == 2 and scores["A"]["source_words"] == 20
    assert scores["A"]["errors"] == {"Neutral": 1, "Minor": 2, "Major": 1, "Critical": 1}
    assert scores["C"]["errors"] == {"Neutral": 0, "Minor": 2, "Major": 3, "Critical": 0}
    assert result["scheme"] == "wmt23-literary" and result["higher_is_better"] is True
    assert result["source_words_method"].startswith("whitespace")
    assert result["attention_checks"] == {"r1": {"found": 0, "missed": 1}, "r2": {"found": 1, "missed": 0}}


def test_literary_by_rater_uses_the_words_each_rater_judged(literary):
    by_rater = mqm.score(literary, LIT, by="rater")["scores"]
    assert by_rater["A"]["r3"]["score"] == 0.0  # clamped
    assert by_rater["C"]["r3"] == {"score": pytest.approx(100 * (1 - 5 / 12)), "segments": 1,
                                   "source_words": 12,
                                   "errors": {"Neutral": 0, "Minor": 1, "Major": 0, "Critical": 0}}
    assert by_rater["B"]["r1"]["score"] == 100.0


def test_literary_by_doc(literary):
    by_doc = mqm.score(literary, LIT, by="doc")["scores"]
    assert by_doc["B"]["d1"]["score"] == pytest.approx(200 / 3)
    assert set(by_doc) == {"A", "B", "C"} and set(by_doc["A"]) == {"d1"}


def test_per_word_score_depends_on_word_count_method(literary):
    # chars mode counts Latin text per whitespace token too: same 20 words here...
    assert mqm.score(literary, LIT, words=WordCounter("chars"))["scores"]["B"]["source_words"] == 20
    # ...while scoring the same errors against a Chinese count changes the score.
    seg = mqm.Segment("S", "d", "1", "1", "欧盟峰会为难民政策争论", "EU summit debates refugee policy")
    data = mqm.MQMData(segments={seg.key: seg})
    data.errors.append(mqm.Error(system="S", doc="d", doc_seg_id="1", seg_id="1", rater="r1", start=0, end=2,
                                 text="EU", category="Accuracy", subcategory="Mistranslation", severity="Minor"))
    jieba = mqm.score(data, LIT, words=WordCounter("jieba"))["scores"]["S"]  # 欧盟/峰会/为/难民/政策/争论
    chars = mqm.score(data, LIT, words=WordCounter("chars"))["scores"]["S"]  # 11 characters
    assert (jieba["source_words"], chars["source_words"]) == (6, 11)
    assert jieba["score"] == pytest.approx(100 * (1 - 5 / 6))
    assert chars["score"] == pytest.approx(100 * (1 - 5 / 11))


def test_google_system_scores(google):
    result = mqm.score(google, GOOGLE)
    scores = result["scores"]
    assert scores["X"]["score"] == pytest.approx((2.55 + 25 + 3) / 3)
    assert scores["Y"]["score"] == pytest.approx(1.0)
    assert scores["X"]["segments"] == 3 and scores["Y"]["segments"] == 3
    assert scores["X"]["errors"] == {"Major": 3, "Minor": 2, "Neutral": 1}
    assert result["higher_is_better"] is False


def test_google_zeroed_source_errors(google):
    zeroed = mqm.load_scheme("google-mqm", zero_source_errors=True)
    assert mqm.score(google, zeroed)["scores"]["X"]["score"] == pytest.approx((2.55 + 25 + 0.5) / 3)


def test_google_by_rater_and_doc(google):
    by_rater = mqm.score(google, GOOGLE, by="rater")["scores"]
    assert by_rater["X"]["r1"]["score"] == pytest.approx((5.1 + 25) / 2)
    assert by_rater["X"]["r2"]["score"] == pytest.approx((0 + 1) / 2)
    assert by_rater["X"]["r3"]["score"] == pytest.approx(5)
    assert by_rater["Y"]["r1"]["score"] == pytest.approx((5 + 0) / 2)
    assert "r3" in by_rater["Y"] and by_rater["Y"]["r3"]["segments"] == 1  # r3's HOTW row is not a rating
    by_doc = mqm.score(google, GOOGLE, by="doc")["scores"]
    assert by_doc["X"]["d1"]["score"] == pytest.approx((2.55 + 25) / 2)
    assert by_doc["X"]["d2"]["score"] == pytest.approx(3)
    assert by_doc["Y"]["d1"]["score"] == pytest.approx(1.5)


def test_segment_and_unit_scores(google):
    p = prepare(google, GOOGLE)
    seg = segment_scores(p)
    assert seg[("X", "d1", "1", "1")] == pytest.approx(2.55)
    assert seg[("X", "d1", "2", "2")] == 25
    assert seg[("Y", "d2", "1", "3")] == 0
    units = unit_scores(p, "segment")
    assert set(units["X"]) == set(units["Y"]) == {("d1", "1", "1"), ("d1", "2", "2"), ("d2", "1", "3")}
    assert unit_scores(p, "doc")["X"] == {"d1": pytest.approx(13.775), "d2": pytest.approx(3)}


def test_unknown_severity_in_json_input(tmp_path):
    segs = [{"system": "S", "doc": "d", "doc_seg_id": "1", "global_seg_id": "1", "source": "a", "target": "b",
             "errors": [{"rater": "r1", "start": 0, "end": 1, "category": "Other", "severity": "Critical"}]}]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(segs), encoding="utf-8")
    assert mqm.load(path, scheme=LIT).errors[0].severity == "Critical"
    with pytest.raises(mqm.MQMInputError, match="unknown severity 'Critical' for scheme google-mqm"):
        mqm.load(path, scheme=GOOGLE)
