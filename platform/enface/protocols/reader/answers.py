"""Every answer a reader can save, checked strictly (pure: no database; the protocol passes a :class:`Context`).

The reader's page autosaves responses of these kinds (``kind``, ``key``, ``data``):

=============  ==================  =====================================================================
kind           key                 data
=============  ==================  =====================================================================
passphrase     ""                  ``{"passphrase": str}`` (stored as ``{"accepted": true}``)
step           "immersive"         ``{"step": 0..4}``: read T1, questions T1, read T2, questions T2, compare
position       "1" / "2"           ``{"para": int, "furthest": int}``: paragraph at the top, furthest reached
single         "1" / "2"           Table 16 answers (any subset while drafting)
compare        ""                  Table 17 answers (any subset while drafting)
chunk          "1".."n"            Table 18 steps 2–4: ``preference`` "1"/"2", ``justification``, ``difficulty``
highlight      "1".."n"            ``{"side": "1"/"2", "start", "end", "label": "good"/"poor", "text"}``
post           ""                  Table 29 answers
=============  ==================  =====================================================================

"1" and "2" are presentation labels: in immersive reading Translation 1 is the version read
first; in close reading T1 is the chunk's left column. A refusal is a 400 (409 when the
answer is out of turn) whose ``details.field`` names the offending field.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ...services import ServiceError, is_ascii_int
from .questions import CHOICE, CHUNK, COMPARE, POST, SCALE, SINGLE, TEXT, Question

# Steps of the immersive stage (one page, in this order).
READ_1, QUESTIONS_1, READ_2, QUESTIONS_2, COMPARE_STEP = range(5)
STEPS = ("read:1", "questions:1", "read:2", "questions:2", "compare")

LABELS = ("1", "2")
HIGHLIGHT_LABELS = ("good", "poor")
MAX_HIGHLIGHT_CHARS = 5000


@dataclass
class Context:
    """What the checks need to know about the assignment (built by the protocol from the database)."""

    stage: str                                   # "immersive" | "close" | "post"
    step: int = 0                                # the immersive step reached
    paragraphs: dict[str, int] = field(default_factory=dict)   # presentation label -> paragraphs shown
    chunks: list[dict[str, str]] = field(default_factory=list)  # per chunk: {"1": left text, "2": right text}
    passphrase: str | None = None                # None: the study has none
    post_here: bool = True                       # the reader's post-study questions are asked on this item
    answers: dict[tuple[str, str], dict] = field(default_factory=dict)   # (kind, key) -> latest live data


def refuse(message: str, fld: str, status: int = 400, code: str = "invalid_field") -> ServiceError:
    return ServiceError(code, message, status, {"field": fld})


def _obj(data: Any, fld: str = "data") -> dict:
    if not isinstance(data, dict):
        raise refuse(f"{fld} must be a JSON object", fld)
    return data


def _clean_text(value: Any, fld: str, max_len: int) -> str:
    if not isinstance(value, str):
        raise refuse(f"{fld} must be a string", fld)
    if len(value) > max_len:
        raise refuse(f"{fld} is longer than {max_len} characters", fld)
    if any(unicodedata.category(c) == "Cc" and c not in "\n\t\r" for c in value):
        raise refuse(f"{fld} contains control characters", fld)
    return value


def check_questionnaire(questions: tuple[Question, ...], data: Any, where: str) -> dict:
    """Any subset of the questions' answers (``None`` for not answered), each checked."""
    data = _obj(data)
    by_id = {q.id: q for q in questions}
    out: dict[str, Any] = {}
    for name, value in data.items():
        fld = f"data.{name}"
        q = by_id.get(name)
        if q is None:
            raise refuse(f"{where} has no question {name!r} (known: {', '.join(by_id)})", fld)
        if value is None:
            continue
        if q.type == SCALE:
            if isinstance(value, bool) or not isinstance(value, int) or value not in q.values:
                raise refuse(f"{where}, question {q.number}: {name} must be an integer from 1 to 5", fld)
        elif q.type == CHOICE:
            if not isinstance(value, str) or value not in q.values:
                raise refuse(f"{where}, question {q.number}: {name} must be one of "
                             f"{', '.join(map(str, q.values))}", fld)
        elif q.type == TEXT:
            value = _clean_text(value, fld, q.max_len)
        out[name] = value
    return out


def missing_answers(questions: tuple[Question, ...], data: dict | None) -> list[Question]:
    """The required questions without an answer (text: blank counts as none)."""
    data = data or {}
    out = []
    for q in questions:
        if not q.required:
            continue
        v = data.get(q.id)
        if v is None or (q.type == TEXT and not str(v).strip()):
            out.append(q)
    return out


def _label(key: str, fld: str = "key") -> str:
    if key not in LABELS:
        raise refuse(f"{fld} must be \"1\" or \"2\" (Translation 1 or 2)", fld)
    return key


def _int(data: dict, name: str, lo: int, hi: int) -> int:
    v = data.get(name)
    if isinstance(v, bool) or not isinstance(v, int):
        raise refuse(f"{name} must be an integer", f"data.{name}")
    if not lo <= v <= hi:
        raise refuse(f"{name} must be between {lo} and {hi}", f"data.{name}")
    return v


def _only(data: dict, allowed: tuple[str, ...]) -> None:
    extra = sorted(set(data) - set(allowed))
    if extra:
        raise refuse(f"unknown field {extra[0]!r} (allowed: {', '.join(allowed)})", f"data.{extra[0]}")


def out_of_turn(message: str, fld: str = "kind") -> ServiceError:
    return refuse(message, fld, 409, "out_of_turn")


def _needs_stage(ctx: Context, stage: str, kind: str) -> None:
    if ctx.stage != stage:
        raise out_of_turn(f"{kind} answers belong to the {stage} stage; this item is in the {ctx.stage} stage")


def _chunk_index(ctx: Context, key: str) -> int:
    if not is_ascii_int(key) or not 1 <= int(key) <= len(ctx.chunks) or key != str(int(key)):
        raise refuse(f"key must be a chunk number from 1 to {len(ctx.chunks)}", "key")
    return int(key) - 1


def check(ctx: Context, kind: str, key: str, data: Any) -> dict:
    """The data to store for this answer, or a ServiceError naming the field."""
    if kind == "passphrase":
        data = _obj(data)
        _only(data, ("passphrase",))
        if ctx.passphrase is None:
            raise refuse("this study has no passphrase", "kind")
        given = _clean_text(data.get("passphrase", ""), "data.passphrase", 200)
        if _fold(given) != _fold(ctx.passphrase):
            raise refuse("that is not the study's passphrase (it is in the guidelines)", "data.passphrase",
                         code="wrong_passphrase")
        return {"accepted": True}

    if ctx.passphrase is not None and not ctx.answers.get(("passphrase", "")):
        raise refuse("enter the study's passphrase first", "kind", 403, "passphrase_required")

    if kind == "step":
        _needs_stage(ctx, "immersive", kind)
        if key != "immersive":
            raise refuse('key must be "immersive"', "key")
        data = _obj(data)
        _only(data, ("step",))
        step = _int(data, "step", 0, len(STEPS) - 1)
        if step > ctx.step + 1:
            raise out_of_turn(f"one step at a time: this item is at step {ctx.step + 1} of {len(STEPS)}",
                              "data.step")
        if step < ctx.step:
            raise out_of_turn("the reading moves forward only: an earlier step cannot be reopened", "data.step")
        if step > ctx.step:
            _check_step_done(ctx, ctx.step)
        return {"step": step}

    if kind == "position":
        label = _label(key)
        data = _obj(data)
        _only(data, ("para", "furthest"))
        if ctx.stage != "immersive":
            # a bookmark sent late (a page left open while the stage moved on): kept, harmless
            para, furthest = _int(data, "para", 0, 10**6), _int(data, "furthest", 0, 10**6)
            return {"para": para, "furthest": max(furthest, para)}
        n = ctx.paragraphs.get(label, 0)
        para = _int(data, "para", 0, max(n - 1, 0))
        furthest = _int(data, "furthest", 0, max(n - 1, 0))
        return {"para": para, "furthest": max(furthest, para)}

    if kind == "single":
        _needs_stage(ctx, "immersive", kind)
        label = _label(key)
        allowed = QUESTIONS_1 if label == "1" else QUESTIONS_2
        if ctx.step != allowed:
            raise out_of_turn(f"the questions about Translation {label} are answered right after reading it "
                              "and cannot be changed later")
        return check_questionnaire(SINGLE, data, f"the questions about Translation {label}")

    if kind == "compare":
        _needs_stage(ctx, "immersive", kind)
        if key:
            raise refuse('key must be ""', "key")
        if ctx.step != COMPARE_STEP:
            raise out_of_turn("the comparison questions come after both readings")
        return check_questionnaire(COMPARE, data, "the comparison questions")

    if kind == "chunk":
        _needs_stage(ctx, "close", kind)
        _chunk_index(ctx, key)
        return check_questionnaire(CHUNK, data, f"chunk {key}")

    if kind == "highlight":
        _needs_stage(ctx, "close", kind)
        chunk = ctx.chunks[_chunk_index(ctx, key)]
        data = _obj(data)
        _only(data, ("side", "start", "end", "label", "text"))
        side = data.get("side")
        if side not in LABELS:
            raise refuse('side must be "1" or "2" (T1 or T2)', "data.side")
        text = chunk[side]
        start = _int(data, "start", 0, len(text))
        end = _int(data, "end", 0, len(text))
        if end <= start:
            raise refuse("end must be after start", "data.end")
        if end - start > MAX_HIGHLIGHT_CHARS:
            raise refuse(f"a highlight is at most {MAX_HIGHLIGHT_CHARS} characters", "data.end")
        label = data.get("label")
        if label not in HIGHLIGHT_LABELS:
            raise refuse('label must be "good" or "poor"', "data.label")
        span = text[start:end]
        if not span.strip():
            raise refuse("a highlight must cover some words, not only spaces", "data.start")
        if "text" in data and data["text"] != span:
            raise refuse("text does not match the displayed chunk at start..end", "data.text")
        return {"side": side, "start": start, "end": end, "label": label, "text": span}

    if kind == "post":
        _needs_stage(ctx, "post", kind)
        if key:
            raise refuse('key must be ""', "key")
        if not ctx.post_here:
            raise out_of_turn("the post-study questions are asked on your last book")
        return check_questionnaire(POST, data, "the post-study questions")

    raise refuse(f"a reader study takes no {kind!r} answers", "kind")


def _fold(s: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", s).casefold().split())


def _check_step_done(ctx: Context, step: int) -> None:
    """What must be done before leaving ``step``."""
    if step in (READ_1, READ_2):
        label = "1" if step == READ_1 else "2"
        pos = ctx.answers.get(("position", label)) or {}
        n = ctx.paragraphs.get(label, 0)
        if n and pos.get("furthest", -1) < n - 1:
            raise out_of_turn(f"read Translation {label} to the end first", "data.step")
    elif step in (QUESTIONS_1, QUESTIONS_2):
        label = "1" if step == QUESTIONS_1 else "2"
        missing = missing_answers(SINGLE, ctx.answers.get(("single", label)))
        if missing:
            raise out_of_turn(f"answer question {missing[0].number} about Translation {label} first "
                              f"({missing[0].text})", "data.step")
