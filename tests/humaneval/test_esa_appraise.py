"""The Appraise score-export reader and writer: round trips, and what does not survive one."""

import csv
import dataclasses
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from humaneval.errors import HumanEvalInputError
from humaneval.esa import ErrorSpan, ScoreRow, format_scores, parse_scores, parse_spans, write_scores

LINES = [
    'a1,wmt23.X,7,TGT,eng,deu,51,doc#X,False,"[{""start_i"":3,""end_i"":3,""severity"":""minor"",'
    '""error_type"":null},{""start_i"":""missing"",""end_i"":""missing"",""severity"":""major""}]",'
    '1717331262.035,1717331440.5',
    'a1,wmt23.X,8,BAD,eng,deu,0,doc#X#bad1,True,[],1717331440.5,1717331441.0',
    'a2,wmt23.Y,9,TGT,eng,deu,99,"doc,with comma",False,"[{""start_i"":0,""end_i"":9,""severity"":""major"",'
    '""error_type"":[""Accuracy"",""Omission""],""note"":""ü""}]",1.0,2.25',
]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_round_trip_is_byte_identical(newline):
    text = newline.join(LINES) + newline
    scores = parse_scores(text)
    assert scores.newline == newline
    assert format_scores(scores.rows, scores.newline) == text


def test_what_is_read():
    first, bad, third = parse_scores("\n".join(LINES) + "\n").rows
    assert (first.annotator, first.system, first.item, first.item_type, first.score) == ("a1", "wmt23.X", "7",
                                                                                         "TGT", 51.0)
    assert first.spans == (ErrorSpan(3, 3, "minor"), ErrorSpan(None, None, "major", has_error_type=False))
    assert first.spans[0].length == 1 and first.spans[1].missing and first.spans[1].length == 0
    assert first.seconds == pytest.approx(178.465)
    assert first.line == 1 and bad.line == 2 and third.line == 3
    assert bad.is_bad and bad.document_flag is True and bad.spans == ()
    assert third.document == "doc,with comma"
    assert third.spans[0].error_type == ["Accuracy", "Omission"]
    assert third.spans[0].extra == (("note", "ü"),)


def test_what_does_not_survive_a_round_trip():
    # A decimal-point integer score comes back as an integer, spaced JSON comes back compact, a time with a
    # trailing zero comes back as Python's shortest repr: the values survive, not the spelling.
    text = 'a,s,1,TGT,eng,deu,51.0,d,false,"[{""start_i"": 1, ""end_i"": 2, ""severity"": ""minor""}]",1.50,2\n'
    rows = parse_scores(text).rows
    out = format_scores(rows)
    assert out == 'a,s,1,TGT,eng,deu,51,d,False,"[{""start_i"":1,""end_i"":2,""severity"":""minor""}]",1.5,2.0\n'
    assert parse_scores(out).rows == rows


def test_a_fractional_score_is_kept():
    rows = parse_scores("a,s,1,TGT,eng,deu,66.5,d,False,[],1,2\n").rows
    assert rows[0].score == 66.5
    assert format_scores(rows).split(",")[6] == "66.5"


def test_write_to_a_path(tmp_path):
    rows = parse_scores("\n".join(LINES) + "\n").rows
    write_scores(rows, tmp_path / "out.csv", "\r\n")
    assert (tmp_path / "out.csv").read_bytes() == ("\r\n".join(LINES) + "\r\n").encode()


def test_a_row_built_in_code_is_written_as_appraise_writes_it():
    row = ScoreRow("ann", "sys", "1", "TGT", "eng", "ces", 87, "d1#sys", False,
                   (ErrorSpan(0, 4, "major"), ErrorSpan(None, None, "minor")), 10.0, 12.5)
    line = format_scores([row])
    assert next(csv.reader(io.StringIO(line))) == [
        "ann", "sys", "1", "TGT", "eng", "ces", "87", "d1#sys", "False",
        '[{"start_i":0,"end_i":4,"severity":"major","error_type":null},'
        '{"start_i":"missing","end_i":"missing","severity":"minor","error_type":null}]', "10.0", "12.5"]


def test_a_line_break_in_an_id_is_refused_not_written():
    row = parse_scores("a,s,1,TGT,eng,deu,5,d,False,[],1,2\n").rows[0]
    with pytest.raises(ValueError, match="line break"):
        format_scores([dataclasses.replace(row, document="d\r1")])


def test_span_errors_name_the_place():
    with pytest.raises(HumanEvalInputError) as err:
        parse_spans('[{"start_i": true, "end_i": 2, "severity": "minor"}]', ("f.csv", 4))
    assert str(err.value).startswith("f.csv:4: error span 1:")


_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12).filter(
    lambda s: s.strip() and s.strip() == s)
_span = st.one_of(
    st.tuples(st.integers(0, 500), st.integers(0, 50)).map(lambda t: (t[0], t[0] + t[1])),
    st.just((None, None)))


@st.composite
def _rows(draw):
    start, length = draw(st.floats(1e9, 2e9, allow_nan=False)), draw(st.floats(0, 1e4, allow_nan=False))
    spans = []
    for a, b in draw(st.lists(_span, max_size=4)):
        has_type = draw(st.booleans())   # a span without the key reads back with error_type None
        spans.append(ErrorSpan(a, b, draw(st.sampled_from(["minor", "major", "undecided"])),
                               draw(st.one_of(st.none(), _text)) if has_type else None, has_type))
    return ScoreRow(draw(_text), draw(_text), str(draw(st.integers(1, 999))), draw(st.sampled_from(["TGT", "BAD"])),
                    "eng", "deu", float(draw(st.integers(0, 100))), draw(_text), draw(st.booleans()), tuple(spans),
                    start, start + length)


@settings(max_examples=60, deadline=None)
@given(st.lists(_rows(), min_size=1, max_size=5), st.sampled_from(["\n", "\r\n"]))
def test_any_rows_survive_write_then_read(rows, newline):
    text = format_scores(rows, newline)
    again = parse_scores(text)
    assert again.rows == rows
    assert format_scores(again.rows, again.newline) == text
