"""Welcome forms as data: consent and entry questionnaires defined in a JSON file, shown before the first item.

A form file::

    {"title": "...", "intro": "...",
     "questions": [{"id": "consent", "type": "consent", "text": "...", "required": true},
                   {"id": "age", "type": "choice", "text": "...", "options": ["18-25", "..."], "other": false},
                   ...]}

Question types: ``info`` (text only, no answer), ``consent`` (must be agreed to: no work without it),
``choice`` (one option; ``other: true`` adds a free-text "Other"), ``multi`` (any options), ``text``
(``max_length``), ``number`` (``min``, ``max``), ``date``. ``required`` defaults to true for consent,
false otherwise. ``private`` keeps a question's answers out of the public release (the organizer's
exports still hold them); it defaults to true for ``text`` questions (a name, an id, an address),
false otherwise. The organizer's file and the annotator's answers are both checked here; a
mistake is a :class:`~enface.services.ServiceError` naming the question, never a crash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from ..campaigns.services import bad
from ..safejson import JSONInputError, loads
from ..services.accounts import check_text

TYPES = ("info", "consent", "choice", "multi", "text", "number", "date")
ID_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_QUESTIONS = 100
MAX_OPTIONS = 50
MAX_TEXT = 4000
OTHER = "__other__"
#: The ready forms shipped with Enface (``--welcome lait``): name -> file in this package.
READY_FORMS = {"lait": "lait.json"}


@dataclass(frozen=True)
class Question:
    id: str
    type: str
    text: str
    title: str = ""
    options: tuple[str, ...] = ()
    other: bool = False
    required: bool = False
    min: float | None = None
    max: float | None = None
    max_length: int = 1000
    private: bool = False     # its answers stay out of the release bundle

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "type": self.type, "text": self.text, "required": self.required}
        if self.title:
            out["title"] = self.title
        if self.options:
            out["options"] = list(self.options)
        if self.other:
            out["other"] = True
        if self.type == "number":
            out["min"], out["max"] = self.min, self.max
        if self.type == "text":
            out["max_length"] = self.max_length
        if self.private != (self.type == "text"):     # (only when it is not the default)
            out["private"] = self.private
        return out


@dataclass(frozen=True)
class WelcomeForm:
    title: str
    intro: str
    questions: tuple[Question, ...] = field(default_factory=tuple)

    @property
    def consents(self) -> list[Question]:
        return [q for q in self.questions if q.type == "consent"]

    @property
    def answerable(self) -> list[Question]:
        return [q for q in self.questions if q.type != "info"]

    @property
    def public(self) -> list[Question]:
        """The answerable questions whose answers the release may show."""
        return [q for q in self.answerable if not q.private]

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "intro": self.intro, "questions": [q.to_json() for q in self.questions]}


def _fail(message: str, where: str) -> Exception:
    return bad("invalid_welcome_form", f"welcome form: {where}: {message}", 400, field="welcome")


def _text(value: Any, where: str, *, max_len: int, required: bool) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise _fail("must be a string", where)
    value = value.strip()
    if required and not value:
        raise _fail("is required", where)
    if len(value) > max_len:
        raise _fail(f"is longer than {max_len} characters", where)
    return value


def _bound(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise _fail("must be a number", where)
    return float(value)


def parse_form(data: Any) -> WelcomeForm:
    """The organizer's form (parsed JSON), checked."""
    if not isinstance(data, dict):
        raise _fail("the file must hold a JSON object with a list of questions", "file")
    questions = data.get("questions")
    if not isinstance(questions, list) or not questions:
        raise _fail("needs a non-empty list", "questions")
    if len(questions) > MAX_QUESTIONS:
        raise _fail(f"at most {MAX_QUESTIONS} questions", "questions")
    seen: set[str] = set()
    out = []
    for n, q in enumerate(questions, 1):
        where = f"question {n}"
        if not isinstance(q, dict):
            raise _fail("must be an object", where)
        qid = q.get("id")
        if not isinstance(qid, str) or not ID_RE.match(qid):
            raise _fail("id must be lower-case letters, digits and _ (starting with a letter, at most 40)", where)
        where = f"question {qid!r}"
        if qid in seen:
            raise _fail("the id is used twice", where)
        seen.add(qid)
        kind = q.get("type")
        if kind not in TYPES:
            raise _fail(f"type must be one of {', '.join(TYPES)}", where)
        options: tuple[str, ...] = ()
        if kind in ("choice", "multi"):
            raw = q.get("options")
            if not isinstance(raw, list) or not raw or len(raw) > MAX_OPTIONS:
                raise _fail(f"needs a list of 1 to {MAX_OPTIONS} options", where)
            options = tuple(_text(o, f"{where}, option {i}", max_len=300, required=True) for i, o in enumerate(raw, 1))
            if len(set(options)) != len(options):
                raise _fail("an option is listed twice", where)
        required = q.get("required", kind == "consent")
        if not isinstance(required, bool):
            raise _fail("required must be true or false", where)
        if kind == "consent" and not required:
            raise _fail("a consent question is always required", where)
        lo, hi = _bound(q.get("min"), f"{where}, min"), _bound(q.get("max"), f"{where}, max")
        if lo is not None and hi is not None and lo > hi:
            raise _fail("min is above max", where)
        max_length = q.get("max_length", 1000)
        if isinstance(max_length, bool) or not isinstance(max_length, int) or not 1 <= max_length <= MAX_TEXT:
            raise _fail(f"max_length must be a whole number from 1 to {MAX_TEXT}", where)
        other = q.get("other", False)
        if not isinstance(other, bool) or (other and kind != "choice"):
            raise _fail("other (a free-text option) is true or false, and only for a choice", where)
        private = q.get("private", kind == "text")
        if not isinstance(private, bool):
            raise _fail("private must be true or false", where)
        out.append(Question(id=qid, type=kind, text=_text(q.get("text"), f"{where}, text", max_len=MAX_TEXT * 2,
                                                          required=True),
                            title=_text(q.get("title"), f"{where}, title", max_len=200, required=False),
                            options=options, other=other, required=required and kind != "info",
                            min=lo, max=hi, max_length=max_length, private=private))
    return WelcomeForm(title=_text(data.get("title"), "title", max_len=200, required=False) or "Before you start",
                       intro=_text(data.get("intro"), "intro", max_len=MAX_TEXT * 2, required=False),
                       questions=tuple(out))


def load_form(text_or_name: str | bytes) -> WelcomeForm:
    """A form from a file's text, or a ready form by name (``lait``)."""
    if isinstance(text_or_name, str) and text_or_name.strip() in READY_FORMS:
        text_or_name = (Path(__file__).parent / "forms" / READY_FORMS[text_or_name.strip()]).read_text("utf-8")
    try:
        data = loads(text_or_name)
    except JSONInputError as exc:
        raise _fail(exc.message, "file") from None
    return parse_form(data)


def form_from_json(data: dict) -> WelcomeForm:
    """A stored form (checked when it was stored) back as a dataclass."""
    return parse_form(data)


def check_answers(form: WelcomeForm, posted) -> dict[str, Any]:
    """The annotator's answers from a posted form (a MultiDict: ``q_<id>``, lists for multi), checked.

    Returns {question id: answer}; raises a 400 naming the first question answered wrongly. A consent
    not given is refused with its own code (``consent_required``): no work without it.
    """
    answers: dict[str, Any] = {}
    for q in form.answerable:
        name = f"q_{q.id}"
        if q.type == "multi":
            values = [v for v in posted.getlist(name) if v != ""]
            unknown = [v for v in values if v not in q.options]
            if unknown:
                raise _answer(q, "choose among the options shown")
            if q.required and not values:
                raise _answer(q, "choose at least one option")
            answers[q.id] = [o for o in q.options if o in values]
            continue
        raw = posted.get(name, "")
        if not isinstance(raw, str):
            raise _answer(q, "is not a text")
        raw = raw.strip()
        if q.type == "consent":
            if raw != "yes":
                raise bad("consent_required", f"{q.title or 'Consent'}: you can take part only after agreeing; "
                          "if you do not wish to take part, you may close this page", 400, field=name)
            answers[q.id] = "yes"
            continue
        if not raw:
            if q.required:
                raise _answer(q, "is required")
            answers[q.id] = None
            continue
        if q.type == "choice":
            if raw == OTHER and q.other:
                other = check_text(posted.get(f"{name}_other", ""), _label(q), max_len=300)
                answers[q.id] = {"other": other}
            elif raw in q.options:
                answers[q.id] = raw
            else:
                raise _answer(q, "choose one of the options shown")
        elif q.type == "text":
            answers[q.id] = check_text(raw, _label(q), max_len=q.max_length, multiline=True)
        elif q.type == "number":
            try:
                x = float(raw)
            except ValueError:
                raise _answer(q, "must be a number") from None
            if x != x or (q.min is not None and x < q.min) or (q.max is not None and x > q.max):
                raise _answer(q, f"must be a number between {_num(q.min)} and {_num(q.max)}")
            answers[q.id] = int(x) if x.is_integer() else x
        elif q.type == "date":
            try:
                answers[q.id] = date.fromisoformat(raw).isoformat()
            except ValueError:
                raise _answer(q, "must be a date (YYYY-MM-DD)") from None
    return answers


def _label(q: Question) -> str:
    return q.title or (q.text if len(q.text) <= 60 else q.text[:57] + "…")


def _num(x: float | None) -> str:
    if x is None:
        return "any"
    return str(int(x)) if float(x).is_integer() else str(x)


def _answer(q: Question, message: str) -> Exception:
    return bad("invalid_answer", f"{_label(q)}: {message}", 400, field=f"q_{q.id}")
