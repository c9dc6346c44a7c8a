"""Changing a judge after it was added: its settings, its removal, and a test call to its endpoint.

Deleting a judge deletes its machine account, and with it (the database cascades) its place among
the campaign's raters, its finished assignments, the scores it stored as responses and its
transcripts: the campaign's results, exports and agreement figures no longer count it. A
released campaign's results are frozen with the judge in them, so a judge of a released campaign
cannot be deleted (withdraw the release first).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, replace

from flask import current_app
from sqlalchemy import delete, func, select

from humaneval.judge import CallRecord, ChatClient, EndpointConfig, EndpointError

from ..campaigns.services.common import bad
from ..extensions import db
from ..models import User
from ..services import ServiceError
from . import crypto
from .models import Judge, JudgeItem
from .running import is_alive
from .setup import JudgeInput, _checked, api_key

#: what the test call asks for, and how long it may take at most (seconds)
TEST_PROMPT = "This is a connection test from Enface. Reply with the single word OK."
TEST_TIMEOUT = 30.0
TEST_MAX_TOKENS = 8
#: how much of the test answer the page quotes
TEST_ANSWER_CHARS = 200


def judge_input(judge: Judge) -> JudgeInput:
    """The judge's current settings as the form shows them (never its stored key)."""
    return JudgeInput(base_url=judge.base_url, model=judge.model, name=judge.name, mode=judge.mode,
                      api_key_env=judge.api_key_env or "", temperature=judge.temperature,
                      max_rounds=judge.max_rounds, concurrency=judge.concurrency,
                      requests_per_minute=judge.requests_per_minute or 0, timeout=judge.timeout,
                      price_prompt_per_1k=judge.price_prompt_per_1k,
                      price_completion_per_1k=judge.price_completion_per_1k, prompts_dir=judge.prompts_dir or "")


def _check_idle(judge: Judge, doing: str) -> None:
    if is_alive(judge) or judge.state == "queued":
        raise bad("judge_running", f"this judge is {judge.state}: wait until its run stops before {doing} it", 409)


def scored_items(judge: Judge) -> int:
    return db.session.scalar(select(func.count()).select_from(JudgeItem).where(
        JudgeItem.judge_id == judge.id, JudgeItem.state == "ok")) or 0


def update_judge(judge: Judge, data: JudgeInput, *, key_source: str = "keep") -> Judge:
    """New settings for ``judge``, checked as when it was added. ``key_source``: "keep" the stored key,
    "env" (the variable ``data.api_key_env``), "secret" (a new stored key ``data.api_key``), "none".

    Items already scored keep their scores (a run only scores what is left); delete the judge and add
    it again to score everything with the new settings."""
    _check_idle(judge, "editing")
    if judge.campaign.state == "released":
        raise bad("campaign_released", "this campaign is released: its judges can no longer change", 409)
    if key_source not in ("keep", "env", "secret", "none"):
        raise bad("invalid_field", "the key source is keep, env, secret or none", field="key_source")
    checked_input = data if key_source != "keep" else replace(data, api_key="", api_key_env="")
    values = _checked(replace(checked_input, demo=judge.demo))
    if key_source == "secret" and not data.api_key:
        raise bad("invalid_field", "type the new key, or keep the stored one", field="api_key")
    with db.write():
        row = db.session.get(Judge, judge.id)
        for name, value in values.items():
            if name != "api_key_env" and name != "demo":
                setattr(row, name, value)
        if key_source == "env":
            row.api_key_env, row.api_key_encrypted = values["api_key_env"], None
        elif key_source == "secret":
            row.api_key_env = None
            row.api_key_encrypted = crypto.encrypt(data.api_key, current_app.config["SECRET_KEY"])
        elif key_source == "none":
            row.api_key_env, row.api_key_encrypted = None, None
        db.session.get(User, row.user_id).name = f"LLM judge: {row.name}"[:100]
    db.session.refresh(judge)
    return judge


def check_deletable(judge: Judge) -> None:
    """Refuses (409, with the reason) while the judge runs and on a released campaign."""
    _check_idle(judge, "deleting")
    if judge.campaign.state == "released":
        raise bad("campaign_released", "this campaign's results are released with this judge's scores in them: "
                  "withdraw the release before deleting the judge", 409)


def delete_judge(judge: Judge) -> int:
    """Deletes the judge, its machine account, its assignments, scores and transcripts; returns how many
    items it had scored. Refused while it runs and on a released campaign."""
    check_deletable(judge)
    scored = scored_items(judge)
    with db.write():
        # the account's rows cascade: the judge, its judge items, its campaign annotator, whose
        # assignments and responses cascade in turn
        db.session.execute(delete(Judge).where(Judge.id == judge.id))
        db.session.execute(delete(User).where(User.id == judge.user_id))
    return scored


@dataclass
class EndpointCheck:
    """What one test call to a judge's endpoint found (never the key)."""

    ok: bool
    message: str
    seconds: float
    answer: str = ""


def test_endpoint(judge: Judge) -> EndpointCheck:
    """One small call through the judge client (no retry, a few tokens, at most 30 s) to the judge's
    endpoint with its model and key: whether it answers, and what it said or why it failed."""
    started = time.monotonic()
    try:
        key = api_key(judge)
    except ServiceError as exc:
        where = " (the test runs in the web server, which needs the variable too)" if exc.code == "no_api_key" else ""
        return EndpointCheck(False, exc.message + where, 0.0)
    base = EndpointConfig(base_url=judge.base_url, model=judge.model, api_key=key)
    known = {f.name for f in fields(EndpointConfig)}
    settings = {"temperature": judge.temperature, "timeout": min(judge.timeout, TEST_TIMEOUT), "max_retries": 0,
                "max_tokens": TEST_MAX_TOKENS}
    config = replace(base, **{k: v for k, v in settings.items() if k in known})
    record = CallRecord(role="test", round=0, messages=[{"role": "user", "content": TEST_PROMPT}])
    try:
        ChatClient(config).complete(record)
    except EndpointError as exc:
        return EndpointCheck(False, _redacted(str(exc), key), round(time.monotonic() - started, 2))
    except Exception as exc:   # anything the client lets through is reported, never a 500
        return EndpointCheck(False, _redacted(f"{type(exc).__name__}: {exc}", key), round(time.monotonic() - started, 2))
    answer = _redacted((record.answer or "").strip(), key)[:TEST_ANSWER_CHARS]
    return EndpointCheck(True, f"{judge.model} at {judge.base_url} answered", record.seconds, answer)


def _redacted(text: str, key: str) -> str:
    return text.replace(key, "***") if key and len(key) >= 4 else text
