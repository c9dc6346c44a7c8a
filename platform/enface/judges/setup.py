"""Adding a judge to a campaign: its settings checked, its key kept out of sight, its machine account."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from flask import current_app
from sqlalchemy import select

from humaneval.judge import DEFAULT_MAX_ROUNDS, MODES, PromptError, load_prompts

from ..campaigns.models import Campaign
from ..campaigns.protocol import protocol_of
from ..campaigns.services.common import bad, number, whole_number
from ..extensions import db
from ..models import User
from ..services import NotFound
from . import crypto
from .models import Judge

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
MAX_ROUNDS, MAX_CONCURRENCY = 20, 64


@dataclass
class JudgeInput:
    """A judge's settings as the form and the CLI give them (strings or numbers)."""

    base_url: str
    model: str
    name: str = ""
    mode: str = "debate"
    api_key_env: str = ""
    api_key: str = ""                 # a secret to store encrypted (write-only)
    temperature: Any = 0.0
    max_rounds: Any = DEFAULT_MAX_ROUNDS
    concurrency: Any = 4
    requests_per_minute: Any = 0
    timeout: Any = 120
    price_prompt_per_1k: Any = 0
    price_completion_per_1k: Any = 0
    prompts_dir: str = ""
    demo: bool = False


def _checked(data: JudgeInput) -> dict[str, Any]:
    base_url = (data.base_url or "").strip()
    parsed = urlparse(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise bad("invalid_field", "the base URL must be an http(s) URL, e.g. http://localhost:8000/v1",
                  field="base_url")
    model = (data.model or "").strip()
    if not model or len(model) > 200:
        raise bad("invalid_field", "the model name is required (at most 200 characters)", field="model")
    if data.mode not in MODES:
        raise bad("invalid_field", f"mode must be one of {', '.join(MODES)}", field="mode")
    env = (data.api_key_env or "").strip()
    if env and data.api_key:
        raise bad("invalid_field", "give the key as an environment variable name or as a secret, not both",
                  field="api_key")
    if env and not ENV_NAME.match(env):
        raise bad("invalid_field", "the environment variable name may hold letters, digits and _ only",
                  field="api_key_env")
    if data.api_key and (len(data.api_key) > 4000 or data.api_key.strip() != data.api_key):
        raise bad("invalid_field", "the API key is longer than 4000 characters or has spaces around it",
                  field="api_key")
    prompts_dir = (data.prompts_dir or "").strip() or None
    if prompts_dir:
        try:
            load_prompts(prompts_dir)
        except PromptError as exc:
            raise bad("invalid_field", str(exc), field="prompts_dir") from None
    rpm = number(data.requests_per_minute or 0, "requests per minute", 0, 100000)
    name = (data.name or "").strip()[:100] or f"{model} ({data.mode})"
    return {"name": name, "base_url": base_url, "model": model, "mode": data.mode, "api_key_env": env or None,
            "temperature": number(data.temperature, "temperature", 0, 2),
            "max_rounds": whole_number(data.max_rounds, "max rounds", 1, MAX_ROUNDS),
            "concurrency": whole_number(data.concurrency, "concurrency", 1, MAX_CONCURRENCY),
            "requests_per_minute": rpm or None, "timeout": number(data.timeout, "timeout", 1, 3600),
            "price_prompt_per_1k": number(data.price_prompt_per_1k or 0, "price per 1k prompt tokens", 0, 1000),
            "price_completion_per_1k": number(data.price_completion_per_1k or 0,
                                              "price per 1k completion tokens", 0, 1000),
            "prompts_dir": prompts_dir, "demo": bool(data.demo)}


def add_judge(campaign: Campaign, data: JudgeInput) -> Judge:
    """A new judge of ``campaign`` with its machine account (inactive, no password: it cannot log in)."""
    if not takes_judges(campaign):
        raise bad("no_judges", f"{protocol_of(campaign).title or campaign.protocol} campaigns take no LLM judges "
                               "(rubric campaigns do)", 409)
    if campaign.state == "released":
        raise bad("campaign_released", "this campaign is released; it takes no new judges", 409)
    values = _checked(data)
    with db.write():
        user = User(email=f"judge-{secrets.token_hex(6)}@judges.invalid", name=f"LLM judge: {values['name']}"[:100],
                    password_hash="", role="annotator", active=False)
        db.session.add(user)
        db.session.flush()
        judge = Judge(campaign_id=campaign.id, user_id=user.id, **values)
        if data.api_key:
            judge.api_key_encrypted = crypto.encrypt(data.api_key, current_app.config["SECRET_KEY"])
        db.session.add(judge)
    return judge


def takes_judges(campaign: Campaign) -> bool:
    """Whether the campaign's protocol says what a judge scores (overrides :meth:`Protocol.judge_tasks`)."""
    from ..campaigns.protocol import Protocol

    return type(protocol_of(campaign)).judge_tasks is not Protocol.judge_tasks


def api_key(judge: Judge) -> str:
    """The key for a run (on the worker): decrypted, or read from the worker's environment."""
    import os

    if judge.api_key_encrypted:
        return crypto.decrypt(judge.api_key_encrypted, current_app.config["SECRET_KEY"])
    if judge.api_key_env:
        value = os.environ.get(judge.api_key_env)
        if not value:
            raise bad("no_api_key", f"the environment variable {judge.api_key_env} is not set on the worker", 409)
        return value
    return ""


def get_judge(campaign_id: int, judge_id: int) -> Judge:
    judge = db.session.get(Judge, judge_id)
    if judge is None or judge.campaign_id != campaign_id:
        raise NotFound("judge")
    return judge


def campaign_judges(campaign_id: int) -> list[Judge]:
    return list(db.session.scalars(select(Judge).where(Judge.campaign_id == campaign_id).order_by(Judge.id)))
