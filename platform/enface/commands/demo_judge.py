"""The demo's LLM judge: a scripted OpenAI-compatible endpoint started by ``enface demo`` itself, and a
debate judge on the demo's rubric campaign that talks to it (its pages say it is a demo endpoint)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import click

#: what the scripted endpoint asks as a Bearer token: the demo judge stores it encrypted like a real key
DEMO_ENDPOINT_KEY = "demo-endpoint-key"
DEMO_JUDGE_NAME = "Demo judge (scripted endpoint)"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rubric_campaign():
    from sqlalchemy import select

    from ..campaigns.models import Campaign
    from ..extensions import db

    return db.session.scalars(select(Campaign).where(Campaign.protocol == "rubric",
                                                     Campaign.state.in_(("open", "closed")))
                              .order_by(Campaign.id)).first()


def start_demo_judge(services, app, data_dir: Path, url: str, demo_dir: Path, think_time: float = 0.3) -> list[str]:
    """Start the scripted endpoint (a child of ``services``, stopped with them), add the demo judge to the
    demo rubric campaign once (its endpoint URL follows the new port), and queue its run. The endpoint
    answers each item with the scores of the demo's answer key (``demo_dir``/phenomena/judge-answers.tsv),
    each answer after ``think_time`` seconds (a model's think time, so that the dashboard shows a live run)."""
    from humaneval.judge.demo_script import demo_script

    from ..judges.models import Judge
    from ..judges.reports import progress
    from ..judges.running import queue_run, tasks_of
    from ..judges.setup import JudgeInput, add_judge, campaign_judges
    from .demo_esa_ai import demo_span_rules, point_demo_suggester
    from .demo_phenomena import answered_items, judge_answers

    with app.app_context():
        campaign = _rubric_campaign()
        if campaign is None:
            return []
        items = answered_items(tasks_of(campaign), judge_answers(demo_dir))
        script = demo_script(items, api_key=DEMO_ENDPOINT_KEY, latency=think_time)
        script["rules"] += demo_span_rules()      # the ESA^AI campaign's suggester asks the same endpoint
        campaign_id = campaign.id
    script_file = data_dir / "demo-judge-script.json"
    script_file.write_text(json.dumps(script, ensure_ascii=False), encoding="utf-8")
    port = _free_port()
    log = open(data_dir / "logs" / "judge-endpoint.log", "ab")   # noqa: SIM115  (the child holds it)
    try:
        services.procs["judge-endpoint"] = subprocess.Popen(
            [sys.executable, "-m", "humaneval.judge.scripted", "--port", str(port), "--script", str(script_file)],
            cwd=data_dir, stdout=log, stderr=subprocess.STDOUT)
    finally:
        log.close()
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(base_url + "/models", timeout=2):
                break
        except OSError:
            services.check_alive("while the demo's scripted endpoint started")
            if time.monotonic() > deadline:
                raise RuntimeError("the demo's scripted endpoint did not start") from None
            time.sleep(0.2)
    from ..extensions import db

    with app.app_context():
        campaign = _rubric_campaign()
        judge = next((j for j in campaign_judges(campaign_id) if j.demo), None)
        if judge is None:
            judge = add_judge(campaign, JudgeInput(base_url=base_url, model="scripted-demo", name=DEMO_JUDGE_NAME,
                                                   mode="debate", api_key=DEMO_ENDPOINT_KEY, concurrency=4,
                                                   demo=True))
        else:
            with db.write():
                db.session.get(Judge, judge.id).base_url = base_url
            db.session.refresh(judge)
        p = progress(judge)
        if p["done"] < p["total"]:
            queue_run(judge)
        judge_id = judge.id
        suggester = point_demo_suggester(base_url, url)
    return [f"LLM judge {judge_id} on rubric campaign {campaign_id}, debating against the demo's scripted endpoint "
            f"({base_url}): {url}/campaigns/{campaign_id}/judges/{judge_id}/compare"] + suggester


def wait_for_demo_judge(app, timeout: float = 180) -> None:
    """For ``enface demo --once``: wait until the demo judge's run has finished."""
    from ..judges.models import Judge

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with app.app_context():
            from sqlalchemy import select

            from ..extensions import db
            from .demo_esa_ai import demo_suggester_states

            states = db.session.scalars(select(Judge.state).where(Judge.demo.is_(True))).all()
            states += demo_suggester_states()
        if all(s in ("done", "failed", "idle") for s in states):
            return
        time.sleep(0.25)   # (a query of two small tables: --once ends soon after the judge does)
    click.echo("enface: the demo judge had not finished; it resumes when the demo serves again", err=True)
