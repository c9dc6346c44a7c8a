"""Issue 15, finding 5, on the platform: one answer that is not a chat completion fails its item, not the run."""

from __future__ import annotations

from tests.humaneval.test_judge_client_limits import endpoints  # noqa: F401  (the fixture)


def test_one_non_json_answer_fails_one_item_not_the_run(world, endpoints):  # noqa: F811
    """Issue 15: one non-JSON 200 answer failed the whole run (0 of 51 scored)."""
    from tests.platform.judges.test_judges_run import add, run
    from tests.support.judge_protocol import judged_campaign

    main, _other = endpoints
    main.non_json_left = 1
    cid = judged_campaign(world)
    jid = add(world, cid, base_url=f"{main.url}/mixed/v1", model="m", mode="single", concurrency=1)
    out = run(world, jid)
    assert out["state"] == "done" and out["failed"] == 1 and out["scored"] >= 1, out
