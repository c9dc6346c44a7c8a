"""Choosing a campaign's suggestion source: an LLM endpoint (the judges' settings and checks) or a file.

One source per campaign. Choosing another replaces the first and its suggestions, which is
allowed only until an annotator has started: after that the suggestions are what the
annotators were shown, and their spans' provenance refers to them.

An uploaded file is checked completely before anything is stored
(:func:`humaneval.esa.suggestions.parse_suggestions` against the campaign's own
translations): a bad file is refused with every problem and its line, and the previous
source stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app
from sqlalchemy import delete, exists, select

from humaneval.errors import HumanEvalInputError
from humaneval.esa.llm import load_span_prompts
from humaneval.esa.suggestions import SuggestionsError, parse_suggestions
from humaneval.judge import PromptError

from ....campaigns.models import Assignment, Campaign
from ....campaigns.services.common import bad, number
from ....extensions import db
from ....judges import crypto
from ....judges.setup import JudgeInput, _checked, prompts_folder
from ....models import utcnow
from .models import Suggester, Suggestion
from .spans import span_to_json
from .targets import campaign_targets

#: the most bytes an uploaded suggestions file may have
MAX_FILE_BYTES = 50 * 1024 * 1024


@dataclass
class LlmInput:
    """An LLM suggester's settings as the form and the CLI give them (strings or numbers)."""

    base_url: str
    model: str
    name: str = ""
    api_key_env: str = ""
    api_key: str = ""                 # a secret to store encrypted (write-only)
    temperature: Any = 0.0
    concurrency: Any = 4
    requests_per_minute: Any = 0
    timeout: Any = 120
    price_prompt_per_1k: Any = 0
    price_completion_per_1k: Any = 0
    prompts_dir: str = ""
    skip_threshold: Any = ""
    demo: bool = False


class SuggestionsRefused(Exception):
    """An uploaded file's problems: ``problems`` is ``[(line, message)]`` (line 0: the whole file)."""

    def __init__(self, filename: str, problems: list[tuple[int, str]]):
        super().__init__(f"{filename}: {len(problems)} problem(s)")
        self.filename, self.problems = filename, problems


def get_suggester(campaign: Campaign) -> Suggester | None:
    return db.session.scalar(select(Suggester).where(Suggester.campaign_id == campaign.id))


def replace_refusal(campaign: Campaign) -> str | None:
    """Why the campaign's suggestions may not be replaced now (None: they may)."""
    if campaign.state not in ("draft", "open"):
        return f"this campaign is {campaign.state}: its suggestions are fixed"
    started = db.session.scalar(select(exists().where(Assignment.campaign_id == campaign.id,
                                                      Assignment.started_at.is_not(None))))
    if started:
        return ("an annotator has started: the suggestions are what annotators were shown, and their spans' "
                "provenance refers to them")
    return None


def _check_replaceable(campaign: Campaign) -> None:
    refusal = replace_refusal(campaign)
    if refusal:
        raise bad("suggestions_fixed", refusal, 409)


def skip_threshold(value: Any) -> float | None:
    """The budget filter's threshold from a form ("" or None: no filtering)."""
    if value is None or str(value).strip() == "":
        return None
    return number(str(value).strip().rstrip("%") if str(value).strip().endswith("%") else value,
                  "skip threshold", 0, 100)


def _replace(campaign: Campaign, suggester: Suggester) -> Suggester:
    db.session.execute(delete(Suggester).where(Suggester.campaign_id == campaign.id))
    db.session.flush()
    db.session.add(suggester)
    db.session.flush()
    return suggester


def set_llm_source(campaign: Campaign, data: LlmInput) -> Suggester:
    """An LLM suggester for ``campaign``, its endpoint checked as a judge's (its key never shown again)."""
    _check_replaceable(campaign)
    values = _checked(JudgeInput(base_url=data.base_url, model=data.model, name=data.name, mode="single",
                                 api_key_env=data.api_key_env, api_key=data.api_key, temperature=data.temperature,
                                 max_rounds=1, concurrency=data.concurrency,
                                 requests_per_minute=data.requests_per_minute, timeout=data.timeout,
                                 price_prompt_per_1k=data.price_prompt_per_1k,
                                 price_completion_per_1k=data.price_completion_per_1k,
                                 prompts_dir=data.prompts_dir, demo=data.demo))
    if values["prompts_dir"]:
        try:
            load_span_prompts(prompts_folder(values["prompts_dir"]))
        except PromptError as exc:
            raise bad("invalid_field", str(exc), field="prompts_dir") from None
    for dropped in ("mode", "max_rounds"):
        values.pop(dropped)
    if not (data.name or "").strip():
        values["name"] = values["model"]
    threshold = skip_threshold(data.skip_threshold)
    with db.write():
        suggester = Suggester(campaign_id=campaign.id, source="llm", skip_threshold=threshold, **values)
        if data.api_key:
            suggester.api_key_encrypted = crypto.encrypt(data.api_key, current_app.config["SECRET_KEY"])
        return _replace(campaign, suggester)


def upload_file(campaign: Campaign, filename: str, content: bytes, threshold: Any = "") -> tuple[Suggester, int]:
    """Stores an uploaded suggestions file's spans; returns the suggester and the lines stored.

    Raises :class:`SuggestionsRefused` with every problem (and its line) of a bad file, storing nothing.
    """
    _check_replaceable(campaign)
    filename = (filename or "suggestions.jsonl").replace("\\", "/").rsplit("/", 1)[-1][:255] or "suggestions.jsonl"
    threshold_value = skip_threshold(threshold)
    if len(content) > MAX_FILE_BYTES:
        raise SuggestionsRefused(filename, [(0, f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")])
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content[:exc.start].count(b"\n") + 1
        raise SuggestionsRefused(filename, [(line, f"not UTF-8 (byte {exc.start + 1} of the file)")]) from None
    targets = campaign_targets(campaign)
    by_name = {(t.item, t.system): t for t in targets}
    try:
        parsed = parse_suggestions(text, filename, {k: t.translation for k, t in by_name.items()})
    except SuggestionsError as exc:
        raise SuggestionsRefused(filename, list(exc.problems)) from None
    except HumanEvalInputError as exc:
        raise SuggestionsRefused(filename, [(exc.line or 0, exc.message)]) from None
    now = utcnow()
    with db.write():
        suggester = _replace(campaign, Suggester(campaign_id=campaign.id, source="file", filename=filename,
                                                 name=filename, skip_threshold=threshold_value, state="done",
                                                 started_at=now, finished_at=now))
        for s in parsed:
            t = by_name[(s.item, s.system)]
            db.session.add(Suggestion(suggester_id=suggester.id, version_id=t.version_id, document_id=t.document_id,
                                      position=t.position, state="ok", spans=[span_to_json(sp) for sp in s.spans],
                                      score=s.score, finished_at=now))
    return suggester, len(parsed)


def set_threshold(campaign: Campaign, value: Any) -> Suggester:
    """Changes the budget filter's threshold (before the start only: the filter leaves items out then)."""
    suggester = get_suggester(campaign)
    if suggester is None:
        raise bad("no_suggester", "choose a suggestion source first", 409)
    if campaign.state != "draft":
        raise bad("campaign_started", "the campaign has started: the budget filter has done its work", 409)
    threshold = skip_threshold(value)
    with db.write():
        suggester = db.session.merge(suggester)
        suggester.skip_threshold = threshold
    return suggester


def remove_source(campaign: Campaign) -> None:
    """Removes the suggestion source and every suggestion (the page then shows none)."""
    _check_replaceable(campaign)
    with db.write():
        db.session.execute(delete(Suggester).where(Suggester.campaign_id == campaign.id))

