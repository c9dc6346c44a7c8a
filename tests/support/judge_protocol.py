"""A test protocol that takes LLM judges, for the judge machinery's own tests (tests/platform/judges).

MQM's protocol with :meth:`judge_tasks` and a rubric-checking :meth:`check_response`: each item's first
segment is one rubric task (dimension idiom or tense), whose source carries ``[ITEM-<id>]`` so that a
scripted endpoint's rules can tell the items apart. The rubric protocol's own hook is tested with it.

Run as ``python -m tests.support.judge_protocol DATA_DIR DATABASE_URL JUDGE_ID`` it runs one judge in
this process (the resumption test kills that process mid-run).
"""

from __future__ import annotations

import sys
from pathlib import Path

KEY = "judge-test"
DIMS = ("idiom", "tense")


def install() -> None:
    from enface.campaigns.contract import JudgeTask
    from enface.campaigns.protocol import PROTOCOLS, register
    from enface.extensions import db
    from enface.models import OutputSegment, Segment
    from enface.services import ServiceError
    from sqlalchemy import select

    from humaneval.rubric import check_scores, load_rubric

    if KEY in PROTOCOLS:
        return

    class JudgedTestProtocol(type(PROTOCOLS["mqm"])):
        key = KEY
        title = "MQM with a test judge hook"

        def judge_tasks(self, item):
            seg = db.session.scalar(select(Segment).where(Segment.document_id == item.document_id,
                                                          Segment.position == item.seg_start))
            out = db.session.scalar(select(OutputSegment.text).where(
                OutputSegment.submission_id == item.submission_id, OutputSegment.document_id == item.document_id,
                OutputSegment.position == item.seg_start))
            dim = DIMS[item.position % 2]
            return [JudgeTask(kind="score", key=dim, scale=load_rubric("diting").dimension(dim).to_dict(),
                              item={"id": f"item{item.id}", "dimension": dim, "source": f"{seg.source} [ITEM-{item.id}]",
                                    "translation": out, "requirement": f"check the {dim}"})]

        def check_response(self, asg, kind, key, data):
            errors = check_scores(key, data)
            if errors:
                raise ServiceError("rubric_rule", "; ".join(errors), 400)
            return dict(data)

    register(JudgedTestProtocol())


def judged_campaign(world, **kw) -> int:
    """An started MQM campaign turned into a judge-test campaign; returns its id."""
    from enface.campaigns.models import Campaign
    from enface.extensions import db
    from sqlalchemy import update

    from tests.support.campaigns import new_campaign

    install()
    cid = new_campaign(world, **kw)
    with world.ctx(), db.write():
        db.session.execute(update(Campaign).where(Campaign.id == cid).values(protocol=KEY))
    return cid


def main(argv: list[str]) -> int:
    from enface import create_app
    from enface.config import TestConfig

    data_dir, url, judge_id = argv
    app = create_app(TestConfig.for_dir(Path(data_dir), url))
    install()
    with app.app_context():
        from enface.judges.running import run_judge

        print(run_judge(int(judge_id)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
