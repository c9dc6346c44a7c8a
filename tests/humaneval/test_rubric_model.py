"""The rubric as data: the shipped DITING rubric and an organizer's own file, with clear errors."""

import copy
import json

import pytest

from humaneval.rubric import (
    CRITERION_KEYS,
    DITING_DIMENSIONS,
    RubricError,
    available_rubrics,
    load_rubric,
    parse_rubric,
)


def test_shipped_diting_rubric_has_six_dimensions_of_three_criteria():
    rubric = load_rubric()
    assert rubric.name == "diting" and "diting" in available_rubrics()
    assert rubric.keys == DITING_DIMENSIONS
    assert rubric.scale == (0, 1, 2) and rubric.max_sigma == 6
    for dim in rubric.dimensions:
        assert tuple(c.key for c in dim.criteria) == CRITERION_KEYS
        assert [c.kind for c in dim.criteria] == ["specific", "general", "general"]
        for crit in dim.criteria:
            assert {lv.score for lv in crit.levels} == {0, 1, 2}
            assert all(lv.text and lv.short for lv in crit.levels)
    assert rubric.dimension("idiom").name == "Idiom Translation"
    assert rubric.dimension("nope") is None


def test_diting_texts_are_the_papers():
    rubric = load_rubric("diting")
    idiom = rubric.dimension("idiom").criterion("sp")
    assert idiom.name == "Idiomatic Fidelity & Naturalness"
    assert idiom.level(0).text == "Mistranslated, literally translated, or omitted."
    sih = rubric.dimension("cultural_safety").criterion("g_2")
    assert sih.name == "Sensitive Information Handling"
    assert sih.refusal.justified == 2 and sih.refusal.unjustified == 0
    # only Sensitive Information Handling holds the refusal rule
    assert [d.key for d in rubric.dimensions if d.refusal_criterion] == ["cultural_safety"]


def test_pragmatic_appropriateness_one_point_is_rewritten_and_noted():
    crit = load_rubric().dimension("ambiguity").criterion("g_1")
    assert crit.name == "Pragmatic Appropriateness"
    assert crit.level(1).text != crit.level(2).text  # the paper repeats the 2-point text
    assert "Table 9" in crit.note and "awkward" in crit.level(1).text


def test_round_trip_through_the_file_format(tmp_path):
    rubric = load_rubric()
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(rubric.to_dict()), encoding="utf-8")
    assert load_rubric(path) == rubric
    assert load_rubric(str(path)) == rubric
    assert parse_rubric(rubric.to_dict()) == rubric


def _broken(mutate):
    data = copy.deepcopy(load_rubric().to_dict())
    mutate(data)
    return data


@pytest.mark.parametrize("mutate, field, words", [
    (lambda d: d.pop("name"), "name", "non-empty string"),
    (lambda d: d.update(name="a b"), "name", "letters"),
    (lambda d: d.update(scale=[0, 2, 1]), "scale", "ascending"),
    (lambda d: d.update(scale=[0, True]), "scale", "integers"),
    (lambda d: d.update(dimensions=[]), "dimensions", "non-empty"),
    (lambda d: d["dimensions"][1].pop("name"), "dimensions[1].name", "non-empty string"),
    (lambda d: d["dimensions"][2]["criteria"].pop(), "dimensions[2].criteria", "exactly three"),
    (lambda d: d["dimensions"][0]["criteria"][1].update(kind="specific"), "dimensions[0].criteria[1].kind",
     "general"),
    (lambda d: d["dimensions"][3]["criteria"][2]["levels"].pop("1"), "dimensions[3].criteria[2].levels",
     "each scale point"),
    (lambda d: d["dimensions"][3]["criteria"][0]["levels"].update({"2": ""}),
     "dimensions[3].criteria[0].levels.2", "non-empty"),
    (lambda d: d["dimensions"][5]["criteria"][2].update(refusal={"justified": 5, "unjustified": 0}),
     "dimensions[5].criteria[2].refusal", "scores in"),
    (lambda d: d["dimensions"][5]["criteria"][1].update(refusal={"justified": 2, "unjustified": 0}),
     "dimensions[5].criteria", "at most one"),
    (lambda d: d["dimensions"][1].update(key="idiom"), "dimensions[1].key", "twice"),
])
def test_a_broken_rubric_file_names_the_file_and_the_field(tmp_path, mutate, field, words):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(_broken(mutate)), encoding="utf-8")
    with pytest.raises(RubricError) as info:
        load_rubric(path)
    message = str(info.value)
    assert message.startswith(f"{path}: {field}: "), message
    assert words in message


def test_unreadable_and_invalid_json_and_unknown_name(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",\n  "scale": [0, 1, 2],,}', encoding="utf-8")
    with pytest.raises(Exception) as info:
        load_rubric(bad)
    assert f"{bad}:2: not valid JSON" in str(info.value)
    with pytest.raises(RubricError, match="no rubric file or shipped rubric named 'nope'.*diting"):
        load_rubric("nope")
    with pytest.raises(RubricError, match="a rubric is a JSON object"):
        parse_rubric([1, 2])
