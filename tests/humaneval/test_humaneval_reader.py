"""Reader-study statistics on a small hand-made export, every figure computed by hand.

The fixture (reader_export.jsonl): study "lait-demo", documents d1 (HT vs gpt4) and
d2 (HT vs deepl), version 1 the human translation (kind "reference"), both read by
reader1 and reader2. Chunks: d1 has two, d2 one, each compared by both readers.
"""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from humaneval import HumanEvalInputError, load_export, parse_export, reader_results, study_results
from humaneval.reader import highlighted_words

FIXTURE = Path(__file__).with_name("reader_export.jsonl")


@pytest.fixture(scope="module")
def res():
    results = reader_results(load_export(FIXTURE))
    assert list(results["studies"]) == ["lait-demo"]
    json.dumps(results)  # plain JSON all the way down
    return results["studies"]["lait-demo"]


def test_counts(res):
    assert (res["documents"], res["readers"]) == (2, 2)
    assert res["records"] == {"excerpt": 4, "chunk": 6, "post": 2}
    assert res["versions"]["2"] == {"labels": ["gpt4", "deepl"], "kinds": ["system"]}


def test_excerpt_preference(res):
    # continue_choice: d1 r1 "1" clearly, d1 r2 "1" slightly, d2 r1 "2" slightly, d2 r2 "1" clearly.
    ex = res["excerpt_preference"]
    assert (ex["n"], ex["counts"]) == (4, {"1": 3, "2": 1})
    assert ex["strength"] == {"1": {"clearly": 2, "slightly": 1, "unspecified": 0},
                              "2": {"clearly": 0, "slightly": 1, "unspecified": 0}}
    assert ex["test"]["p_value"] == pytest.approx(10 / 16)  # 3 of 4: 2 * (1 + 4) / 16
    assert (ex["by_kind"]["reference"], ex["by_kind"]["system"]) == (3, 1)


def test_chunk_preference(res):
    # Preferences 1 1 2 1 1 2 (d1c0 r1 r2, d1c1 r1 r2, d2c0 r1 r2); r1's d1c1 "2" is "similar".
    ch = res["chunk_preference"]
    assert (ch["n"], ch["counts"]) == (6, {"1": 4, "2": 2})
    assert ch["test"]["p_value"] == pytest.approx(44 / 64)  # 4 of 6: (1+6+15+15+6+1)/64
    assert ch["strength"]["1"] == {"significantly_better": 2, "better": 2, "similar": 0, "unspecified": 0}
    assert ch["strength"]["2"] == {"significantly_better": 1, "better": 0, "similar": 1, "unspecified": 0}
    clear = ch["excluding_similar"]
    assert (clear["n"], clear["counts"]) == (5, {"1": 4, "2": 1})
    assert clear["test"]["p_value"] == pytest.approx(12 / 32)  # 4 of 5: 2 * (5 + 1) / 32


def test_ratings(res):
    acc = res["ratings"]["acceptability"]
    # Version 1: 5 4 3 5; version 2: 3 4 4 2.
    assert acc["1"] == {"n": 4, "mean": 4.25, "median": 4.5,
                        "distribution": {"1": 0, "2": 0, "3": 1, "4": 1, "5": 2}}
    assert acc["2"] == {"n": 4, "mean": 3.25, "median": 3.5,
                        "distribution": {"1": 0, "2": 1, "3": 1, "4": 2, "5": 0}}
    assert acc["by_kind"]["reference"] == acc["1"] and acc["by_kind"]["system"] == acc["2"]
    assert res["ratings"]["continue"]["2"]["mean"] == pytest.approx(2.5)  # 2 3 4 1


def test_choices_and_reading_times(res):
    assert res["choices"]["dialogue"] == {"1": 2, "2": 1, "none": 1}
    assert res["choices"]["word_choice"] == {"1": 2, "2": 1, "none": 1}
    rt = res["reading_ms"]
    assert rt["1"] == {"n": 4, "mean": 267500, "median": 275000}
    assert rt["2"]["n"] == 3 and rt["2"]["median"] == 350000  # reader2's d2 time is null
    # First read: 300000 (r1 d1 v1), 350000 (r2 d1 v2), 400000 (r1 d2 v2), 320000 (r2 d2 v1).
    assert rt["by_position"]["first"]["mean"] == pytest.approx(342500)
    assert rt["by_position"]["second"]["n"] == 3


def test_agreement_binary(res):
    ag = res["agreement"]
    # Excerpt preference: d1 (1, 1), d2 (2, 1). pa = 1/2; pi = (3/4, 1/4); pe = 2 * 3/16 = 3/8;
    # AC1 = (1/2 - 3/8) / (5/8) = 1/5.
    assert ag["excerpt_preference"]["value"] == pytest.approx(0.2, abs=1e-12)
    assert ag["excerpt_preference"]["items"] == 2
    # Which version is AI: d1 (2, 2), d2 (1, 2): the same shape, 1/5.
    assert ag["mt_guess"]["value"] == pytest.approx(0.2, abs=1e-12)
    # Human/machine per version: (d1,1) h h, (d1,2) m h, (d2,1) m h, (d2,2) h m. pa = 1/4;
    # pi_human = (1 + 3 * 1/2) / 4 = 5/8; pe = 2 * 5/8 * 3/8 = 15/32; AC1 = (8 - 15) / 17 = -7/17.
    assert ag["origin_guess"]["value"] == pytest.approx(-7 / 17, abs=1e-12)
    # Chunks: (d1,0) (1, 1), (d1,1) (2, 1), (d2,0) (1, 2). pa = 1/3; pi = (2/3, 1/3); pe = 4/9;
    # AC1 = (3/9 - 4/9) / (5/9) = -1/5.
    assert ag["chunk_preference"]["value"] == pytest.approx(-0.2, abs=1e-12)
    # Without (d1,1), where reader1 said "similar": (1, 1), (1, 2): pa 1/2, pe 3/8, AC1 1/5.
    assert ag["chunk_preference_excluding_similar"]["value"] == pytest.approx(0.2, abs=1e-12)
    assert ag["chunk_preference_excluding_similar"]["items"] == 2
    # Both "significantly better" only on (d2,0): (1, 2): pa 0, pe 1/2, AC1 -1.
    assert ag["chunk_preference_both_significantly_better"]["value"] == pytest.approx(-1.0, abs=1e-12)


def test_agreement_ratings_ac2(res):
    # Acceptability per (document, version): (5, 4) (3, 4) (3, 5) (4, 2), categories 1..5,
    # quadratic weights w = 1 - (d/4)^2: 15/16 for d = 1, 3/4 for d = 2.
    # pa = (15/16 + 15/16 + 3/4 + 3/4) / 4 = 27/32.
    # pi = (0, 1/8, 1/4, 3/8, 1/4) for 1..5; sum pi(1 - pi) = 23/32.
    # sum(w) = 5 + 8 * 15/16 + 6 * 3/4 + 4 * 7/16 = 75/4; pe = 75/4 / 20 * 23/32 = 345/512.
    # AC2 = (432/512 - 345/512) / (167/512) = 87/167.
    ac2 = res["agreement"]["ratings"]["acceptability"]
    assert ac2["value"] == pytest.approx(float(Fraction(87, 167)), abs=1e-12)
    assert (ac2["coefficient"], ac2["weights"], ac2["categories"]) == ("ac2", "quadratic", [1, 2, 3, 4, 5])
    assert res["agreement"]["ratings_weights"] == "quadratic"
    linear = study_results(load_export(FIXTURE), weights="linear")["agreement"]["ratings"]["acceptability"]
    assert linear["weights"] == "linear" and linear["value"] != ac2["value"]


def test_span_overlap(res):
    # d1c0: reader1's 4 spans, 2 meet reader2's (same label); reader2's 2 spans, 1 meets (same label).
    # d1c1: reader1's 1 span meets (same); reader2's 2 spans, 1 meets (same), "did catch" alone on v2.
    # d2c0: reader1's "smiled" meets "She smiled" (same), "was smiling" poor meets good (any only);
    #       reader2's "She smiled" (same), "was smiling" (any only), "told" alone.
    so = res["span_overlap"]
    assert (so["spans"], so["reader_pairs"]) == (14, 6)
    assert so["any_label"] == pytest.approx(9 / 14)
    assert so["same_label"] == pytest.approx(7 / 14)
    assert so["by_label"]["good"] == {"spans": 6, "same_label": 2, "share": pytest.approx(2 / 6)}
    assert so["by_label"]["poor"] == {"spans": 8, "same_label": 5, "share": pytest.approx(5 / 8)}


def test_highlight_density(res):
    # Words read: version 1 2 * (8 + 6 + 5) = 38, version 2 2 * (8 + 7 + 6) = 42.
    # Good v1: "walked slowly" 2 + "old man" 2 + "smiled" 1 + "She smiled" 2 = 7; poor v1: 2 + 2 = 4.
    # Good v2: "ocean" 1 (the word "ocean." counts) + "was smiling" 2 = 3; poor v2: "went slow" and
    # "slow toward" overlap, 3 words once, + 3 + 2 + 2 + 1 = 11.
    hl = res["highlights"]
    assert hl["1"] == {"words": 38, "good_words": 7, "poor_words": 4, "good_per_1000": pytest.approx(7000 / 38),
                       "poor_per_1000": pytest.approx(4000 / 38)}
    assert hl["2"] == {"words": 42, "good_words": 3, "poor_words": 11, "good_per_1000": pytest.approx(3000 / 42),
                       "poor_per_1000": pytest.approx(11000 / 42)}
    assert hl["by_kind"]["system"] == hl["2"]


def test_highlight_balance(res):
    # Net (good - poor) v1/v2 and preference: d1c0 r1 +2/-2 "1" yes; r2 +2/-3 "1" yes;
    # d1c1 r1 -2/0 "2" yes; r2 -2/-2 tie; d2c0 r1 +1/-2 "1" yes; r2 +2/+1 "2" no.
    hb = res["highlight_balance"]
    assert (hb["n"], hb["agree"], hb["ties"]) == (5, 4, 1)
    assert hb["test"]["p_value"] == pytest.approx(12 / 32)


def test_machine_detection(res):
    # ai_version 2, 2, 1, 2; the machine version is 2 in both documents.
    md = res["machine_detection"]
    assert (md["n"], md["correct"]) == (4, 3)
    assert md["test"]["p_value"] == pytest.approx(10 / 16)
    assert md["by_confidence"]["3"] == {"n": 1, "correct": 0}
    assert md["by_confidence"]["4"] == {"n": 1, "correct": 1}
    # Per-version guesses right: d1 r1 2/2, d1 r2 1/2, d2 r1 0/2, d2 r2 2/2 = 5/8.
    og = res["origin_guess"]
    assert (og["n"], og["correct"]) == (8, 5)
    assert og["test"]["p_value"] == pytest.approx(2 * (1 + 8 + 28 + 56) / 256)


def test_highlighted_words_counts_partial_and_overlapping_spans():
    chunk = load_export(FIXTURE).chunks[0]
    assert highlighted_words(chunk) == {"1": {"words": 8, "good": 2, "poor": 0},
                                        "2": {"words": 8, "good": 1, "poor": 3}}


def _line(**changes) -> str:
    base = json.loads(FIXTURE.read_text(encoding="utf-8").splitlines()[4])  # d1 chunk 0, reader1
    base.update(changes)
    return json.dumps({k: v for k, v in base.items() if v is not ...})


def test_kind_decides_the_machine_version():
    # Version 1 is the system here: detection and by-kind counts follow "kind", not the key.
    swapped = {"1": {"label": "gpt4", "kind": "system"}, "2": {"label": "HT", "kind": "reference"}}
    lines = [json.dumps({"record": "excerpt", "study": "s", "document": "d", "reader": r, "versions": swapped,
                         "ai_version": "1", "continue_choice": {"version": "2", "strength": None}})
             for r in ("a", "b")]
    res = study_results(parse_export(lines))
    assert res["machine_detection"]["correct"] == 2
    assert res["excerpt_preference"]["by_kind"]["reference"] == 2
    # Two systems: no machine version, nothing counted by kind.
    both = {"1": {"label": "x", "kind": "system"}, "2": {"label": "y", "kind": "system"}}
    lines = [json.dumps({"record": "excerpt", "study": "s", "document": "d", "reader": "a", "versions": both,
                         "ai_version": "1"})]
    res = study_results(parse_export(lines))
    assert res["machine_detection"]["n"] == 0 and res["excerpt_preference"]["by_kind"]["n"] == 0
    assert res["agreement"]["mt_guess"]["value"] is None  # one reader: nothing to agree on
    assert "two or more" in res["agreement"]["mt_guess"]["reason"]


def test_several_studies():
    lines = [json.dumps({"record": "post", "study": s, "reader": "a", "answers": {}}) for s in ("s1", "s2")]
    assert list(reader_results(parse_export(lines))["studies"]) == ["s1", "s2"]


@pytest.mark.parametrize("line, message", [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    (json.dumps({"record": "vote"}), "'record' must be one of excerpt, chunk, post"),
    (_line(study=...), "missing field 'study'"),
    (_line(chunk=-1), "'chunk' must be an integer"),
    (_line(preference="3"), "'preference' must be one of 1, 2"),
    (_line(difficulty="much"), "'difficulty' must be one of"),
    (_line(versions={"1": {"label": "HT", "kind": "human"}, "2": {"label": "x", "kind": "system"}}),
     "versions.1.'kind' must be one of reference, system"),
    (_line(texts={"1": "a", "2": "b", "3": "c"}), "versions are \"1\" and \"2\""),
    (_line(highlights=[{"version": "1", "start": 5, "end": 500, "label": "good"}]), "is not a span"),
    (_line(highlights=[{"version": "1", "start": 0, "end": 3, "label": "good", "text": "Thx"}]),
     "is not the text at 0:3"),
    (_line(highlights=[{"version": "1", "start": 0, "end": 3, "label": "fine"}]), "'label' must be one of"),
    (_line(displayed=["1", "1"]), "'displayed' must list"),
    (json.dumps({"record": "excerpt", "study": "s", "document": "d", "reader": "r",
                 "versions": {"1": {"label": "a", "kind": "reference"}, "2": {"label": "b", "kind": "system"}},
                 "ratings": {"1": {"acceptability": 6}}}), "ratings.1.'acceptability' must be an integer from 1 to 5"),
])
def test_bad_records_name_the_line(line, message):
    with pytest.raises(HumanEvalInputError, match=message) as info:
        parse_export(["", line], "export.jsonl")
    assert str(info.value).startswith("export.jsonl:2: ")


def test_inconsistent_records_are_refused():
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    with pytest.raises(HumanEvalInputError, match="already came at line 5") as info:
        parse_export([*lines, lines[4]], "x.jsonl")
    assert info.value.line == len(lines) + 1
    other_text = _line(reader="reader3", texts={"1": "Different.", "2": "Text."}, highlights=[])
    with pytest.raises(HumanEvalInputError, match="other texts than at line 5"):
        parse_export([*lines, other_text])
    other_versions = _line(reader="reader3", versions={"1": {"label": "HT", "kind": "reference"},
                                                       "2": {"label": "other", "kind": "system"}})
    with pytest.raises(HumanEvalInputError, match="names other versions than at line 1"):
        parse_export([*lines, other_versions])
    with pytest.raises(HumanEvalInputError, match="no records"):
        parse_export(["", "  "])


def test_line_separators_inside_strings(tmp_path):
    # U+2028 and U+0085 may stand unescaped inside JSON strings; only "\n" ends a record.
    path = tmp_path / "export.jsonl"
    answers = {"q1": "one\u2028two\u0085three"}
    path.write_text(json.dumps({"record": "post", "study": "s", "reader": "a", "answers": answers},
                               ensure_ascii=False) + "\r\n", encoding="utf-8")
    assert load_export(path).posts[0].answers == answers


def test_bad_files(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"record": "post", "study": "s", "reader": "a"}\n{"x": "\xff"}\n')
    with pytest.raises(HumanEvalInputError, match="not valid UTF-8") as info:
        load_export(bad)
    assert info.value.line == 2
    with pytest.raises(HumanEvalInputError, match="cannot read"):
        load_export(tmp_path / "missing.jsonl")
