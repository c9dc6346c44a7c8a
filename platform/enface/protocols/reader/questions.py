"""The reader study's questionnaires, as data, in the words of the LAIT paper (Appendix D).

* :data:`SINGLE` — Table 16, asked after reading each version on its own (Q1–Q8).
* :data:`COMPARE` — Table 17, asked once after both readings (Q1–Q7).
* :data:`CHUNK` — Table 18, the four steps of each chunk pair in close reading.
* :data:`POST` — Table 29, the post-study questions after all of a reader's books. Q2's
  wording depends on the reader's answers ("You {correctly/incorrectly} identified the
  AI-translated version of Book 1, ..."), see :func:`post_questions`.

Ordinal scales are coded 1–5 from the most negative option to the most positive one, as
printed. Choice answers are coded with short stable values ("1", "2", "none", ...); the
labels are what the reader sees. "1" and "2" here are *presentation* labels: in immersive
reading Translation 1 is the version read first; in close reading T1 is the left column of
that chunk. The protocol maps them back to the campaign's versions in its exports.

Nothing here names a system or a team. "human-translated" and "machine-translated" appear
only as the answer options of the origin guess (Table 16, Q7), as in the paper.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The answer types: an ordinal 5-point scale (values 1..5), a single choice, free text.
SCALE, CHOICE, TEXT = "scale", "choice", "text"


@dataclass(frozen=True)
class Question:
    id: str                 # the answer's key in the stored data and the exports
    number: int             # as printed in the paper's table
    text: str
    help: str = ""          # the second sentence the paper prints under the question
    type: str = SCALE
    options: tuple[tuple[str | int, str], ...] = ()
    required: bool = True
    tag: str = ""           # the short label the paper prints in brackets ("Dialogue")
    max_len: int = 5000     # free text only

    @property
    def values(self) -> tuple[str | int, ...]:
        return tuple(v for v, _label in self.options)

    def label_of(self, value) -> str:
        return next((lab for v, lab in self.options if v == value), "")

    def to_json(self) -> dict:
        return {"id": self.id, "number": self.number, "text": self.text, "help": self.help, "type": self.type,
                "options": [{"value": v, "label": lab} for v, lab in self.options],
                "required": self.required, "tag": self.tag, "max_len": self.max_len}


def _scale(*labels: str) -> tuple[tuple[int, str], ...]:
    assert len(labels) == 5
    return tuple((i + 1, lab) for i, lab in enumerate(labels))


CONFIDENCE = _scale("not at all confident", "slightly confident", "moderately confident", "very confident",
                    "extremely confident")

# --------------------------------------------------------------------------- Table 16: single reading

SINGLE: tuple[Question, ...] = (
    Question("acceptability", 1,
             "How acceptable did this translation feel overall as a published version of the book?",
             "Please think about your overall impression of this version as a published translation.",
             options=_scale("completely unacceptable", "somewhat unacceptable", "acceptable with some issues",
                            "mostly acceptable", "fully acceptable")),
    Question("smoothness", 2, "How smooth was this text to read?",
             "Please think about how naturally and clearly the sentences flowed while you were reading.",
             options=_scale("very unsmooth", "somewhat unsmooth", "neutral", "somewhat smooth", "very smooth")),
    Question("immersion", 3, "To what extent did the wording and style help you stay immersed in the story?",
             "Please think about whether the wording and style helped you stay absorbed in the story, "
             "or pulled you out of it.",
             options=_scale("interfered a lot with immersion", "interfered somewhat", "made little difference",
                            "supported immersion somewhat", "supported immersion a lot")),
    Question("continue", 4, "Would you want to continue reading the book in this version?",
             "If you were to continue reading, would you be willing to continue this version given its "
             "wording and style?",
             options=_scale("definitely not", "probably not", "not sure", "probably yes", "definitely yes")),
    Question("positive", 5, "What, if anything, stood out positively in the wording or style of this version?",
             type=TEXT),
    Question("negative", 6, "What, if anything, stood out negatively in the wording or style of this version?",
             type=TEXT),
    Question("origin", 7, "Do you think this version was…", type=CHOICE,
             options=(("human", "human-translated"), ("machine", "machine-translated"))),
    Question("origin_confidence", 8, "How confident are you in that guess?", "(Regarding Question 7)",
             options=CONFIDENCE),
)

# --------------------------------------------------------------------------- Table 17: comparison

_VERSIONS_OR_NONE = (("1", "Translation 1"), ("2", "Translation 2"), ("none", "No meaningful difference"))

COMPARE: tuple[Question, ...] = (
    Question("dialogue", 1, "Which translation handled dialogue better overall?", type=CHOICE,
             options=_VERSIONS_OR_NONE, tag="Dialogue"),
    Question("word_choice", 2, "Which translation’s word choice felt more varied and/or expressive?", type=CHOICE,
             options=_VERSIONS_OR_NONE, tag="Word choice"),
    Question("continue_choice", 3, "Which translation would you prefer to continue reading more?", type=CHOICE,
             options=(("1-clearly", "Translation 1 (clearly better)"), ("1-slightly", "Translation 1 (slightly better)"),
                      ("2-slightly", "Translation 2 (slightly better)"), ("2-clearly", "Translation 2 (clearly better)"))),
    Question("continue_why", 4, "Why? Please motivate your choice in 3–5 sentences.",
             "Tell us why you would prefer the translation you selected. How was it better than the other one? "
             "Use T1 to refer to Translation 1 and T2 to refer to Translation 2.", type=TEXT),
    Question("ai_version", 5, "Which version is more likely to be AI-translated?", type=CHOICE,
             options=(("1", "Translation 1"), ("2", "Translation 2"))),
    Question("ai_confidence", 6, "How confident are you in that choice?", "(Regarding Question 5)",
             options=CONFIDENCE),
    Question("ai_why", 7, "Why do you think it is more likely to be AI-translated? "
             "What are the indicators that make you think so?", type=TEXT),
)

# --------------------------------------------------------------------------- Table 18: close reading, per chunk

HIGHLIGHT_LABELS = (("good", "Good"), ("poor", "Poor"))

CHUNK_HIGHLIGHT = Question(
    "highlights", 1, "Step 1. Highlight wording quality",
    "Read both translations and mark phrases that sound especially good or poor. Select text, then choose a "
    "label in the popover. Click an existing highlight to remove it.", type="span", options=HIGHLIGHT_LABELS,
    required=False)

CHUNK: tuple[Question, ...] = (
    Question("preference", 2, "Step 2. Which translation do you prefer?", type=CHOICE,
             options=(("1", "T1"), ("2", "T2"))),
    Question("justification", 3, "Step 3. Explain your choice (refer to translations as T1 and T2).", type=TEXT),
    Question("difficulty", 4, "Step 4. Was this choice difficult?", type=CHOICE,
             options=(("significantly_better", "No, because the translation I chose was significantly better."),
                      ("better", "No, because the translation I chose was better."),
                      ("similar", "Yes, because both translations were of similar quality."))),
)

# --------------------------------------------------------------------------- Table 29: post-study

POST_Q2 = "You {verdicts}. Are you surprised by your accuracy?"

POST: tuple[Question, ...] = (
    Question("expectations", 1,
             "What were your expectations for the quality of AI translation before starting this experiment?",
             type=TEXT),
    Question("accuracy", 2, POST_Q2, type=TEXT),
    Question("opinion", 3, "What do you think about the quality of AI translation now, after reading the translation?",
             type=TEXT),
    Question("comments", 4, "Any other comments?", type=TEXT, required=False),
)


@dataclass
class BookVerdict:
    """Whether a reader picked the machine translation as "more likely AI-translated" (Table 17, Q5)."""

    book: int                        # 1, 2, ...: the reader's own numbering of their books
    correct: bool | None             # None: the pair had no single machine translation to find


def _verdict_phrase(v: BookVerdict) -> str:
    if v.correct is None:
        return f"could not have identified a single AI-translated version of Book {v.book}"
    return f"{'correctly' if v.correct else 'incorrectly'} identified the AI-translated version of Book {v.book}"


def accuracy_question(verdicts: list[BookVerdict]) -> str:
    """Table 29's Q2 with the reader's own result filled in (the paper prints it for two books)."""
    phrases = [_verdict_phrase(v) for v in verdicts]
    if not phrases:
        joined = "finished the study"
    elif len(phrases) == 1:
        joined = phrases[0]
    else:
        joined = ", ".join(phrases[:-1]) + ", and " + phrases[-1]
    return POST_Q2.format(verdicts=joined)


def post_questions(verdicts: list[BookVerdict]) -> list[dict]:
    out = []
    for q in POST:
        d = q.to_json()
        if q.id == "accuracy":
            d["text"] = accuracy_question(verdicts)
        out.append(d)
    return out


def questionnaires_json() -> dict:
    """Every questionnaire, for the item page and the guidelines."""
    return {"single": [q.to_json() for q in SINGLE], "compare": [q.to_json() for q in COMPARE],
            "chunk": [CHUNK_HIGHLIGHT.to_json()] + [q.to_json() for q in CHUNK],
            "post": [q.to_json() for q in POST]}


BY_KIND: dict[str, tuple[Question, ...]] = {"single": SINGLE, "compare": COMPARE, "chunk": CHUNK, "post": POST}
