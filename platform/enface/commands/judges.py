"""``enface campaign add-judge|judges|run-judge``: LLM judges of a campaign from the command line.

    enface campaign add-judge CAMPAIGN --base-url URL --model NAME [--mode debate|single]
        [--api-key-env VAR | --api-key-stdin] [--name TEXT] [--temperature 0] [--max-rounds 4]
        [--concurrency 4] [--requests-per-minute 0] [--timeout 120] [--price-prompt 0]
        [--price-completion 0] [--prompts DIR]
    enface campaign judges CAMPAIGN [--json]
    enface campaign run-judge CAMPAIGN JUDGE [--queue]

``--api-key-stdin`` reads the key from standard input (so it stays out of the
shell history and the process list) and stores it encrypted; nothing prints it.
``run-judge`` runs in the foreground (Ctrl-C or a kill loses at most the items in
flight; run it again to resume), or with ``--queue`` puts the run on the ``llm`` queue.
"""

from __future__ import annotations

import json
import sys

import click

from ._common import fail as _fail
from .campaigns import _run, campaign


@campaign.command("add-judge")
@click.argument("campaign_id", type=int)
@click.option("--base-url", required=True, help="the OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
@click.option("--model", required=True)
@click.option("--mode", type=click.Choice(["debate", "single"]), default="debate", show_default=True)
@click.option("--api-key-env", default="", help="the worker's environment variable holding the key: one of the names "
              "the operator allows in ENFACE_JUDGE_KEY_ENVS (never ENFACE_*)")
@click.option("--api-key-stdin", is_flag=True, help="read the key from standard input and store it encrypted")
@click.option("--name", default="")
@click.option("--temperature", default="0", show_default=True)
@click.option("--max-rounds", default="4", show_default=True)
@click.option("--concurrency", default="4", show_default=True, help="items in flight")
@click.option("--requests-per-minute", default="0", show_default=True, help="0: no limit")
@click.option("--timeout", default="120", show_default=True, help="seconds per request")
@click.option("--price-prompt", default="0", show_default=True, help="price per 1,000 prompt tokens")
@click.option("--price-completion", default="0", show_default=True, help="price per 1,000 completion tokens")
@click.option("--prompts", "prompts_dir", default="", help="a folder of prompt templates under "
              "ENFACE_JUDGE_PROMPTS_ROOT (default <data dir>/judge-prompts; empty: built in)")
def add_judge(campaign_id, base_url, model, mode, api_key_env, api_key_stdin, name, temperature, max_rounds,
              concurrency, requests_per_minute, timeout, price_prompt, price_completion, prompts_dir):
    """Add an LLM judge (a machine annotator) to a rubric campaign."""
    from ..campaigns import services as svc
    from ..judges.setup import JudgeInput
    from ..judges.setup import add_judge as add

    if api_key_env and api_key_stdin:
        _fail("give --api-key-env or --api-key-stdin, not both")
    secret = sys.stdin.readline().strip() if api_key_stdin else ""
    if api_key_stdin and not secret:
        _fail("--api-key-stdin: standard input held no key")

    def go():
        judge = add(svc.get_campaign(campaign_id), JudgeInput(
            base_url=base_url, model=model, name=name, mode=mode, api_key_env=api_key_env, api_key=secret,
            temperature=temperature, max_rounds=max_rounds, concurrency=concurrency,
            requests_per_minute=requests_per_minute, timeout=timeout, price_prompt_per_1k=price_prompt,
            price_completion_per_1k=price_completion, prompts_dir=prompts_dir))
        click.echo(f"judge {judge.id}: {judge.name}; key: {judge.key_source}")
    _run(go)


@campaign.command("judges")
@click.argument("campaign_id", type=int)
@click.option("--json", "as_json", is_flag=True)
def judges(campaign_id, as_json):
    """The campaign's judges and their progress (never their keys)."""
    from ..judges.reports import progress
    from ..judges.setup import campaign_judges

    def go():
        rows = [{"id": j.id, "name": j.name, "model": j.model, "mode": j.mode, "base_url": j.base_url,
                 "key": j.key_source, **progress(j)} for j in campaign_judges(campaign_id)]
        if as_json:
            click.echo(json.dumps(rows, ensure_ascii=False))
            return
        for r in rows:
            click.echo(f"{r['id']}\t{r['name']}\t{r['state']}\t{r['done']}/{r['total']} scored, {r['failed']} failed"
                       f"\t{r['calls']} calls\tcost {r['cost']:.4f}")
    _run(go)


@campaign.command("run-judge")
@click.argument("campaign_id", type=int)
@click.argument("judge_id", type=int)
@click.option("--queue", "queued", is_flag=True, help="queue the run on the llm queue instead of running it here")
def run_judge(campaign_id, judge_id, queued):
    """Score what the judge has not scored yet (resumes an interrupted run)."""
    from ..judges.running import queue_run
    from ..judges.running import run_judge as run
    from ..judges.setup import get_judge

    def go():
        judge = get_judge(campaign_id, judge_id)
        if queued:
            queue_run(judge)
            click.echo(f"judge {judge_id} queued on the llm queue")
            return
        out = run(judge_id)
        click.echo(f"judge {judge_id}: {out.get('scored', 0)} scored, {out.get('failed', 0)} failed, "
                   f"{out.get('skipped', 0)} skipped; {out.get('state', '')} {out.get('message', '')}".rstrip())
        if out.get("state") == "failed":
            raise SystemExit(1)
    _run(go)
