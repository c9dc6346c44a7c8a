"""The constructed rubric campaign of the ranking tests (see test_rubric_official_ranking's docstring): four
systems, two people on every item with known Σ scores, an LLM judge whose scores would reverse the ranking
if pooled, and BLEU scores that order the board otherwise."""

from __future__ import annotations

from rubric_helpers import items_of, new_rubric, put_score, system_outputs

from humaneval.judge.scripted import ScriptedServer

KEY = "sk-rubric-ranking-0xBEEF"
SIGMA = {0: {"sp": 0, "g_1": 0, "g_2": 0}, 1: {"sp": 1, "g_1": 0, "g_2": 0}, 3: {"sp": 1, "g_1": 1, "g_2": 1},
         4: {"sp": 2, "g_1": 1, "g_2": 1}, 5: {"sp": 2, "g_1": 2, "g_2": 1}, 6: {"sp": 2, "g_1": 2, "g_2": 2}}
CHATTY = (3, 5, 4, 4)       # by the phenomenon's index (in id order) modulo 4
JUDGE = {"careful-mt": 0, "chatty-llm": 0, "plain-mt": 6, "literal-mt": 6}
BLEU = {"plain-mt": 40.0, "careful-mt": 30.0, "chatty-llm": 35.0, "literal-mt": 10.0}
RATERS = ("ann1@example.org", "ann2@example.org")


def _people_sigma(system: str, email: str, index: int) -> int:
    if system == "careful-mt":
        return 4
    if system == "chatty-llm":
        return CHATTY[index % 4]
    if system == "plain-mt":
        return 1 if email == RATERS[0] else 3
    return 1


def add_plain_and_bleu(world) -> None:
    """A second constrained primary system (plain-mt, best by BLEU) and BLEU scores for all four."""
    from enface.extensions import db
    from enface.models import ScoreRow

    from tests.support.campaigns import add_submission

    with world.ctx():
        outputs = {doc: [f"{line} ~" for line in lines] for doc, lines in system_outputs("literal-mt").items()}
        world.subs["plain-mt"] = add_submission(world.testset_id, "plain-mt", "Ibis", "primary", True, outputs)
        with db.write():
            for system, value in BLEU.items():
                db.session.add(ScoreRow(submission_id=world.subs[system], metric="bleu", scope="corpus",
                                        name="BLEU", value=value, higher_is_better=True, signature="nrefs:1|t"))


def _score_people(world, cid: int) -> None:
    from enface.campaigns.models import Assignment
    from enface.extensions import db
    from sqlalchemy import select

    system_of = {sid: name for name, sid in world.subs.items()}
    for email in RATERS:
        client = world.client(email)
        for state in items_of(world, cid, email):
            pid = state["item"]["id"]
            with world.ctx():
                asg = db.session.scalar(select(Assignment).where(Assignment.public_id == pid))
                system = system_of[asg.item.versions[0].version.submission_id]
                order = _phenomenon_order(world)
            for ph in state["phenomena"]:
                r, _ = put_score(client, pid, ph["id"], SIGMA[_people_sigma(system, email, order[str(ph["id"])])])
                assert r.status_code == 200, r.get_json()
            assert client.post(f"/annotate/api/items/{pid}/finish", json={}).status_code == 200


def _phenomenon_order(world) -> dict[str, int]:
    from enface.extensions import db
    from enface.models import Phenomenon
    from sqlalchemy import select

    ids = db.session.scalars(select(Phenomenon.id).where(Phenomenon.testset_id == world.testset_id)
                             .order_by(Phenomenon.id)).all()
    return {str(pid): n for n, pid in enumerate(ids)}


def _run_judge(world, cid: int) -> None:
    """An LLM judge (single agent, scripted endpoint) with the scores of JUDGE."""
    from enface.campaigns import services as svc
    from enface.judges.running import run_judge, tasks_of
    from enface.judges.setup import JudgeInput, add_judge

    system_of = {sid: name for name, sid in world.subs.items()}
    with world.ctx():
        rules = [{"prefix": "", "match": [task.item["translation"], task.item["requirement"]],
                  "replies": [{"json": {**SIGMA[JUDGE[system_of[item.versions[0].version.submission_id]]],
                                        "thoughts": "scripted"}}]}
                 for item, task in tasks_of(svc.get_campaign(cid))]
    script = {"latency": 0, "rules": rules, "api_key": KEY,
              "default": {"json": {"sp": 1, "g_1": 1, "g_2": 1, "thoughts": "default"}}}
    with ScriptedServer(script) as server, world.ctx():
        jid = add_judge(svc.get_campaign(cid), JudgeInput(base_url=server.base_url, model="scripted", mode="single",
                                                          api_key=KEY, concurrency=4)).id
        assert run_judge(jid)["failed"] == 0


def released_rubric(world, test: str = "wilcoxon", *, add_plain: bool = True) -> int:
    from enface.campaigns import services as svc

    if add_plain:
        add_plain_and_bleu(world)
    cid = new_rubric(world, redundancy=2, annotators=RATERS, significance_test=test,
                     systems=["careful-mt", "chatty-llm", "plain-mt", "literal-mt"])
    _score_people(world, cid)
    _run_judge(world, cid)
    with world.ctx():
        svc.release(svc.get_campaign(cid))
    return cid
