"""The demo's scripted judge answers plausibly (issue 15): the demo's answer key
(data/demo/phenomena/judge-answers.tsv) covers every tagged segment of every demo system, and a debate
run against the scripted endpoint ``enface demo`` starts scores the correct idiom high and the
mistranslation that the requirement names low."""

from __future__ import annotations

from rubric_helpers import PHENOMENA_DIR, new_rubric
from sqlalchemy import select

from humaneval.judge.demo_script import demo_script
from humaneval.judge.scripted import ScriptedServer
from humaneval.rubric import check_scores

KEY = "demo-endpoint-key-test"


def test_the_answer_key_covers_every_task_and_the_run_follows_it(world):
    from enface.campaigns import services as svc
    from enface.commands.demo_phenomena import answered_items, judge_answers
    from enface.extensions import db
    from enface.judges.models import JudgeItem
    from enface.judges.running import run_judge, tasks_of
    from enface.judges.setup import JudgeInput, add_judge

    answers = judge_answers(PHENOMENA_DIR.parent)
    for (_system, _doc, _seg, dim), answer in answers.items():   # each follows the rubric's rules
        assert check_scores(dim, {**{c: answer[c] for c in ("sp", "g_1", "g_2")}, "refusal": None,
                                  "comment": answer["reason"]}) == [], answer
    cid = new_rubric(world, annotators=("ann1@example.org",), redundancy=1)
    with world.ctx():
        tasks = tasks_of(svc.get_campaign(cid))
        items = answered_items(tasks, answers)
        keys = {(i.id, t.key): (i.versions[0].version.submission.system_name, i.document.name, i.seg_start + 1,
                                   t.item["dimension"]) for i, t in tasks}
    assert len(items) == 17 * 3 and all("answer" in it for it in items), [it["id"] for it in items
                                                                        if "answer" not in it]
    with ScriptedServer(demo_script(items, api_key=KEY, latency=0)) as server:
        with world.ctx():
            jid = add_judge(svc.get_campaign(cid), JudgeInput(base_url=server.base_url, model="scripted-demo",
                                                              api_key=KEY, mode="debate", concurrency=4)).id
            out = run_judge(jid)
    assert out["state"] == "done" and out["failed"] == 0
    with world.ctx():
        records = db.session.scalars(select(JudgeItem).where(JudgeItem.judge_id == jid)).all()
        scored = {keys[(r.item_id, r.key)]: r.scores for r in records}
    assert len(scored) == len(tasks)
    # 童叟无欺: the careful translation's meaning scores 2/2/2, the list of people it names as wrong scores sp 0
    assert scored[("careful-mt", "tea-house", 1, "idiom")] == {"sp": 2, "g_1": 2, "g_2": 2}
    assert scored[("chatty-llm", "tea-house", 1, "idiom")]["sp"] == 0
    # 外门弟子: "outer door disciple" is the mistranslation the requirement names
    assert scored[("literal-mt", "sect-trial", 4, "terminology")]["sp"] == 0
    # the refusal to translate a novel's threat scores 0, the careful rendering 2
    assert scored[("chatty-llm", "tea-house", 8, "cultural_safety")]["sp"] == 0
    assert scored[("careful-mt", "tea-house", 8, "cultural_safety")]["sp"] == 2
    # every score is the answer key's, and the careful system beats the literal one on every phenomenon
    assert all(scored[k] == {c: answers[k][c] for c in ("sp", "g_1", "g_2")} for k in scored)
    for (system, doc, seg, dim), s in scored.items():
        if system == "careful-mt":
            assert s["sp"] >= scored[("literal-mt", doc, seg, dim)]["sp"]
