"""Reading a model's answer as the JSON object the prompt asked for, the way real models write it.

Models wrap JSON in Markdown code fences (three backticks and ``json``), put prose before and after it, leave
trailing commas, quote numbers ("2") and sometimes answer with text that only
looks like JSON. :func:`parse_answer` finds the object, repairs what can be
repaired without guessing, and checks the fields; anything else raises
:class:`MalformedAnswer` with a message fit to send back to the model in the
one corrective retry.
"""

from __future__ import annotations

import json
import re
from typing import Any

SCORE_KEYS = ("sp", "g_1", "g_2")
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class MalformedAnswer(ValueError):
    """The answer holds no usable JSON object; the message says what is wrong."""


def _candidates(text: str) -> list[str]:
    """Places a JSON object may be: each fenced block, then each balanced {...} span in the text."""
    found = [m.group(1) for m in _FENCE.finditer(text)]
    depth, start, in_str, escape = 0, None, False, False
    for i, ch in enumerate(text):
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth:
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                found.append(text[start:i + 1])
    return found


def _load(candidate: str) -> dict | None:
    candidate = candidate.strip()
    for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            obj = json.loads(attempt)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


def extract_object(text: str | None, keys: tuple[str, ...] = SCORE_KEYS) -> dict:
    """The first JSON object in ``text`` holding one of ``keys`` (else the first JSON object at all),
    fenced or not, trailing commas forgiven."""
    if not text or not text.strip():
        raise MalformedAnswer("the answer was empty")
    # Reasoning models may think aloud in <think>...</think> before answering; the answer follows it.
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL)
    objects = [obj for obj in map(_load, _candidates(text)) if obj is not None]
    for obj in objects:
        if any(key in obj for key in keys):
            return obj
    if objects:
        return objects[0]
    raise MalformedAnswer("the answer holds no JSON object")


def _score(obj: dict, key: str) -> int:
    if key not in obj:
        raise MalformedAnswer(f'the field "{key}" is missing')
    value = obj[key]
    if isinstance(value, str):
        value = value.strip()
        if re.fullmatch(r"[0-2](?:\.0+)?", value):
            value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in (0, 1, 2):
        raise MalformedAnswer(f'"{key}" must be 0, 1 or 2, not {json.dumps(value, ensure_ascii=False)}')
    return int(value)


def _text(obj: dict, key: str) -> str:
    value = obj.get(key, "")
    if isinstance(value, (list, tuple)):
        value = " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _scores(obj: dict) -> dict[str, int]:
    scores = {key: _score(obj, key) for key in SCORE_KEYS}
    # The rubric's rule: a Specific score of 0 forces both General scores to 0. An answer that breaks
    # it is sent back once, like malformed JSON, rather than silently repaired.
    if scores["sp"] == 0 and (scores["g_1"] or scores["g_2"]):
        raise MalformedAnswer('"sp" is 0, so "g_1" and "g_2" must be 0 too (the rubric\'s rule)')
    return scores


def parse_scores(text: str | None) -> dict[str, Any]:
    """A debater's or a single agent's answer: ``{"sp", "g_1", "g_2", "thoughts"}`` with scores 0, 1 or 2."""
    obj = extract_object(text)
    out: dict[str, Any] = _scores(obj)
    out["thoughts"] = _text(obj, "thoughts") or _text(obj, "reasons")
    return out


def parse_verdict(text: str | None) -> dict[str, Any]:
    """The judge's answer: ``{"judge": "yes"|"no", "judge_reasons", "sp", "g_1", "g_2"}``."""
    obj = extract_object(text, ("judge",) + SCORE_KEYS)
    verdict = obj.get("judge")
    if isinstance(verdict, bool):
        verdict = "yes" if verdict else "no"
    verdict = str(verdict).strip().lower() if verdict is not None else None
    if verdict not in ("yes", "no"):
        raise MalformedAnswer('"judge" must be "yes" or "no"')
    out: dict[str, Any] = {"judge": verdict, "judge_reasons": _text(obj, "judge_reasons")}
    out.update(_scores(obj))
    return out
