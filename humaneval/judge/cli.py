"""``python -m humaneval judge``: an LLM judge over a JSON Lines file of rubric items, no web app needed.

    python -m humaneval judge ITEMS.jsonl --base-url URL --model NAME [--mode single|debate]
        [--max-rounds N] [--api-key-env VAR] [--concurrency N] [--json] ...

Exit status: 0 every item scored; 1 bad input (items file, rubric, prompts:
file and line named); 2 usage error (including an unset API key variable);
3 some items could not be scored (they are printed with null scores and an
"error"; --transcripts keeps their raw answers).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..argtypes import non_negative, whole_number
from ..errors import HumanEvalInputError
from .client import ChatClient, EndpointConfig
from .debate import DEFAULT_MAX_ROUNDS, MODES, Judge
from .examples import read_examples
from .items import read_items
from .prompts import PromptError, load_prompts
from .runner import judge_items

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_FAILED = 0, 1, 2, 3
EPILOG = """\
ITEMS.jsonl: one object a line, {"id", "dimension", "source", "translation",
"requirement"} plus optional "reference" and "context"; dimension is one of
idiom, ambiguity, terminology, tense, zero_pronoun, cultural_safety.

The API key is read from the environment variable --api-key-env names
(default OPENAI_API_KEY) and sent as a Bearer token; it is never printed.

--json prints {"items": [{"id", "sp", "g_1", "g_2", "rounds", "consensus"}, ...]}
in input order; rounds is 1 when the debaters agree at once and in single
mode; consensus is whether the judge declared agreement (false in single
mode: there is no judge). An item that could not be scored has null scores
and an "error".

exit status: 0 all scored, 1 bad input (file and line named), 2 usage error,
3 some items not scored."""






def add_judge_parser(sub: Any) -> None:
    """Register the ``judge`` subcommand on the ``python -m humaneval`` parser."""
    p = sub.add_parser("judge", help="score rubric items with an LLM judge (single agent or debate)",
                       description="Score DITING rubric items with an LLM judge on any OpenAI-compatible "
                                   "endpoint: one agent (single) or two debaters and a judge (debate).",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="ITEMS.jsonl", help="the items, one JSON object a line")
    p.add_argument("--base-url", required=True, help="the endpoint, e.g. http://localhost:8000/v1")
    p.add_argument("--model", required=True, help="the model name the endpoint serves")
    p.add_argument("--mode", choices=MODES, default="debate", help="default debate")
    p.add_argument("--max-rounds", type=whole_number(1), default=DEFAULT_MAX_ROUNDS,
                   help=f"debate rounds at most (default {DEFAULT_MAX_ROUNDS})")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="VAR",
                   help="environment variable holding the API key (default OPENAI_API_KEY)")
    p.add_argument("--concurrency", type=whole_number(1), default=4, help="items in flight (default 4)")
    p.add_argument("--requests-per-minute", type=non_negative, default=0,
                   help="rate limit over all calls (default 0: none)")
    p.add_argument("--temperature", type=non_negative, default=0.0, help="default 0")
    p.add_argument("--timeout", type=non_negative, default=120.0, help="seconds per request (default 120)")
    p.add_argument("--max-retries", type=int, default=5, help="retries on 429/5xx/timeouts (default 5)")
    p.add_argument("--price-prompt", type=non_negative, default=0.0, help="price per 1,000 prompt tokens")
    p.add_argument("--price-completion", type=non_negative, default=0.0,
                   help="price per 1,000 completion tokens")
    p.add_argument("--rubric", default="diting", help="a rubric name or a rubric JSON file (default diting)")
    p.add_argument("--prompts", metavar="DIR", help="a folder of prompt templates replacing the defaults")
    p.add_argument("--source-language", default="Chinese", help="as the prompts name it (default Chinese)")
    p.add_argument("--target-language", default="English", help="as the prompts name it (default English)")
    p.add_argument("--examples", metavar="FILE.jsonl",
                   help="scored examples shown in the prompts of their dimension (one JSON object a line: "
                        "dimension, source, translation, sp, g_1, g_2, optional comment)")
    p.add_argument("--transcripts", metavar="FILE.jsonl",
                   help="write every item's full transcript (each message in and out, tokens, cost)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _dimensions(spec: str) -> dict[str, Any]:
    # The rubric loader lives in humaneval.rubric; imported here so that `python -m humaneval agreement`
    # does not depend on it.
    from ..rubric import load_rubric

    rubric = load_rubric(spec)
    return {d["key"]: d for d in rubric.to_dict()["dimensions"]}


def run_judge(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.max_retries < 0:
        parser.error("--max-retries must be 0 or more")
    api_key = os.environ.get(args.api_key_env)
    if not api_key:
        parser.error(f"the environment variable {args.api_key_env} (named by --api-key-env) is not set")
    items = read_items(args.file)
    try:
        prompts = load_prompts(args.prompts)
    except PromptError as exc:
        raise HumanEvalInputError(str(exc)) from None
    dimensions = _dimensions(args.rubric)
    lacking = sorted({i["dimension"] for i in items} - set(dimensions))
    if lacking:
        raise HumanEvalInputError(f"the rubric {args.rubric!r} has no dimension {', '.join(lacking)}", args.file)
    config = EndpointConfig(base_url=args.base_url, model=args.model, api_key=api_key,
                            temperature=args.temperature, timeout=args.timeout, max_retries=args.max_retries,
                            requests_per_minute=args.requests_per_minute or None,
                            price_prompt_per_1k=args.price_prompt, price_completion_per_1k=args.price_completion)
    examples = read_examples(args.examples) if args.examples else None
    judge = Judge(ChatClient(config), prompts, mode=args.mode, max_rounds=args.max_rounds, examples=examples,
                  source_language=args.source_language, target_language=args.target_language)
    results = judge_items(judge, items, dimensions, concurrency=args.concurrency)
    if args.transcripts:
        with Path(args.transcripts).open("w", encoding="utf-8") as out:
            for result in results:
                out.write(json.dumps(result.transcript(), ensure_ascii=False) + "\n")
    failed = [r for r in results if not r.ok]
    if args.json:
        print(json.dumps({"items": [r.summary() for r in results]}, ensure_ascii=False))
    else:
        for r in results:
            if r.ok:
                print(f"{r.id}\tsp={r.sp} g_1={r.g_1} g_2={r.g_2}\trounds={r.rounds}\t"
                      f"consensus={'yes' if r.consensus else 'no'}")
            else:
                print(f"{r.id}\tNOT SCORED: {r.error}")
        calls = [c for r in results for c in r.calls]
        print(f"{len(results) - len(failed)} of {len(results)} items scored; {len(calls)} calls "
              f"({sum(c.retried for c in calls)} retried), {sum(r.prompt_tokens for r in results)} prompt + "
              f"{sum(r.completion_tokens for r in results)} completion tokens, "
              f"estimated cost {sum(r.cost for r in results):.4f}")
    for r in failed:
        print(f"humaneval: item {r.id}: {r.error}", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK
