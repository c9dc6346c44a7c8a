"""Adding a judge to a campaign: its settings checked, its key kept out of sight, its machine account."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
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

MAX_PROMPTS_DIR_BYTES = 500      # the column's width; each part of the path at most 255 bytes (NAME_MAX)
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
    try:
        parsed = urlparse(base_url)
        parsed.port       # noqa: B018  (raises on a port that is not a number or out of range)
    except ValueError:    # "http://[::1": an unclosed IPv6 address
        parsed = urlparse("")
    if parsed.scheme not in ("http", "https") or not parsed.netloc or len(base_url) > 500:
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
    if env:
        refusal = key_env_refusal(env)
        if refusal:
            raise bad("invalid_field", refusal, field="api_key_env")
    if data.api_key and (len(data.api_key) > 4000 or data.api_key.strip() != data.api_key):
        raise bad("invalid_field", "the API key is longer than 4000 characters or has spaces around it",
                  field="api_key")
    prompts_dir = (data.prompts_dir or "").strip() or None
    if prompts_dir:
        try:
            load_prompts(prompts_folder(prompts_dir))
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


def allowed_key_envs() -> tuple[str, ...]:
    """The environment variables the operator lets a judge read its key from (``ENFACE_JUDGE_KEY_ENVS``)."""
    return tuple(current_app.config.get("JUDGE_KEY_ENVS") or ())


def key_env_refusal(name: str) -> str | None:
    """Why a judge may not read its key from the variable ``name`` (None: it may). Only the operator's
    allow-list, and never an ``ENFACE_*`` setting: the value is sent as a Bearer token to the judge's URL."""
    allowed = allowed_key_envs()
    if name.upper().startswith("ENFACE_"):
        return f"{name} is one of Enface's own settings: a judge may not send it to an endpoint"
    if name not in allowed:
        listed = (f"this server allows {', '.join(allowed)}" if allowed else
                  "this server allows none (store the key encrypted instead)")
        return (f"the environment variable {name[:100]} is not on the operator's allow-list (ENFACE_JUDGE_KEY_ENVS): "
                f"{listed}")
    return None


def prompts_root() -> Path:
    """The one folder every judge's prompt templates must lie in (``ENFACE_JUDGE_PROMPTS_ROOT``)."""
    return Path(current_app.config.get("JUDGE_PROMPTS_ROOT") or Path(current_app.config["DATA_DIR"]) / "judge-prompts")


def prompts_folder(prompts_dir: str) -> Path:
    """``prompts_dir`` (relative to :func:`prompts_root`, or absolute inside it) as a resolved folder inside the
    root; a path outside it (``..``, a link out), too long or unreadable is a :class:`PromptError`."""
    root = prompts_root()
    if len(prompts_dir.encode("utf-8", "surrogatepass")) > MAX_PROMPTS_DIR_BYTES or any(
            len(part.encode("utf-8", "surrogatepass")) > 255 for part in Path(prompts_dir).parts):
        raise PromptError(f"the prompts folder's path is longer than {MAX_PROMPTS_DIR_BYTES} bytes "
                          "(or a part of it longer than 255)")
    if not prompts_dir.isprintable():
        raise PromptError("the prompts folder's path holds control characters")
    try:
        folder = (root / prompts_dir).resolve()
        root = root.resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise PromptError(f"the prompts folder cannot be read: {exc}") from None
    if folder != root and root not in folder.parents:
        raise PromptError(f"the prompts folder must lie under {root} (ENFACE_JUDGE_PROMPTS_ROOT)")
    return folder


def run_refusal(judge: Judge) -> str | None:
    """Why a stored judge may not run under today's settings (an environment variable taken off the allow-list,
    a prompts folder outside the root): checked before every run, not only when the judge was added."""
    if judge.api_key_env and not judge.api_key_encrypted:
        refusal = key_env_refusal(judge.api_key_env)
        if refusal:
            return f"this judge cannot run: {refusal}"
    if judge.prompts_dir:
        try:
            prompts_folder(judge.prompts_dir)
        except PromptError as exc:
            return f"this judge cannot run: {exc}"
    return None


def api_key(judge: Judge) -> str:
    """The key for a run (on the worker): decrypted, or read from the worker's environment (allowed names only)."""
    import os

    if judge.api_key_encrypted:
        return crypto.decrypt(judge.api_key_encrypted, current_app.config["SECRET_KEY"])
    if judge.api_key_env:
        refusal = key_env_refusal(judge.api_key_env)
        if refusal:
            raise bad("key_env_not_allowed", f"this judge cannot run: {refusal}", 409)
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
