"""The ESA answer record: what a page may send for one segment, and the typed record read back."""

from __future__ import annotations

import pytest
from enface.protocols.esa.responses import EsaSpan, SegmentAnswer, SpanRef, check_answer, segment_key
from enface.services import ServiceError
from hypothesis import given, settings
from hypothesis import strategies as st

TEXT = "Das ist ein Test."   # 17 code points


def test_a_full_answer_round_trips_through_json():
    data = {"score": 66, "spans": [{"start": 0, "end": 2, "severity": "minor"},
                                   {"start": "missing", "end": "missing", "severity": "major"},
                                   {"start": 8, "end": 10, "severity": "major", "provenance": "edited",
                                    "suggestion": {"start": 8, "end": 15, "severity": "minor"}}],
            "started_ms": 1_764_633_600_000, "ended_ms": 1_764_633_660_000}
    answer = check_answer(3, data, TEXT, read=True)
    assert answer.score == 66 and answer.seg == 3
    assert answer.spans[0] == EsaSpan(0, 2, "minor")
    assert answer.spans[1].missing and answer.spans[1].severity == "major"
    assert answer.spans[2].suggestion == SpanRef(8, 15, "minor")
    again = SegmentAnswer.from_data(3, answer.to_json())
    assert again == answer
    assert answer.to_json()["spans"][1]["start"] == "missing"


def test_deleted_suggestions_are_kept_but_do_not_count():
    data = {"score": 90, "spans": [{"start": 0, "end": 5, "severity": "major", "provenance": "deleted",
                                    "suggestion": {"start": 0, "end": 5, "severity": "major"}},
                                   {"start": 3, "end": 4, "severity": "minor"}]}
    answer = check_answer(0, data, TEXT, read=True)   # overlaps only a deleted one: fine
    assert [s.provenance for s in answer.errors] == ["human"]


@pytest.mark.parametrize("data, field", [
    ({"score": 101}, "score"), ({"score": True}, "score"), ({"score": "50"}, "score"),
    ({"spans": [{"start": 0, "end": 17, "severity": "minor"}]}, "spans"),        # past the end (inclusive)
    ({"spans": [{"start": 5, "end": 4, "severity": "minor"}]}, "spans"),
    ({"spans": [{"start": 0, "end": "missing", "severity": "minor"}]}, "spans"),
    ({"spans": [{"start": 0, "end": 1, "severity": "critical"}]}, "spans"),
    ({"spans": [{"start": 0, "end": 3, "severity": "minor"}, {"start": 3, "end": 5, "severity": "major"}]}, "spans"),
    ({"spans": [{"start": "missing", "end": "missing", "severity": "minor"}] * 2}, "spans"),
    ({"spans": [{"start": 0, "end": 1, "severity": "minor", "provenance": "kept"}]}, "spans"),
    ({"spans": [{"start": 0, "end": 1, "severity": "minor", "suggestion": {"start": 0, "end": 1,
                                                                            "severity": "minor"}}]}, "spans"),
    ({"spans": "0-3"}, "spans"), ({"started_ms": 5}, "started_ms"), ({"colour": 1}, "colour"),
])
def test_bad_answers_are_refused_naming_the_field(data, field):
    with pytest.raises(ServiceError) as err:
        check_answer(0, data, TEXT, read=True)
    assert err.value.status == 400 and err.value.details["field"] == field


def test_a_score_needs_the_segment_read_but_spans_do_not():
    check_answer(0, {"spans": [{"start": 0, "end": 2, "severity": "minor"}]}, TEXT, read=False)
    with pytest.raises(ServiceError) as err:
        check_answer(0, {"score": 40}, TEXT, read=False)
    assert err.value.status == 409 and err.value.code == "not_read"


def test_segment_keys():
    assert segment_key("2", 3) == 2
    for key in ("3", "-1", "²", "", "1.0"):
        with pytest.raises(ServiceError):
            segment_key(key, 3)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 40) | st.floats(allow_nan=True) |
                    st.sampled_from(["missing", "minor", "major", "human", "kept", "edited", "deleted", ""]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["start", "end", "severity", "provenance", "suggestion", "score", "spans",
                                         "started_ms", "ended_ms", "x"]), inner, max_size=5), max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(data=JSON, read=st.booleans())
def test_any_json_is_an_answer_or_a_clear_refusal(data, read):
    try:
        answer = check_answer(0, data, TEXT, read=read)
    except ServiceError as exc:
        assert exc.status in (400, 409) and exc.message
        return
    again = SegmentAnswer.from_data(0, answer.to_json())
    assert again == answer
    for span in answer.spans:
        assert span.missing or 0 <= span.start <= span.end < len(TEXT)
