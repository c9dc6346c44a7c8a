"""phenomena.jsonl: every problem reported with its line number."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humaneval.rubric import (
    DITING_DIMENSIONS,
    PhenomenaError,
    dump_phenomena,
    load_phenomena,
    parse_phenomena,
)

DOCS = {"ch01": 4, "ch02": 2}


def line(**fields):
    base = {"document": "ch01", "segment": 1, "dimension": "idiom", "requirement": "心细如发 is an idiom"}
    base.update(fields)
    return json.dumps({k: v for k, v in base.items() if v is not ...}, ensure_ascii=False)


def errors_of(*lines):
    with pytest.raises(PhenomenaError) as info:
        parse_phenomena("\n".join(lines) + "\n", DOCS, DITING_DIMENSIONS, "set/phenomena.jsonl")
    return info.value


def test_a_good_file_round_trips(tmp_path):
    text = "\n".join([line(), "", line(document="ch02", segment=2, dimension="tense", requirement="past",
                                        context="他昨天来了。")]) + "\n"
    found = parse_phenomena(text, DOCS, DITING_DIMENSIONS)
    assert [(p.document, p.segment, p.dimension, p.line) for p in found] == [("ch01", 1, "idiom", 1),
                                                                             ("ch02", 2, "tense", 3)]
    assert found[1].context == "他昨天来了。"
    path = tmp_path / "phenomena.jsonl"
    path.write_text(dump_phenomena(found), encoding="utf-8")
    assert [p.to_dict() for p in load_phenomena(path, DOCS, DITING_DIMENSIONS)] == [p.to_dict() for p in found]


def test_one_segment_may_carry_two_dimensions_not_one_twice():
    assert len(parse_phenomena(line() + "\n" + line(dimension="ambiguity"), DOCS, DITING_DIMENSIONS)) == 2
    err = errors_of(line(), line(requirement="again"))
    assert err.errors == [(2, "segment 1 of 'ch01' is already tagged 'idiom' on line 1")]


@pytest.mark.parametrize("bad, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "a line is one JSON object"),
    (line(dimension="poetry"), "unknown dimension 'poetry' (one of: idiom, ambiguity"),
    (line(document="ch09"), "unknown document 'ch09' (the test set has: ch01, ch02)"),
    (line(segment=5), "segment 5 is out of range: 'ch01' has segments 1-4"),
    (line(segment=0), "segment 0 is out of range"),
    (line(segment="3"), "segment must be a whole number"),
    (line(segment=True), "segment must be a whole number"),
    (line(segment=1.5), "segment must be a whole number"),
    (line(requirement=...), "missing field 'requirement'"),
    (line(document=...), "missing field 'document'"),
    (line(segment=...), "missing field 'segment'"),
    (line(dimension=...), "missing field 'dimension'"),
    (line(requirement="  "), "requirement must be non-empty text"),
    (line(context=3), "context must be text"),
    (line(requirment="typo"), "unknown field 'requirment'"),
    (line(requirement="x" * 5001), "longer than 5000"),
])
def test_each_problem_names_its_line(bad, message):
    err = errors_of(line(), bad)
    assert err.errors[0][0] == 2 and message in err.errors[0][1], err.errors
    assert str(err).startswith("set/phenomena.jsonl:2: ")
    assert err.line == 2


def test_all_problems_at_once_and_capped():
    err = errors_of(line(segment=9), line(), line(dimension="x"))
    assert [n for n, _ in err.errors] == [1, 3]
    many = errors_of(*[line(segment=100 + i) for i in range(60)])
    assert len(many.errors) == 50 and many.more == 10 and str(many).endswith("... and 10 more")


def test_empty_file_and_unicode_line_separator():
    with pytest.raises(PhenomenaError, match="no phenomena"):
        parse_phenomena("\n\n", DOCS, DITING_DIMENSIONS)
    # U+2028 inside a JSON string is not a line break
    [p] = parse_phenomena(line(requirement="a\u2028b"), DOCS, DITING_DIMENSIONS)
    assert p.requirement == "a\u2028b"


_json_values = st.recursive(st.none() | st.booleans() | st.integers(-5, 20) | st.floats(allow_nan=True) | st.text(max_size=8),
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                            max_leaves=6)
_lines = st.one_of(
    st.text(max_size=40),
    st.dictionaries(st.sampled_from(["document", "segment", "dimension", "requirement", "context", "x"]),
                    _json_values | st.sampled_from(["ch01", "ch02", "idiom", "tense", 1, 4, 2]), max_size=6)
    .map(lambda d: json.dumps(d, ensure_ascii=False)))


@settings(max_examples=300, deadline=None)
@given(st.lists(_lines, max_size=6))
def test_any_input_is_parsed_or_refused_with_line_numbers(lines):
    text = "\n".join(lines)
    try:
        found = parse_phenomena(text, DOCS, DITING_DIMENSIONS)
    except PhenomenaError as exc:
        assert exc.errors and all(line is None or 1 <= line <= max(1, len(text.split("\n")))
                                  for line, _ in exc.errors)
    else:
        assert all(p.document in DOCS and 1 <= p.segment <= DOCS[p.document] for p in found)
