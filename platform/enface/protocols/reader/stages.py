"""Finishing a stage: what must be answered first, and the fast-reading flags stored with it."""

from __future__ import annotations

from ...campaigns.models import Assignment
from ...campaigns.services import bad
from . import answers as ans
from .design import STAGES, VERSIONS, reading_order
from .display import count_words, paragraphs
from .questions import CHUNK, COMPARE, POST, SINGLE
from .responses import answer_data, immersive_step, live, siblings
from .texts import chunk_texts, item_texts


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
            missing = ans.missing_answers(SINGLE, answer_data(found, "single", label))
            if missing:
                raise bad("incomplete", f"question {missing[0].number} about Translation {label} has no answer",
                          409, field=f"single.{label}.{missing[0].id}")
            if not times.get(f"read:{label}"):
                raise bad("incomplete", f"no reading time was recorded for Translation {label}: reload the page "
                          "and read it", 409, field=f"times.read:{label}")
        missing = ans.missing_answers(COMPARE, answer_data(found, "compare", ""))
        if missing:
            raise bad("incomplete", f"comparison question {missing[0].number} has no answer", 409,
                      field=f"compare.{missing[0].id}")
    elif stage == "close":
        for n in range(1, len(asg.plan.get("chunks", [])) + 1):
            missing = ans.missing_answers(CHUNK, answer_data(found, "chunk", str(n)))
            if missing:
                raise bad("incomplete", f"chunk {n}: {missing[0].text.split('. ', 1)[-1]} (no answer yet)", 409,
                          field=f"chunk.{n}.{missing[0].id}", chunk=n)
    elif stage == "post" and asg.plan.get("post"):
        waiting = [b for b in siblings(asg) if b.id != asg.id and b.stage < 2 and b.state != "finished"]
        if waiting:
            raise bad("incomplete", f"finish Part 2 of Book {waiting[0].number} first", 409, field="stage")
        missing = ans.missing_answers(POST, answer_data(found, "post", ""))
        if missing:
            raise bad("incomplete", f"final question {missing[0].number} has no answer", 409,
                      field=f"post.{missing[0].id}")




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
