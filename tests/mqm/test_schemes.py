"""Typologies and severity schemes are data: packaged JSON, loaded and applied."""

import json

import pytest

from mqm.schemes import SchemeError, available_schemes, load_scheme, scheme_from_dict


def test_packaged_schemes_and_default():
    assert {"wmt23-literary", "google-mqm"} <= set(available_schemes())
    assert load_scheme().name == "wmt23-literary"


def test_literary_typology_is_table_6():
    scheme = load_scheme("wmt23-literary")
    cats = {c.name: [s.name for s in c.subcategories] for c in scheme.categories}
    assert cats == {
        "Accuracy": ["Addition", "Omission", "Mistranslation", "Misnomer", "Untranslated"],
        "Fluency": ["Punctuation", "Spelling", "Grammar", "Inconsistency"],
        "Style": ["Awkwardness", "Inconsistent", "Unidiomatic"],
        "Terminology": ["Mistranslation", "Inconsistent"],
        "Locale convention": ["Location format", "Number format"],
        "Others": [],
    }
    # Every subcategory carries the paper's definition and example, shown to annotators.
    for cat in scheme.categories:
        assert cat.definition
        for sub in cat.subcategories:
            assert sub.definition and sub.example, (cat.name, sub.name)
    term = next(c for c in scheme.categories if c.name == "Terminology")
    assert "修士" in term.subcategories[0].example and "cultivator" in term.subcategories[0].example
    others = next(c for c in scheme.categories if c.name == "Others")
    assert "source errors" in others.example


def test_literary_severity_penalties():
    scheme = load_scheme("wmt23-literary")
    assert [(s.name, s.weight) for s in scheme.severities] == [
        ("Neutral", 0), ("Minor", 5), ("Major", 10), ("Critical", 25)]
    assert scheme.higher_is_better and scheme.scoring == "per_source_word"
    # No special rules: Fluency/Punctuation Minor is an ordinary Minor here.
    assert scheme.weight("Fluency/Punctuation", "Minor") == 5
    assert scheme.weight("Accuracy/Omission", "critical") == 25  # case-insensitive


# The published weighting table (Freitag et al. 2021, Table 2), as mt-metrics-eval's converters/score_mqm.py
# encodes it by default ("Major:5 Minor:1 Neutral:0 Major/Non-translation!:25 Minor/Fluency/Punctuation:0.1",
# the most specific severity/category/subcategory match wins, case ignored, anything else 0).
SCORE_MQM_DEFAULTS = [
    ("Major", "Accuracy/Mistranslation", 5), ("Major", "Non-translation!", 25), ("Minor", "Non-translation!", 1),
    ("Neutral", "Non-translation!", 0), ("Minor", "Fluency/Punctuation", 0.1), ("Major", "Fluency/Punctuation", 5),
    ("Neutral", "Fluency/Punctuation", 0), ("minor", "fluency/punctuation", 0.1), ("Minor", "Other", 1),
    ("Major", "Source issue", 5), ("Minor", "Style/Awkward", 1),
]


@pytest.mark.parametrize("severity, category, weight", SCORE_MQM_DEFAULTS)
def test_google_weights_equal_mt_metrics_eval_score_mqm(severity, category, weight):
    assert load_scheme("google-mqm").weight(category, severity) == weight


def test_google_weights():
    scheme = load_scheme("google-mqm")
    assert not scheme.higher_is_better and scheme.scoring == "segment_sum"
    assert scheme.weight("Accuracy/Mistranslation", "Major") == 5
    assert scheme.weight("Style/Awkward", "Minor") == 1
    assert scheme.weight("Fluency/Punctuation", "Minor") == 0.1
    assert scheme.weight("Fluency/Punctuation", "Major") == 5  # only Minor punctuation is discounted
    assert scheme.weight("Non-translation", "Major") == 25
    assert scheme.weight("Non-translation!", "Major") == 25  # Anthea writes "Non-translation!"
    assert scheme.weight("Non-translation!", "Minor") == 1   # 25 is Major's only (published table)
    assert scheme.weight("Non-translation", "Neutral") == 0
    assert scheme.weight("Style/Awkward", "Neutral") == 0
    assert scheme.weight("Source issue", "Major") == 5  # source errors weigh like any other error
    with pytest.raises(KeyError, match="Critical"):
        scheme.weight("Accuracy/Mistranslation", "Critical")


def test_zero_source_errors_and_zero_categories_options():
    zeroed = load_scheme("google-mqm", zero_source_errors=True)
    assert zeroed.weight("Source issue", "Major") == 0
    assert zeroed.weight("Source error", "Minor") == 0
    assert zeroed.weight("Accuracy/Mistranslation", "Major") == 5
    cr = load_scheme("google-mqm", zero_categories=["Accuracy/Creative Reinterpretation"])
    assert cr.weight("Accuracy/Creative Reinterpretation", "Major") == 0
    assert cr.weight("Source issue", "Major") == 5


def test_scheme_from_file_and_roundtrip_dict(tmp_path):
    d = load_scheme("google-mqm").to_dict()
    d["name"] = "custom"
    d["severities"].append({"name": "Critical", "weight": 10})
    path = tmp_path / "custom.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    custom = load_scheme(str(path))
    assert custom.name == "custom" and custom.weight("Accuracy/Addition", "Critical") == 10
    assert custom.weight("Fluency/Punctuation", "Minor") == 0.1  # rules survive the round trip


def test_bad_schemes_are_rejected(tmp_path):
    with pytest.raises(SchemeError, match="unknown scheme"):
        load_scheme("no-such-scheme")
    with pytest.raises(SchemeError, match="scoring"):
        scheme_from_dict({"name": "x", "scoring": "magic", "higher_is_better": True,
                          "severities": [{"name": "Major", "weight": 1}]})
    with pytest.raises(SchemeError, match="malformed"):
        scheme_from_dict({"name": "x", "scoring": "segment_sum", "higher_is_better": True,
                          "severities": [{"weight": 1}]})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(SchemeError, match="not valid JSON"):
        load_scheme(str(bad))


def test_sides_are_data_in_the_packaged_schemes():
    lit = load_scheme("wmt23-literary")
    # Omission is marked on the source words that were left out; Others (source errors...) on either side;
    # everything else on the translation.
    assert lit.sides_for("Accuracy", "Omission") == ("source",)
    assert lit.sides_for("Accuracy", "Mistranslation") == ("target",)
    assert lit.sides_for("Others") == ("target", "source")
    assert lit.sides_for("Accuracy") == ("target", "source")    # through Omission
    assert lit.sides_for("Fluency") == ("target",)
    assert lit.sides_for("accuracy", "OMISSION") == ("source",)  # names match like severities do
    assert lit.sides_for("Vibes") is None and lit.sides_for("Accuracy", "Vibes") is None
    assert lit.categories_for_side("source") == [("Accuracy", ["Omission"]), ("Others", [])]
    assert [c for c, _ in lit.categories_for_side("target")] == [
        "Accuracy", "Fluency", "Style", "Terminology", "Locale convention", "Others"]
    assert "Omission" not in dict(lit.categories_for_side("target"))["Accuracy"]
    # Google's data marks omissions and source issues on the source, everything else on the target
    # (see ../shared/data/google-mqm: <v> in the source column only for Accuracy/Omission and Source issue).
    google = load_scheme("google-mqm")
    assert google.categories_for_side("source") == [("Accuracy", ["Omission"]), ("Source error", [])]
    assert google.sides_for("Non-translation") == ("target",)
    assert google.sides_for("Fluency", "Punctuation") == ("target",)


def test_sides_default_to_target_and_subcategories_inherit():
    d = {"name": "x", "scoring": "segment_sum", "higher_is_better": False,
         "severities": [{"name": "Minor", "weight": 1}],
         "categories": [{"name": "Plain"},
                        {"name": "Both", "sides": ["source", "target"], "subcategories": [
                            {"name": "Inherits"}, {"name": "Own", "sides": ["source"]}]}]}
    scheme = scheme_from_dict(d)
    assert scheme.sides_for("Plain") == ("target",)
    assert scheme.sides_for("Both", "Inherits") == ("target", "source")   # in canonical order
    assert scheme.sides_for("Both", "Own") == ("source",)
    # the round trip through to_dict keeps them (written out explicitly)
    again = scheme_from_dict(scheme.to_dict())
    assert again.categories == scheme.categories
    assert scheme.to_dict()["categories"][0]["sides"] == ["target"]


@pytest.mark.parametrize("sides,message", [
    ([], "non-empty list"),
    ("target", "non-empty list"),
    (["middle"], "unknown side 'middle'"),
    (["target", "target"], "listed twice"),
    ([1], "non-empty list"),
])
def test_bad_sides_are_refused_with_the_category_named(sides, message):
    d = {"name": "x", "scoring": "segment_sum", "higher_is_better": False,
         "severities": [{"name": "Minor", "weight": 1}],
         "categories": [{"name": "Accuracy", "subcategories": [{"name": "Omission", "sides": sides}]}]}
    with pytest.raises(SchemeError, match=message) as info:
        scheme_from_dict(d)
    assert "Accuracy/Omission" in str(info.value)


def test_severity_short_labels():
    assert [s.short for s in load_scheme("wmt23-literary").severities] == ["N", "Mi", "Ma", "C"]
    assert [s.short for s in load_scheme("google-mqm").severities] == ["Ma", "Mi", "N"]
    d = {"name": "x", "scoring": "segment_sum", "higher_is_better": False,
         "severities": [{"name": "Low", "weight": 1}, {"name": "High", "weight": 2}, {"name": "huge", "weight": 3}]}
    assert [s.short for s in scheme_from_dict(d).severities] == ["L", "Hi", "Hu"]
    d["severities"][0]["short"] = "Hi"
    with pytest.raises(SchemeError, match="distinct"):
        scheme_from_dict(d)
