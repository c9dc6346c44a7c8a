"""LLM judges for rubric items (DITING's AgentEval): single agent or two debaters and a judge.

A pure library (no Flask, no database): :class:`Judge` scores one item,
:func:`judge_items` many with bounded concurrency, :class:`ChatClient` calls any
OpenAI-compatible endpoint, :mod:`~humaneval.judge.scripted` is a scripted endpoint for tests
and the demo, and ``python -m humaneval judge`` runs it on a JSON Lines file.
"""

from .client import CallRecord, ChatClient, EndpointConfig, EndpointError, RateLimiter
from .debate import DEFAULT_MAX_ROUNDS, MODES, ItemResult, Judge
from .items import DIMENSIONS, check_item, read_items
from .parse import MalformedAnswer, parse_scores, parse_verdict
from .prompts import PromptError, Prompts, load_prompts
from .runner import judge_items

__all__ = ["CallRecord", "ChatClient", "DEFAULT_MAX_ROUNDS", "DIMENSIONS", "EndpointConfig", "EndpointError",
           "ItemResult", "Judge", "MODES", "MalformedAnswer", "PromptError", "Prompts", "RateLimiter",
           "check_item", "judge_items", "load_prompts", "parse_scores", "parse_verdict", "read_items"]
