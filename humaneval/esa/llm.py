"""ESA^AI suggestions from an LLM: the error-span prompt, reading its answer, asking for many items.

The prompt (``humaneval/esa/prompts/spans.txt``, in the spirit of GEMBA-MQM, this
project's own wording) asks for the errors of one translation as spans with a
severity, minor or major, and a 0-100 score; an organizer's folder can replace
``spans.txt`` and ``correction.txt`` one by one, as the judges' prompts. The answer
is read leniently by the judges' parser (:func:`humaneval.judge.parse.extract_object`:
fences, prose around the JSON, trailing commas); a malformed answer or a quote that is
not in the translation is sent back once with the problem named
(:func:`humaneval.judge.ask.ask`), and the judges' client does the retries, rate limit
and cost (:class:`humaneval.judge.ChatClient`). Every call goes into the transcript.

The answer: ``{"errors": [...], "score": 0-100}`` (``"spans"`` is accepted for
``"errors"``; the score may be absent). Each error is ``{"text", "severity"}``,
``{"start", "end", "severity"}`` (``end`` exclusive) or ``{"missing": true,
"severity"}``; severities ``minor`` or ``major`` in any case, ``critical`` read as
major (models trained on MQM say it); ``[missing]`` as a quote is an omission.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from ..judge.ask import AskFailed, ask
from ..judge.client import CallRecord, ChatClient
from ..judge.parse import MalformedAnswer, extract_object
from ..judge.prompts import PromptError, load_template
from ..judge.runner import run_bounded
from .appraise import ErrorSpan
from .suggestions import Suggestion, locate

DEFAULT_DIR = Path(__file__).with_name("prompts")
TEMPLATES = {"spans": frozenset({"source_language", "target_language", "source", "translation", "context"}),
             "correction": frozenset({"problem"})}
_SEVERITY = {"minor": "minor", "major": "major", "critical": "major"}


@dataclass(frozen=True)
class SpanPrompts:
    templates: Mapping[str, Template]
    folder: str

    def render(self, name: str, **values: Any) -> str:
        return self.templates[name].substitute({k: "" if v is None else str(v) for k, v in values.items()})


def load_span_prompts(folder: str | Path | None = None) -> SpanPrompts:
    """The default templates, each replaced by ``folder/<name>.txt`` where that file exists."""
    if folder is not None and not Path(folder).is_dir():
        raise PromptError(f"{folder}: not a folder of prompt templates")
    templates = {}
    for name, allowed in TEMPLATES.items():
        path = DEFAULT_DIR / f"{name}.txt"
        if folder is not None and (Path(folder) / f"{name}.txt").is_file():
            path = Path(folder) / f"{name}.txt"
        templates[name] = load_template(path, allowed)
    return SpanPrompts(templates, str(folder or DEFAULT_DIR))


@dataclass(frozen=True)
class SpanAnswer:
    spans: tuple[ErrorSpan, ...]
    score: float | None


def _number(value: Any) -> float | None:
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _answer_span(entry: Any, n: int, translation: str, taken: set[int]) -> ErrorSpan:
    if not isinstance(entry, dict):
        raise MalformedAnswer(f"error {n} is not an object")
    severity = _SEVERITY.get(str(entry.get("severity", "")).strip().lower())
    if severity is None:
        raise MalformedAnswer(f'error {n}: "severity" must be "minor" or "major"')
    text = entry.get("text")
    if entry.get("missing") is True or (isinstance(text, str) and text.strip().lower() in ("[missing]", "missing")):
        return ErrorSpan(None, None, severity)
    if "start" in entry or "end" in entry:
        start, end = _number(entry.get("start")), _number(entry.get("end"))
        if (start is None or end is None or not start.is_integer() or not end.is_integer()
                or not 0 <= start < end <= len(translation)):
            raise MalformedAnswer(f'error {n}: "start" and "end" must be character offsets with '
                                  f'0 <= start < end <= {len(translation)} (end exclusive)')
        return ErrorSpan(int(start), int(end) - 1, severity)
    if not isinstance(text, str) or not text.strip():
        raise MalformedAnswer(f'error {n} needs "text": the words copied from the translation')
    at = locate(translation, text, taken)
    if at == -1 and text.strip() != text:            # models pad quotes with spaces
        text = text.strip()
        at = locate(translation, text, taken)
    if at == -1:
        raise MalformedAnswer(f"error {n}: the text {text!r} does not occur in the translation; copy the words "
                              f"exactly as they are written there")
    taken.add(at)
    return ErrorSpan(at, at + len(text) - 1, severity)


def parse_span_answer(text: str | None, translation: str) -> SpanAnswer:
    """The spans and score of a model's answer about ``translation`` (see the module's doc)."""
    obj = extract_object(text, ("errors", "spans"))
    errors = obj.get("errors", obj.get("spans"))
    if errors is None:
        raise MalformedAnswer('the field "errors" is missing')
    if not isinstance(errors, list):
        raise MalformedAnswer('"errors" must be a list (empty when the translation has no error)')
    taken: set[int] = set()
    spans = tuple(_answer_span(e, n, translation, taken) for n, e in enumerate(errors, 1))
    score = None
    if obj.get("score") is not None:
        score = _number(obj["score"])
        if score is None or not 0 <= score <= 100:
            raise MalformedAnswer('"score" must be a number from 0 to 100')
    return SpanAnswer(spans, score)


@dataclass(frozen=True)
class SpanItem:
    """One translation to suggest spans for."""

    item: str
    system: str
    source: str
    translation: str
    context: str = ""


@dataclass
class SuggestionResult:
    item: str
    system: str
    ok: bool = False
    spans: tuple[ErrorSpan, ...] = ()
    score: float | None = None
    error: str | None = None
    raw: str | None = None
    calls: list[CallRecord] = field(default_factory=list)

    def suggestion(self) -> Suggestion:
        """As the uploaded file's :class:`Suggestion` (ValueError when the item failed)."""
        if not self.ok:
            raise ValueError(f"no suggestion for item {self.item!r} of {self.system!r}: {self.error}")
        return Suggestion(self.item, self.system, self.spans, self.score)

    def transcript(self) -> dict[str, Any]:
        return {"item": self.item, "system": self.system, "ok": self.ok, "error": self.error, "raw": self.raw,
                "spans": [s.to_json() for s in self.spans], "score": self.score,
                "calls": [c.to_dict() for c in self.calls],
                "prompt_tokens": sum(c.prompt_tokens for c in self.calls),
                "completion_tokens": sum(c.completion_tokens for c in self.calls),
                "cost": sum(c.cost for c in self.calls)}


@dataclass
class SpanSuggester:
    """An LLM that suggests error spans: the endpoint client, the prompts and the languages' names."""

    client: ChatClient
    prompts: SpanPrompts
    source_language: str
    target_language: str

    def suggest(self, item: SpanItem) -> SuggestionResult:
        """Never raises for endpoint or answer problems: a failed item has ``ok`` false and ``error``."""
        result = SuggestionResult(item.item, item.system)
        prompt = self.prompts.render("spans", source_language=self.source_language,
                                     target_language=self.target_language, source=item.source,
                                     translation=item.translation, context=item.context)
        try:
            answer = ask(self.client, prompt, lambda text: parse_span_answer(text, item.translation),
                         calls=result.calls, role="suggester",
                         correction=lambda problem: self.prompts.render("correction", problem=problem))
        except AskFailed as exc:
            result.error, result.raw = exc.message, exc.raw
            return result
        result.ok, result.spans, result.score = True, answer.spans, answer.score
        return result


def suggest_items(suggester: SpanSuggester, items: Sequence[SpanItem], concurrency: int = 1,
                  on_result: Callable[[SuggestionResult], None] | None = None) -> list[SuggestionResult]:
    """Suggestions for ``items`` with at most ``concurrency`` in flight, in input order."""
    return run_bounded(suggester.suggest, items, concurrency, on_result, name="esa-suggest")
