"""The reader study on the campaign core: texts, the reader's page state, checks, exports, progress, results.

Blindness: :func:`item_state` is all a reader receives. It holds the item's opaque id, its
per-reader number, the document's name, the texts this reader may see *now* keyed by
presentation label ("Translation 1" = read first; "T1" = a chunk's left column) and the
reader's own answers. Never a system, a team, a submission, a campaign version number or
whether a version is a reference, until the final feedback after the reader's last book.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from typing import Any

from flask import has_request_context, url_for
from flask_login import current_user
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from humaneval.reader_design import counterbalance

from ...campaigns import clock
from ...campaigns.models import Assignment, Campaign, CampaignAnnotator, CampaignVersion, Item
from ...campaigns.services import bad, stage_opens_at, version_labels
from ...extensions import db
from ...models import OutputSegment, Segment
from ...services import ServiceError
from . import answers as ans
from .design import VERSIONS, chunk_sides, reading_order
from .display import NORMALISATION, chunk_text, count_words, paragraphs
from .questions import CHUNK, COMPARE, POST, SINGLE, BookVerdict, post_questions, questionnaires_json

MAX_CONFLICT_TRIES = 200
STAGES = ("immersive", "close", "post")
STAGE_TITLES = {"immersive": "Part 1 · Immersive reading", "close": "Part 2 · Close reading",
                "post": "Final questions"}
RTL = ("ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv")


# --------------------------------------------------------------------------- versions and texts


def campaign_versions(campaign: Campaign) -> dict[str, CampaignVersion]:
    """{"1": the first chosen version, "2": the second} (refused unless there are exactly two)."""
    vs = list(campaign.versions)
    if len(vs) != 2:
        raise bad("two_versions", f"a reader study compares exactly two versions; this campaign has {len(vs)}: "
                  "choose two (by default reference 1 and one system)", 409)
    return {"1": vs[0], "2": vs[1]}


def version_kind(v: CampaignVersion) -> str:
    return "reference" if v.reference is not None else "system"


def version_texts(v: CampaignVersion, document_id: int, start: int, end: int) -> list[str] | None:
    """Segments ``start`` .. ``end - 1`` of one version of a document, or None when one is missing."""
    if v.reference is not None:
        col = Segment.ref1 if v.reference == 1 else Segment.ref2
        rows = db.session.execute(select(Segment.position, col).where(
            Segment.document_id == document_id, Segment.position >= start, Segment.position < end)
            .order_by(Segment.position)).all()
        if [p for p, _t in rows] != list(range(start, end)) or any(t is None for _p, t in rows):
            return None
        return [t for _p, t in rows]
    rows = db.session.execute(select(OutputSegment.position, OutputSegment.text).where(
        OutputSegment.submission_id == v.submission_id, OutputSegment.document_id == document_id,
        OutputSegment.position >= start, OutputSegment.position < end).order_by(OutputSegment.position)).all()
    if [p for p, _t in rows] != list(range(start, end)):
        return None
    return [t for _p, t in rows]


def item_texts(item: Item) -> dict[str, list[str]]:
    """{"1": segments of campaign version 1, "2": of version 2} for an item (slots 1 and 2)."""
    out = {}
    for iv in item.versions:
        texts = version_texts(iv.version, item.document_id, item.seg_start, item.seg_end)
        out[str(iv.slot)] = texts or [""] * item.num_segments
    return out


def chunk_texts(plan: dict, texts: dict[str, list[str]]) -> list[dict[str, str]]:
    """Per chunk, the displayed text of each campaign version."""
    return [{k: chunk_text(texts[k][s:e]) for k in VERSIONS} for s, e in plan.get("chunks", [])]


# --------------------------------------------------------------------------- the reader's answers


def live(asg: Assignment) -> dict[tuple[str, str], Any]:
    """{(kind, key): the latest live response} (highlights excluded: there are many per key)."""
    out: dict[tuple[str, str], Any] = {}
    for r in asg.responses:
        if r.deleted or r.kind == "highlight":
            continue
        k = (r.kind, r.key)
        if k not in out or (r.updated_at, r.id) > (out[k].updated_at, out[k].id):
            out[k] = r
    return out


def live_highlights(asg: Assignment) -> list[Any]:
    return sorted((r for r in asg.responses if r.kind == "highlight" and not r.deleted),
                  key=lambda r: (int(r.key), r.data.get("side", ""), r.data.get("start", 0), r.id))


def siblings(asg: Assignment) -> list[Assignment]:
    """All of this reader's books in the campaign (this one included), by number."""
    return list(db.session.scalars(select(Assignment).where(Assignment.annotator_id == asg.annotator_id)
                                   .options(selectinload(Assignment.responses)).order_by(Assignment.number)))


def passphrase_accepted(asg: Assignment, books: list[Assignment] | None = None) -> bool:
    if not asg.item.campaign.setting("passphrase"):
        return True
    return any(r.kind == "passphrase" and not r.deleted for a in (books or siblings(asg)) for r in a.responses)


def immersive_step(found: dict) -> int:
    r = found.get(("step", "immersive"))
    return int(r.data.get("step", 0)) if r is not None else 0


def context(asg: Assignment) -> ans.Context:
    """What :func:`answers.check` needs to judge an answer to this assignment."""
    campaign = asg.item.campaign
    found = live(asg)
    stage = STAGES[min(asg.stage, len(STAGES) - 1)]
    ctx = ans.Context(stage=stage, step=immersive_step(found), post_here=bool(asg.plan.get("post")),
                      passphrase=campaign.setting("passphrase") or None,
                      answers={k: r.data for k, r in found.items()})
    if ctx.passphrase is not None and passphrase_accepted(asg):
        ctx.answers[("passphrase", "")] = {"accepted": True}
    if stage == "immersive":
        texts = item_texts(asg.item)
        order = reading_order(asg.plan)
        ctx.paragraphs = {label: len(paragraphs(texts[order[label]])) for label in VERSIONS}
    elif stage == "close":
        texts = item_texts(asg.item)
        per_chunk = chunk_texts(asg.plan, texts)
        ctx.chunks = [{side: per_chunk[i][v] for side, v in chunk_sides(asg.plan, i + 1).items()}
                      for i in range(len(per_chunk))]
    return ctx


def check_response(asg: Assignment, kind: str, key: str, data: Any) -> dict:
    return ans.check(context(asg), kind, key, data)


# --------------------------------------------------------------------------- finishing stages


def words_of(asg: Assignment, texts: dict[str, list[str]] | None = None) -> dict[str, int]:
    """Displayed words of each campaign version of the item (for reading speeds)."""
    texts = texts or item_texts(asg.item)
    lang = asg.item.campaign.testset.tgt_lang
    return {k: sum(count_words(p, lang) for p in paragraphs(texts[k])) for k in VERSIONS}


def check_finish(asg: Assignment) -> None:
    stage = STAGES[asg.stage]
    found = live(asg)
    times = asg.times or {}
    if stage == "immersive":
        step = immersive_step(found)
        if step < ans.COMPARE_STEP:
            raise bad("incomplete", f"read both translations and answer their questions first (you are at step "
                      f"{step + 1} of {len(ans.STEPS)})", 409, field="step")
        for label in VERSIONS:
            missing = ans.missing_answers(SINGLE, _data(found, "single", label))
            if missing:
                raise bad("incomplete", f"question {missing[0].number} about Translation {label} has no answer",
                          409, field=f"single.{label}.{missing[0].id}")
            if not times.get(f"read:{label}"):
                raise bad("incomplete", f"no reading time was recorded for Translation {label}: reload the page "
                          "and read it", 409, field=f"times.read:{label}")
        missing = ans.missing_answers(COMPARE, _data(found, "compare", ""))
        if missing:
            raise bad("incomplete", f"comparison question {missing[0].number} has no answer", 409,
                      field=f"compare.{missing[0].id}")
    elif stage == "close":
        for n in range(1, len(asg.plan.get("chunks", [])) + 1):
            missing = ans.missing_answers(CHUNK, _data(found, "chunk", str(n)))
            if missing:
                raise bad("incomplete", f"chunk {n}: {missing[0].text.split('. ', 1)[-1]} (no answer yet)", 409,
                          field=f"chunk.{n}.{missing[0].id}", chunk=n)
    elif stage == "post" and asg.plan.get("post"):
        waiting = [b for b in siblings(asg) if b.id != asg.id and b.stage < 2 and b.state != "finished"]
        if waiting:
            raise bad("incomplete", f"finish Part 2 of Book {waiting[0].number} first", 409, field="stage")
        missing = ans.missing_answers(POST, _data(found, "post", ""))
        if missing:
            raise bad("incomplete", f"final question {missing[0].number} has no answer", 409,
                      field=f"post.{missing[0].id}")


def _data(found: dict, kind: str, key: str) -> dict:
    r = found.get((kind, key))
    return r.data if r is not None else {}


def reading_flags(asg: Assignment, threshold: float) -> list[dict]:
    """Readings faster than ``threshold`` words per second (flagged for the organizer, never refused)."""
    flags = []
    # Part 1: called as a stage finishes, so its readings are in from the first stage on
    words = words_of(asg)
    order = reading_order(asg.plan)
    for label in VERSIONS:
        ms = (asg.times or {}).get(f"read:{label}", 0)
        w = words[order[label]]
        speed = w / (ms / 1000) if ms else float("inf")
        if w and speed > threshold:
            flags.append({"stage": "immersive", "version": order[label], "translation": label, "words": w,
                          "ms": ms, "words_per_second": round(speed, 1) if ms else None})
    if asg.stage >= 1:
        texts = item_texts(asg.item)
        lang = asg.item.campaign.testset.tgt_lang
        for n, chunk in enumerate(chunk_texts(asg.plan, texts), 1):
            ms = (asg.times or {}).get(f"chunk:{n}", 0)
            w = sum(count_words(t, lang) for t in chunk.values())
            speed = w / (ms / 1000) if ms else float("inf")
            if w and speed > threshold * 2:   # two versions side by side, skimmed for differences
                flags.append({"stage": "close", "chunk": n, "words": w, "ms": ms,
                              "words_per_second": round(speed, 1) if ms else None})
    return flags


def record_flags(asg: Assignment) -> None:
    """Stores the fast-reading flags in the plan (called when a stage is finished)."""
    threshold = float(asg.item.campaign.setting("fast_words_per_second", 8.0))
    asg.plan = {**asg.plan, "flags": reading_flags(asg, threshold)}


# --------------------------------------------------------------------------- the page


def _versions_feedback(asg: Assignment) -> dict | None:
    """The final feedback for one book: did the reader pick the system version as the AI-translated one?"""
    vs = {str(iv.slot): iv.version for iv in asg.item.versions}
    kinds = {k: version_kind(v) for k, v in vs.items()}
    order = reading_order(asg.plan)
    guess = _data(live(asg), "compare", "").get("ai_version")
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
            "questions": post_questions(verdicts), "answers": _data(live(asg), "post", ""),
            "feedback": feedback}


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
        "guidelines": campaign.setting("guidelines", "") or "",
        "normalisation": NORMALISATION,
        "questions": questionnaires_json(),
        "times": dict(asg.times or {}),
        "responses": {f"{k[0]}:{k[1]}": {"uuid": r.uuid, "rev": r.rev, "data": r.data}
                      for k, r in found.items() if k[0] != "passphrase"},
        "first_visit": not found and not asg.times,
        "lock_text": (f"Part 2 opens {_hours(lock_hours)} after you finish Part 1. Your answers become final."
                      if lock_hours > 0 else "Your answers become final; Part 2 opens right away."),
        "immersive": None, "close": None, "post": None, "locked": None,
        "urls": {"api": url_for("annotate.api_item", public_id=asg.public_id),
                 "list": url_for("annotate.index"),
                 "next": url_for("annotate.item", public_id=nxt.public_id) if nxt else None,
                 "js": url_for("reader.static", filename="reader.js"),
                 "css": url_for("reader.static", filename="reader.css"),
                 "autosave_js": url_for("static", filename="autosave.js")},
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
                           "why": f"Part 2 (close reading) opens {_hours(lock_hours)} after you finished Part 1, so "
                                  "that you come back to the texts with fresh eyes. Nothing you saved is lost."}
        return state

    if stage == "immersive":
        label = "1" if step <= ans.QUESTIONS_1 else "2"
        state["view"] = {ans.READ_1: "read", ans.QUESTIONS_1: "questions", ans.READ_2: "read",
                         ans.QUESTIONS_2: "questions"}.get(step, "compare")
        im = {"step": step, "steps": list(ans.STEPS), "label": label, "paragraphs": [],
              "single": _data(found, "single", label), "compare": _data(found, "compare", "")}
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
        done = sum(1 for k in range(1, n + 1) if not ans.missing_answers(CHUNK, _data(found, "chunk", str(k))))
        text = f"Part 2: {done} of {n} chunks"
    else:
        text = "final questions" if asg.plan.get("post") else "Part 2 done"
    return {"text": text, "locked": False, "opens_at": None}


def _hours(h: float) -> str:
    if h % 24 == 0:
        d = int(h // 24)
        return "one day" if d == 1 else f"{d} days"
    return f"{h:g} hours"


# --------------------------------------------------------------------------- exports


def _assignments(campaign: Campaign) -> list[Assignment]:
    return list(db.session.scalars(
        select(Assignment).where(Assignment.campaign_id == campaign.id)
        .options(selectinload(Assignment.responses), selectinload(Assignment.annotator),
                 selectinload(Assignment.item).selectinload(Item.document))
        .order_by(Assignment.item_id, Assignment.annotator_id)))


def export_records(campaign: Campaign, *, only_finished_stages: bool = True) -> list[dict]:
    """The JSON Lines records of :mod:`humaneval.export`, campaign versions "1"/"2" (not presentation labels).

    An excerpt record once the reader finished Part 1 of a book, chunk records once they finished
    Part 2, a post record once they answered the final questions (``only_finished_stages``: else
    whatever is saved so far).
    """
    vs = campaign_versions(campaign)
    labels = version_labels(campaign)
    versions = {k: {"label": labels[v.id], "kind": version_kind(v)} for k, v in vs.items()}
    study = campaign.name
    readers = {a.id: reader_label(a) for a in campaign.annotators}
    excerpts, chunks, posts = [], [], []
    for asg in _assignments(campaign):
        reader = readers.get(asg.annotator_id, f"reader{asg.annotator_id}")
        doc = asg.item.document.name
        if asg.item.seg_start != 0 or asg.item.seg_end != asg.item.document.num_segments:
            doc = f"{doc}:{asg.item.seg_start + 1}-{asg.item.seg_end}"
        found = live(asg)
        done = asg.state == "finished"
        if not only_finished_stages or asg.stage >= 1 or done:
            excerpts.append(_excerpt_record(asg, found, study, doc, reader, versions))
        if not only_finished_stages or asg.stage >= 2 or done:
            chunks.extend(_chunk_records(asg, found, study, doc, reader, versions))
        post = found.get(("post", ""))
        if asg.plan.get("post") and post is not None and (done or not only_finished_stages):
            posts.append({"record": "post", "study": study, "reader": reader,
                          "answers": {q.id: post.data.get(q.id) for q in POST}})
    return excerpts + chunks + posts


def _excerpt_record(asg, found, study, doc, reader, versions) -> dict:
    order = reading_order(asg.plan)              # presentation label -> campaign version
    single = {order[label]: _data(found, "single", label) for label in VERSIONS}
    comp = _data(found, "compare", "")

    def version_of(choice):
        return order.get(choice) if choice in VERSIONS else choice   # "none" stays

    cont = comp.get("continue_choice")
    cont_version, cont_strength = (cont.split("-", 1) if isinstance(cont, str) and "-" in cont else (None, None))
    times = asg.times or {}
    return {
        "record": "excerpt", "study": study, "document": doc, "reader": reader, "versions": versions,
        "first": asg.plan.get("first", "1"),
        "ratings": {k: {q: single[k].get(q) for q in ("acceptability", "smoothness", "immersion", "continue")}
                    for k in VERSIONS},
        "positive": {k: single[k].get("positive") for k in VERSIONS},
        "negative": {k: single[k].get("negative") for k in VERSIONS},
        "origin_guess": {k: single[k].get("origin") for k in VERSIONS},
        "origin_confidence": {k: single[k].get("origin_confidence") for k in VERSIONS},
        "dialogue": version_of(comp.get("dialogue")),
        "word_choice": version_of(comp.get("word_choice")),
        "continue_choice": {"version": version_of(cont_version), "strength": cont_strength} if cont else None,
        "continue_why": comp.get("continue_why"),
        "ai_version": version_of(comp.get("ai_version")),
        "ai_confidence": comp.get("ai_confidence"),
        "ai_why": comp.get("ai_why"),
        "reading_ms": {order[label]: int(times.get(f"read:{label}", 0)) for label in VERSIONS},
        "flags": [f for f in asg.plan.get("flags", []) if f.get("stage") == "immersive"],
    }


def _chunk_records(asg, found, study, doc, reader, versions) -> list[dict]:
    texts = chunk_texts(asg.plan, item_texts(asg.item))
    hls = defaultdict(list)
    for r in live_highlights(asg):
        hls[int(r.key)].append(r.data)
    out = []
    for n, chunk in enumerate(texts, 1):
        sides = chunk_sides(asg.plan, n)              # T1/T2 -> campaign version
        a = _data(found, "chunk", str(n))
        pref = a.get("preference")
        out.append({
            "record": "chunk", "study": study, "document": doc, "reader": reader, "chunk": n - 1,   # from 0
            "versions": versions, "texts": chunk, "displayed": [sides["1"], sides["2"]],
            "preference": sides.get(pref) if pref else None,
            "difficulty": a.get("difficulty"), "justification": a.get("justification"),
            "highlights": [{"version": sides[h["side"]], "start": h["start"], "end": h["end"], "label": h["label"],
                            "text": h["text"]} for h in hls.get(n, [])],
            "normalisation": NORMALISATION,
            "ms": int((asg.times or {}).get(f"chunk:{n}", 0)),
        })
    return out


def export_jsonl(campaign: Campaign) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n" for r in export_records(campaign))


CSV_COLUMNS = (
    "record", "study", "document", "reader", "chunk", "version", "version_label", "version_kind", "first",
    "position", "acceptability", "smoothness", "immersion", "continue", "origin_guess", "origin_confidence",
    "positive", "negative", "reading_ms", "dialogue", "word_choice", "continue_version", "continue_strength",
    "continue_why", "ai_version", "ai_confidence", "ai_why", "preference", "difficulty", "justification",
    "good_spans", "poor_spans", "good_text", "poor_text", "chunk_text", "ms")


def export_csv(campaign: Campaign) -> str:
    """One row per excerpt judgment of each version (record "excerpt") and per chunk judgment of each
    version (record "chunk"); per-pair answers (preference, comparison questions) repeat on both rows.
    Versions are campaign versions; ``position`` is 1 if the version was read first (excerpt) or shown
    on the left (chunk), else 2. Highlights: count and texts joined by " | "."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in export_records(campaign):
        if r["record"] == "excerpt":
            cont = r["continue_choice"] or {}
            for k in VERSIONS:
                w.writerow({"record": "excerpt", "study": r["study"], "document": r["document"], "reader": r["reader"],
                            "version": k, "version_label": r["versions"][k]["label"],
                            "version_kind": r["versions"][k]["kind"], "first": r["first"],
                            "position": 1 if r["first"] == k else 2, **r["ratings"][k],
                            "origin_guess": r["origin_guess"][k], "origin_confidence": r["origin_confidence"][k],
                            "positive": r["positive"][k], "negative": r["negative"][k],
                            "reading_ms": r["reading_ms"][k], "dialogue": r["dialogue"],
                            "word_choice": r["word_choice"], "continue_version": cont.get("version"),
                            "continue_strength": cont.get("strength"), "continue_why": r["continue_why"],
                            "ai_version": r["ai_version"], "ai_confidence": r["ai_confidence"], "ai_why": r["ai_why"]})
        elif r["record"] == "chunk":
            for k in VERSIONS:
                hs = [h for h in r["highlights"] if h["version"] == k]
                w.writerow({"record": "chunk", "study": r["study"], "document": r["document"], "reader": r["reader"],
                            "chunk": r["chunk"], "version": k, "version_label": r["versions"][k]["label"],
                            "version_kind": r["versions"][k]["kind"], "position": r["displayed"].index(k) + 1,
                            "preference": r["preference"], "difficulty": r["difficulty"],
                            "justification": r["justification"],
                            "good_spans": sum(1 for h in hs if h["label"] == "good"),
                            "poor_spans": sum(1 for h in hs if h["label"] == "poor"),
                            "good_text": " | ".join(h["text"] for h in hs if h["label"] == "good"),
                            "poor_text": " | ".join(h["text"] for h in hs if h["label"] == "poor"),
                            "chunk_text": r["texts"][k], "ms": r["ms"]})
    return buf.getvalue()


# --------------------------------------------------------------------------- results and progress


def results(campaign: Campaign) -> dict[str, Any]:
    from humaneval.export import parse_export
    from humaneval.reader import study_results

    records = export_records(campaign)
    if not records:
        return {"empty": True, "records": {"excerpt": 0, "chunk": 0, "post": 0}}
    export = parse_export([json.dumps(r) for r in records])
    out = study_results(export.study(campaign.name))
    out["empty"] = False
    return out


def readers_of(campaign: Campaign) -> dict[int, CampaignAnnotator]:
    return {a.id: a for a in campaign.annotators}


def progress(campaign: Campaign) -> dict[str, Any]:
    """Per reader and book: stage, lock, reading times, flags; per stage counts."""
    rows = []
    counts = {"immersive": 0, "locked": 0, "close": 0, "post": 0, "finished": 0}
    now = clock.now()
    for asg in _assignments(campaign):
        found = live(asg)
        if asg.state == "finished":
            where = "finished"
        elif asg.opens_at is not None and now < asg.opens_at:
            where = "locked"
        else:
            where = STAGES[min(asg.stage, 2)]
        counts[where] += 1
        times = asg.times or {}
        order = reading_order(asg.plan)
        n_chunks = len(asg.plan.get("chunks", []))
        done_chunks = sum(1 for n in range(1, n_chunks + 1)
                          if not ans.missing_answers(CHUNK, _data(found, "chunk", str(n))))
        rows.append({
            "assignment": asg, "reader": asg.annotator, "book": asg.number, "item": asg.item,
            "where": where, "step": immersive_step(found), "opens_at": asg.opens_at,
            "first": asg.plan.get("first"), "read_ms": {order[label]: times.get(f"read:{label}", 0)
                                                        for label in VERSIONS},
            "chunks": n_chunks, "chunks_done": done_chunks,
            "close_ms": sum(v for k, v in times.items() if k.startswith("chunk:")),
            "flags": asg.plan.get("flags", []), "last_active_at": asg.last_active_at,
        })
    rows.sort(key=lambda r: (r["reader"].position, r["book"]))
    return {"rows": rows, "counts": counts, "total": len(rows)}


def reader_label(annotator: CampaignAnnotator) -> str:
    return f"reader{annotator.position}"


def plan_preview(campaign: Campaign, protocol) -> dict[str, Any]:
    """The counterbalanced design the start would make with today's readers and documents (drafts only)."""
    labels = version_labels(campaign)
    out: dict[str, Any] = {"error": None, "readers": [], "documents": [],
                           "versions": {k: labels.get(v.id, "?") for k, v in
                                        zip(VERSIONS, campaign.versions)}}
    try:
        items = protocol.build_items(campaign)
        slots = design_slots(campaign, items, list(campaign.annotators))
    except ServiceError as exc:
        out["error"] = exc.message
        return out
    annotators = readers_of(campaign)
    docs = {d.id: d.name for d in campaign.testset.documents}
    names = [f"{docs[p.document_id]}:{p.seg_start + 1}-{p.seg_end}" for p in items]
    by_reader: dict[str, list] = defaultdict(list)
    by_doc: dict[int, list] = defaultdict(list)
    for reader, doc, first in slots:
        a = annotators[int(reader)]
        by_reader[reader].append({"document": names[int(doc)], "first": str(first)})
        by_doc[int(doc)].append({"reader": reader_label(a), "name": a.user.display_name, "first": str(first)})
    out["readers"] = [{"reader": reader_label(a), "name": a.user.display_name, "books": by_reader.get(str(a.id), [])}
                      for a in campaign.annotators]
    out["documents"] = [{"document": names[i], "readers": by_doc.get(i, [])} for i in range(len(items))]
    return out


def design_table(campaign: Campaign) -> list[dict[str, Any]]:
    """After the start: per document, its readers with the version each read first and their book number."""
    by_item: dict[int, dict] = {}
    for asg in _assignments(campaign):
        row = by_item.setdefault(asg.item_id, {"item": asg.item, "readers": []})
        row["readers"].append({"reader": reader_label(asg.annotator), "name": asg.annotator.user.display_name,
                               "first": asg.plan.get("first"), "book": asg.number,
                               "chunks": len(asg.plan.get("chunks", []))})
    return [by_item[k] for k in sorted(by_item, key=lambda k: by_item[k]["item"].position)]


def design_slots(campaign: Campaign, items: list, annotators: list[Any]) -> list[tuple[str, str, int]]:
    """(annotator id, item index, first version) triples: counterbalanced, no reader on their own team's system.

    The counterbalancing ignores teams; a draw that gives a reader a document holding their team's
    system is redrawn with the next seed (the design stays balanced), up to 200 times.
    """
    per_doc = int(campaign.setting("readers_per_document", 2))
    per_reader = int(campaign.setting("documents_per_reader", 2))
    readers = [str(a.id) for a in annotators]
    teams = {str(a.id): a.user.team_id for a in annotators}
    docs = [str(i) for i in range(len(items))]
    if not readers:
        raise bad("too_few_annotators", "the study has no readers yet: invite or add some first", 409)
    last_error = ""
    for attempt in range(MAX_CONFLICT_TRIES):
        try:
            slots = counterbalance(readers, docs, readers_per_document=per_doc, documents_per_reader=per_reader,
                                   seed=campaign.seed + attempt)
        except ValueError as exc:
            raise bad("cannot_assign", f"cannot counterbalance: {exc}", 409) from None
        clash = [s for s in slots if teams[s.reader] and teams[s.reader] in items[int(s.document)].team_ids]
        if not clash:
            return [(s.reader, s.document, s.first_version) for s in slots]
        last_error = f"a reader of team {clash[0].reader} would read their own team's system"
    raise bad("cannot_assign", f"no counterbalanced design keeps every reader off their own team's system "
              f"({last_error}): add readers from other teams", 409)
