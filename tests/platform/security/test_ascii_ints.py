"""Issue 15, "No 500s": ``str.isdigit()`` then ``int()``. "²" is a digit to isdigit and not to int, and a
20-digit number overflows the database's integer: each place now uses ``is_ascii_int`` (at most 9 ASCII
digits) and answers with the page, or a 4xx, never a 500."""

from __future__ import annotations

import pytest

from tests.support.campaigns import build_world

HOSTILE = ["²", "𝟘", "9" * 20, "-1", "1e3", " 1", "１"]


@pytest.fixture
def cworld(make_app, tmp_path):
    return build_world(make_app(), tmp_path)


@pytest.mark.parametrize("value", HOSTILE)
def test_browse_document_sys(cworld, value):
    org = cworld.client("org@example.org")
    resp = org.get(f"/browse/{cworld.testset_id}/doc/river.1", query_string={"sys": [value, "²"]})
    assert resp.status_code == 200, resp.status_code
    resp = org.get(f"/browse/{cworld.testset_id}/diff", query_string={"doc": "river.1", "a": value, "b": "ref1"})
    assert resp.status_code in (200, 400), resp.status_code


@pytest.mark.parametrize("value", HOSTILE)
def test_submission_undo(cworld, value):
    sid = next(iter(cworld.subs.values()))
    resp = cworld.client("org@example.org").get(f"/submissions/{sid}", query_string={"undo": value})
    assert resp.status_code == 200, resp.status_code


@pytest.mark.parametrize("value", HOSTILE)
def test_rubric_form_systems_and_seed(cworld, value):
    org = cworld.client("org@example.org")
    resp = org.post("/campaigns/new", data={"testset": str(cworld.testset_id), "protocol": "rubric",
                                            "name": "r", "redundancy": "1", "systems": [value, "²"], "seed": value})
    assert resp.status_code == 400, resp.status_code


def test_the_rubric_csv_reader(tmp_path):
    from humaneval.errors import HumanEvalInputError
    from humaneval.rubric.responses import read_responses

    header = "document,segment,system,rater,dimension,sp,g_1,g_2\n"
    for cell in ("²", "--5", "9" * 30, "１"):
        path = tmp_path / "r.csv"
        path.write_text(header + f"d,{cell},s,r,idiom,{cell},1,1\n", encoding="utf-8")
        with pytest.raises(HumanEvalInputError):
            read_responses(path)
