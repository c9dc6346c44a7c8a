"""What a reader's page receives (blind: presentation labels only, until the final feedback)."""

from __future__ import annotations

from typing import Any

from flask import has_request_context, url_for
from flask_login import current_user

from ...campaigns.models import Assignment
from ...campaigns.services import stage_opens_at
from . import answers as ans
from .design import (
    DEFAULTS,
    STAGE_TITLES,
    STAGES,
    VERSIONS,
    chunk_sides,
    default_guidelines,
    lock_phrase,
    reading_order,
)
from .display import NORMALISATION, paragraphs
from .questions import CHUNK, BookVerdict, post_questions, questionnaires_json
from .responses import answer_data, immersive_step, live, live_highlights, passphrase_accepted, siblings
from .stages import words_of
from .texts import chunk_texts, item_texts, version_kind

RTL = ("ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv")


def _versions_feedback(asg: Assignment) -> dict | None:
    """The final feedback for one book: did the reader pick the system version as the AI-translated one?"""
    vs = {str(iv.slot): iv.version for iv in asg.item.versions}
    kinds = {k: version_kind(v) for k, v in vs.items()}
    order = reading_order(asg.plan)
    guess = answer_data(live(asg), "compare", "").get("ai_version")
    title = asg.item.document.name
    systems = [label for label in VERSIONS if kinds[order[label]] == "system"]
    if len(systems) == 1:
        mt = systems[0]
        ht = "2" if mt == "1" else "1"
        if guess is None:
            correct = None
            text = (f"Translation {mt} was machine-translated and Translation {ht} was a human translation.")
        else:
            correct = guess == mt
            if correct:
                text = (f"You identified the machine translation correctly: Translation {mt}, which you chose as "
                        f"more likely AI-translated, was machine-translated; Translation {ht} was a human "
                        "translation.")
            else:
                text = (f"You did not identify the machine translation: you chose Translation {guess} as more "
                        f"likely AI-translated, but it was a human translation; Translation {mt} was "
                        "machine-translated.")
        return {"book": asg.number, "title": title, "correct": correct, "text": text, "machine": mt}
    both = "machine-translated" if systems else "human translations"
    return {"book": asg.number, "title": title, "correct": None, "machine": None,
            "text": f"Both translations of this book were {both}: there was no single machine translation to find."}


def post_state(asg: Assignment, books: list[Assignment]) -> dict:
    waiting = [b for b in books if b.id != asg.id and b.stage < 2 and b.state != "finished"]
    feedback = [] if waiting else [_versions_feedback(b) for b in books]
    verdicts = [BookVerdict(f["book"], f["correct"]) for f in feedback]
    return {"waiting_for": [{"number": b.number, "url": url_for("annotate.item", public_id=b.public_id)}
                            for b in waiting],
            "questions": post_questions(verdicts), "answers": answer_data(live(asg), "post", ""),
            "feedback": feedback}


def _guidelines(asg: Assignment, texts: dict[str, list[str]], lock_hours: float) -> str:
    """The study's guidelines; the default ones with the times estimated from this book's length."""
    campaign = asg.item.campaign
    stored = campaign.setting("guidelines", "") or ""
    chunk_words = int(campaign.setting("chunk_words", DEFAULTS["chunk_words"]))
    if stored.split() != default_guidelines(lock_hours, chunk_words).split():
        return stored   # the organizer's own text
    return default_guidelines(lock_hours, chunk_words, words=max(words_of(asg, texts).values()))


def item_state(asg: Assignment, *, readonly: bool) -> dict[str, Any]:
    campaign = asg.item.campaign
    books = siblings(asg)
    found = live(asg)
    stage = STAGES[min(asg.stage, len(STAGES) - 1)]
    finished = asg.state == "finished"
    readonly = readonly or campaign.state != "open" or finished
    lang = campaign.testset.tgt_lang
    texts = item_texts(asg.item)
    order = reading_order(asg.plan)
    step = immersive_step(found)
    opens_at = stage_opens_at(asg)
    lock_hours = float(campaign.setting("lock_hours", 24.0))
    nxt = next((b for b in books if b.state != "finished" and b.id != asg.id), None)

    state: dict[str, Any] = {
        "protocol": "reader",
        "item": {"id": asg.public_id, "number": asg.number, "total": len(books), "title": asg.item.document.name,
                 "finished": finished},
        "stage": "done" if finished else stage,
        "stage_index": asg.stage,
        "stage_title": "Complete" if finished else STAGE_TITLES[stage],
        "readonly": readonly,
        "lang": lang,
        "dir": "rtl" if lang.split("-")[0].lower() in RTL else "ltr",
        "guidelines": _guidelines(asg, texts, lock_hours),
        "normalisation": NORMALISATION,
        "questions": questionnaires_json(),
        "times": dict(asg.times or {}),
        "responses": {f"{k[0]}:{k[1]}": {"uuid": r.uuid, "rev": r.rev, "data": r.data}
                      for k, r in found.items() if k[0] != "passphrase"},
        "first_visit": not found and not asg.times,
        "lock_text": (f"Part 2 opens {lock_phrase(lock_hours)} after you finish Part 1. Your answers become final."
                      if lock_hours > 0 else "Your answers become final; Part 2 opens right away."),
        "immersive": None, "close": None, "post": None, "locked": None,
        "urls": {"api": url_for("annotate.api_item", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt else None,
                 "js": url_for("reader.static", filename="reader.js"),
                 "css": url_for("reader.static", filename="reader.css")},
    }

    if finished:
        state["view"] = "done"
        if asg.plan.get("post"):
            state["post"] = post_state(asg, books)
        return state
    # Someone else than the reader (an organizer) sees the reader's page as it stands, read-only.
    viewer_is_reader = has_request_context() and current_user.is_authenticated \
        and current_user.id == asg.annotator.user_id
    if viewer_is_reader and not readonly and not passphrase_accepted(asg, books):
        state["view"] = "passphrase"
        return state
    if opens_at is not None and viewer_is_reader:
        state["view"] = "locked"
        state["locked"] = {"opens_at": opens_at.isoformat(), "opens_at_text": f"{opens_at:%Y-%m-%d %H:%M} UTC",
                           "title": f"Part 2 of Book {asg.number} is not open yet",
                           "why": f"Part 2 (close reading) opens {lock_phrase(lock_hours)} after you finished Part 1, so "
                                  "that you come back to the texts with fresh eyes. Nothing you saved is lost."}
        return state

    if stage == "immersive":
        label = "1" if step <= ans.QUESTIONS_1 else "2"
        state["view"] = {ans.READ_1: "read", ans.QUESTIONS_1: "questions", ans.READ_2: "read",
                         ans.QUESTIONS_2: "questions"}.get(step, "compare")
        im = {"step": step, "steps": list(ans.STEPS), "label": label, "paragraphs": [],
              "single": answer_data(found, "single", label), "compare": answer_data(found, "compare", "")}
        if step < ans.COMPARE_STEP:
            im["paragraphs"] = paragraphs(texts[order[label]])
        state["immersive"] = im
    elif stage == "close":
        state["view"] = "close"
        per_chunk = chunk_texts(asg.plan, texts)
        chunks = []
        for n, c in enumerate(per_chunk, 1):
            sides = chunk_sides(asg.plan, n)
            r = found.get(("chunk", str(n)))
            chunks.append({"n": n, "texts": {side: c[v] for side, v in sides.items()},
                           "answer": {"uuid": r.uuid, "rev": r.rev, "data": r.data} if r is not None else None})
        state["close"] = {"chunks": chunks, "highlights": [
            {"uuid": r.uuid, "rev": r.rev, "chunk": int(r.key), **r.data} for r in live_highlights(asg)]}
    else:
        if not asg.plan.get("post"):
            state["view"] = "post_elsewhere"
        else:
            state["post"] = post_state(asg, books)
            state["view"] = "post_wait" if state["post"]["waiting_for"] else "post"
    return state


def list_status(asg: Assignment) -> dict[str, Any]:
    if asg.state == "finished":
        return {"text": "finished", "locked": False, "opens_at": None}
    opens = stage_opens_at(asg)
    if opens is not None:
        return {"text": "Part 2 opens", "locked": True, "opens_at": opens}
    stage = STAGES[min(asg.stage, 2)]
    found = live(asg)
    if stage == "immersive":
        step = immersive_step(found)
        text = ("Part 1: not started" if asg.state == "pending" else
                f"Part 1: {['reading Translation 1', 'questions on Translation 1', 'reading Translation 2', 'questions on Translation 2', 'comparing'][step]}")
    elif stage == "close":
        n = len(asg.plan.get("chunks", []))
        done = sum(1 for k in range(1, n + 1) if not ans.missing_answers(CHUNK, answer_data(found, "chunk", str(k))))
        text = f"Part 2: {done} of {n} chunks"
    else:
        text = "final questions" if asg.plan.get("post") else "Part 2 done"
    return {"text": text, "locked": False, "opens_at": None}
