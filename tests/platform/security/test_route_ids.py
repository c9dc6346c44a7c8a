"""Ids in URLs beyond what a primary key holds are 404s on every rule (found by the API fuzzing:
a path served by a GET rule and a POST rule answered 405 "method not allowed" for a GET)."""

from __future__ import annotations

import re

import pytest
from enface import digits_at_most

BIG = [2**31, 2**63, 10**20]


@pytest.mark.parametrize("number", BIG)
@pytest.mark.parametrize(("method", "path"), [("GET", "/api/v1/testsets/{}/submissions"),
                                              ("POST", "/api/v1/testsets/{}/submissions"),
                                              ("GET", "/api/v1/testsets/{}"), ("GET", "/submissions/{}"),
                                              ("POST", "/api/v1/submissions/{}/withdraw")])
def test_out_of_range_ids_are_not_found(client, method, path, number):
    resp = client.open(path.format(number), method=method)
    assert resp.status_code == 404, (path, resp.status_code, resp.get_data(as_text=True)[:200])


def test_the_largest_id_still_reaches_the_view(client):
    assert client.get(f"/api/v1/testsets/{2**31 - 1}/submissions").status_code == 401   # the view's token check
    assert client.get(f"/api/v1/testsets/{2**31 - 1}").status_code == 404


def test_digits_at_most_matches_exactly_the_numbers_up_to_the_limit():
    for limit in (0, 1, 9, 10, 99, 100, 2019, 2**31 - 1):
        pattern = re.compile(digits_at_most(limit) + r"\Z")
        for n in list(range(0, 2200)) + [limit - 1, limit, limit + 1, limit * 10]:
            assert bool(pattern.match(str(n))) == (0 <= n <= limit), (limit, n)
