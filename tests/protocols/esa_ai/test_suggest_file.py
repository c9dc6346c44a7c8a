"""An uploaded suggestions file: stored when good, refused with every problem and its line when not
(nothing stored, the previous source kept), and fixed once an annotator has started."""

from __future__ import annotations

import json

import pytest
from suggest_support import ORCHARD, campaign, rows


def upload(world, cid, text: str | bytes, threshold=""):
    from enface.campaigns import services as svc
    from enface.protocols.esa.suggestions.source import upload_file

    with world.ctx():
        suggester, n = upload_file(svc.get_campaign(cid), "spans.jsonl",
                                   text.encode() if isinstance(text, str) else text, threshold)
        return suggester.id, n


def lines(*objs) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)


GOOD = lines({"item": "orchard:1", "system": "zephyr-mt", "score": 60,
              "spans": [{"start": 0, "end": 5, "severity": "minor"}, {"text": "Krieg", "severity": "major"},
                        {"missing": True, "severity": "minor"}]},
             {"item": "orchard:2", "system": "zephyr-mt", "spans": [], "score": 98})


def test_a_good_file_is_stored_with_offsets_resolved(world):
    cid = campaign(world)
    sid, n = upload(world, cid, GOOD, threshold="95")
    assert n == 2
    got = rows(world, sid)
    krieg = ORCHARD[0].index("Krieg")
    assert got[("orchard", 1)].spans == [{"start": 0, "end": 4, "severity": "minor"},
                                         {"start": krieg, "end": krieg + 4, "severity": "major"},
                                         {"missing": True, "severity": "minor"}]
    assert got[("orchard", 2)].spans == [] and got[("orchard", 2)].score == 98
    assert ("orchard", 3) not in got                         # a segment the file does not name has none


def test_every_problem_is_reported_with_its_line_and_nothing_is_stored(world):
    from enface.protocols.esa.suggestions.source import SuggestionsRefused

    cid = campaign(world)
    first, _ = upload(world, cid, GOOD)
    bad = "\n".join([
        '{"item": "orchard:1", "system": "zephyr-mt", "spans": []}',
        "not json",
        '{"item": "orchard:9", "system": "zephyr-mt", "spans": []}',
        '{"item": "orchard:2", "system": "nobody", "spans": []}',
        '{"item": "orchard:2", "system": "zephyr-mt", "spans": [{"start": 3, "end": 999, "severity": "minor"}]}',
        '{"item": "orchard:3", "system": "zephyr-mt", "spans": [{"text": "Elefant", "severity": "minor"}]}',
        '{"item": "orchard:1", "system": "zephyr-mt", "spans": []}',
        '{"item": "orchard:3", "system": "zephyr-mt", "spans": [{"start": 0, "end": 2, "severity": "fatal"}]}',
        '{"item": "orchard:3", "system": "zephyr-mt", "spans": [], "score": 101, "extra": 1}',
    ])
    with pytest.raises(SuggestionsRefused) as info:
        upload(world, cid, bad)
    problems = dict(info.value.problems)
    assert info.value.filename == "spans.jsonl"
    assert sorted(problems) == [2, 3, 4, 5, 6, 7, 8, 9]
    assert problems[2].startswith("not JSON")
    assert "no item 'orchard:9' of system 'zephyr-mt'" in problems[3] and "'nobody'" in problems[4]
    assert "past the end of the translation" in problems[5]
    assert "'Elefant' does not occur" in problems[6]
    assert "again (first on line 1)" in problems[7]
    assert '"minor" or "major"' in problems[8] and "unknown field" in problems[9]
    # the first upload is untouched
    assert set(rows(world, first)) == {("orchard", 1), ("orchard", 2)}


@pytest.mark.parametrize("content, line, words", [
    (b'{"item": "orchard:1", "system": "zephyr-mt", "spans": []}\n\xff\xfe\n', 2, "not UTF-8"),
    (b"\n\n", 0, "no suggestions"),
])
def test_unreadable_and_empty_files_are_refused(world, content, line, words):
    from enface.protocols.esa.suggestions.source import SuggestionsRefused

    cid = campaign(world)
    with pytest.raises(SuggestionsRefused) as info:
        upload(world, cid, content)
    assert info.value.problems[0][0] == line and words in info.value.problems[0][1]


def test_the_source_is_fixed_once_an_annotator_has_started(world):
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from enface.models import utcnow
    from enface.protocols.esa.suggestions.source import remove_source
    from enface.services import ServiceError
    from sqlalchemy import update

    cid = campaign(world, start=True)
    upload(world, cid, GOOD)                                   # open, nobody started: still replaceable
    with world.ctx(), db.write():
        db.session.execute(update(Assignment).where(Assignment.campaign_id == cid).values(started_at=utcnow()))
    with pytest.raises(ServiceError) as info:
        upload(world, cid, GOOD)
    assert info.value.code == "suggestions_fixed" and info.value.status == 409
    from enface.campaigns import services as svc

    with world.ctx(), pytest.raises(ServiceError):
        remove_source(svc.get_campaign(cid))
