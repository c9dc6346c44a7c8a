"""ESA^AI provenance of spans and the suggestions' precision and recall, by hand."""

import pytest

from humaneval.esa import ErrorSpan
from humaneval.esa.provenance import provenance, provenance_shares, suggestion_quality

KEPT = ErrorSpan(0, 3, "minor")
MOVED = ErrorSpan(10, 14, "major")
DROPPED = ErrorSpan(30, 31, "minor")
MISSING = ErrorSpan(None, None, "major")


def test_each_span_gets_its_label():
    suggested = [KEPT, MOVED, DROPPED, MISSING]
    final = [KEPT, ErrorSpan(12, 16, "major"), ErrorSpan(40, 44, "minor"), ErrorSpan(None, None, "minor")]
    assert provenance(suggested, final) == [
        ("kept", KEPT), ("edited", ErrorSpan(12, 16, "major")), ("human", ErrorSpan(40, 44, "minor")),
        ("edited", ErrorSpan(None, None, "minor")), ("deleted", DROPPED)]
    # a changed severity on the same characters is an edit
    assert provenance([KEPT], [ErrorSpan(0, 3, "major")]) == [("edited", ErrorSpan(0, 3, "major"))]
    assert provenance([], []) == []


def test_shares():
    shares = provenance_shares([([KEPT, DROPPED], [KEPT]), ([], [MOVED])])
    assert shares == {"kept": pytest.approx(1 / 3), "edited": 0.0, "deleted": pytest.approx(1 / 3),
                      "human": pytest.approx(1 / 3)}
    assert provenance_shares([([], [])]) == {"kept": 0.0, "edited": 0.0, "deleted": 0.0, "human": 0.0}


def test_precision_and_recall_by_characters():
    # suggested 0-3 and 10-14 (9 characters); final 2-5 and 10-14 (9 characters); shared 2-3 and 10-14 (7)
    got = suggestion_quality([([KEPT, MOVED], [ErrorSpan(2, 5, "minor"), MOVED]), ([], [])])
    assert got == {"precision": pytest.approx(7 / 9), "recall": pytest.approx(7 / 9)}
    assert suggestion_quality([([MISSING], [])]) == {"precision": 0.0, "recall": None}
