"""The ESA^AI suggestions file (JSON Lines): what is read, and every problem named with its line."""

import json

import pytest

from humaneval.errors import HumanEvalInputError
from humaneval.esa import ErrorSpan
from humaneval.esa.suggestions import (
    MAX_PROBLEMS,
    SuggestionsError,
    parse_suggestions,
    read_suggestions,
    skippable,
)

TRANSLATIONS = {("1", "sysA"): "Der Hund bellt, der Hund schläft.", ("2", "sysA"): "Alles gut.",
                ("1", "sysB"): "Die Katze."}


def lines(*objs):
    return "\n".join(o if isinstance(o, str) else json.dumps(o, ensure_ascii=False) for o in objs) + "\n"


GOOD = lines(
    {"item": 1, "system": "sysA", "score": 40, "spans": [
        {"start": 4, "end": 8, "severity": "major"}, {"text": "Hund", "severity": "minor"},
        {"text": "Hund", "severity": "minor"}, {"missing": True, "severity": "major"}]},
    {"item": "2", "system": "sysA", "spans": [], "score": 97},
    "",
    {"item": "1", "system": "sysB", "spans": []})


def test_a_good_file_resolved_against_the_translations():
    first, second, third = parse_suggestions(GOOD, "s.jsonl", TRANSLATIONS)
    assert (first.item, first.system, first.score, first.line) == ("1", "sysA", 40.0, 1)
    # "Hund" twice: the first and the second occurrence; offsets end inclusive as in Appraise
    assert first.spans == (ErrorSpan(4, 7, "major"), ErrorSpan(4, 7, "minor"), ErrorSpan(20, 23, "minor"),
                           ErrorSpan(None, None, "major"))
    assert second.found_no_error and third.score is None and third.line == 4


def test_without_translations_quotes_stay_quotes():
    first = parse_suggestions(GOOD)[0]
    assert first.spans == (ErrorSpan(4, 7, "major"), ErrorSpan(None, None, "major"))
    assert first.quotes == (("Hund", "minor"), ("Hund", "minor"))
    assert not first.found_no_error


def test_the_budget_filter():
    _, clean, unscored = parse_suggestions(GOOD, translations=TRANSLATIONS)
    assert skippable(clean, 95) and not skippable(clean, 98)
    assert not skippable(unscored, 0)                      # no score: never left out
    assert not skippable(parse_suggestions(GOOD, translations=TRANSLATIONS)[0], 0)


BAD_LINES = [
    ("{not json", "not JSON"),
    ("[1, 2]", "one JSON object"),
    ({"item": 1, "system": "sysA", "spans": [], "extra": 1}, "unknown field(s) extra"),
    ({"item": True, "system": "sysA", "spans": []}, '"item" must be'),
    ({"item": 1, "system": "", "spans": []}, '"system" must be'),
    ({"item": 1, "system": "sysA"}, '"spans" must be a list'),
    ({"item": 1, "system": "sysA", "spans": [], "score": 101}, '"score" must be a number from 0 to 100'),
    ({"item": 1, "system": "sysA", "spans": ["x"]}, "span 1 is not an object"),
    ({"item": 1, "system": "sysA", "spans": [{"start": 1, "end": 2, "severity": "critical"}]}, '"severity" must be'),
    ({"item": 1, "system": "sysA", "spans": [{"start": 1, "severity": "minor"}]}, 'has "start" but no "end"'),
    ({"item": 1, "system": "sysA", "spans": [{"start": 3, "end": 3, "severity": "minor"}]}, "end is exclusive"),
    ({"item": 1, "system": "sysA", "spans": [{"start": -1, "end": 3, "severity": "minor"}]}, "character offset"),
    ({"item": 1, "system": "sysA", "spans": [{"start": 0, "end": 99, "severity": "minor"}]}, "past the end"),
    ({"item": 1, "system": "sysA", "spans": [{"text": "Pferd", "severity": "minor"}]}, "does not occur"),
    ({"item": 1, "system": "sysA", "spans": [{"text": "bellt", "severity": "minor"},
                                              {"text": "bellt", "severity": "minor"}]}, "does not occur in the "
                                                                                      "translation (again)"),
    ({"item": 1, "system": "sysA", "spans": [{"text": "Hund", "start": 4, "end": 8, "severity": "minor"}]},
     "exactly one of"),
    ({"item": 1, "system": "sysA", "spans": [{"missing": "yes", "severity": "minor"}]}, '"missing" must be true'),
    ({"item": 1, "system": "sysA", "spans": [{"severity": "minor", "note": "x"}]}, "unknown field(s) note"),
    ({"item": 9, "system": "sysA", "spans": []}, "no item '9' of system 'sysA'"),
]


@pytest.mark.parametrize("bad, problem", BAD_LINES)
def test_each_problem_is_named_with_its_line(bad, problem):
    with pytest.raises(SuggestionsError) as err:
        parse_suggestions(GOOD + lines(bad), "s.jsonl", TRANSLATIONS)
    assert err.value.problems[0][0] == 5 and problem in err.value.problems[0][1]
    assert str(err.value).startswith("s.jsonl:5: ")


def test_all_problems_are_reported_at_once():
    text = lines({"item": 1, "system": "sysA", "spans": []}, "{", {"item": 1, "system": "sysA", "spans": []},
                 {"item": 2, "system": "sysA", "spans": [{"text": "x", "severity": "minor"}]})
    with pytest.raises(SuggestionsError) as err:
        parse_suggestions(text, "s.jsonl", TRANSLATIONS)
    assert [line for line, _ in err.value.problems] == [2, 3, 4]
    assert "again (first on line 1)" in err.value.problems[1][1]
    assert err.value.report().splitlines()[1].startswith("s.jsonl:3: item '1' of system 'sysA' again")
    assert "(and 2 more problems)" in str(err.value)


def test_problems_are_capped():
    with pytest.raises(SuggestionsError) as err:
        parse_suggestions("{\n" * 500)
    assert len(err.value.problems) == MAX_PROBLEMS


def test_empty_and_unreadable_files(tmp_path):
    with pytest.raises(HumanEvalInputError, match="no suggestions"):
        parse_suggestions("\n \n")
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"item": 1, "system": "sysA", "spans": []}\n\xff\n')
    with pytest.raises(HumanEvalInputError, match="s.jsonl:2: not valid UTF-8"):
        read_suggestions(path)
