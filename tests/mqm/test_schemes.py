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


def test_google_weights():
    scheme = load_scheme("google-mqm")
    assert not scheme.higher_is_better and scheme.scoring == "segment_sum"
    assert scheme.weight("Accuracy/Mistranslation", "Major") == 5
    assert scheme.weight("Style/Awkward", "Minor") == 1
    assert scheme.weight("Fluency/Punctuation", "Minor") == 0.1
    assert scheme.weight("Fluency/Punctuation", "Major") == 5  # only Minor punctuation is discounted
    assert scheme.weight("Non-translation", "Major") == 25
    assert scheme.weight("Non-translation!", "Minor") == 25  # Anthea writes "Non-translation!"
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
