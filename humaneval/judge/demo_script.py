"""A script for the scripted endpoint that plays plausible debates over given items (``enface demo``).

No model is involved. An item may carry the scores to reach (``"answer": {"sp", "g_1", "g_2",
"reason"}``, the demo's hand-written answer key, data/demo/phenomena/judge-answers.tsv: the
correct idiom scores high, the mistranslation a requirement names scores low); without one its
scores are derived from a hash of its text. Either way a demo run is repeatable. A third of the items have debaters who agree at
once, a third converge in round 2 and a third in round 3 (Debater B starts
lower and is persuaded), so the demo shows every path of a debate.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence


def _scores(seed: int) -> dict[str, int]:
    sp = (1, 2, 2, 1, 0, 2)[seed % 6]
    if sp == 0:
        return {"sp": 0, "g_1": 0, "g_2": 0}
    return {"sp": sp, "g_1": max(1, sp - (seed // 6) % 2), "g_2": (1, 2)[(seed // 12) % 2]}


def _lower(s: dict[str, int]) -> dict[str, int]:
    sp = max(0, s["sp"] - 1)
    return {"sp": sp, "g_1": 0 if sp == 0 else max(0, s["g_1"] - 1), "g_2": 0 if sp == 0 else s["g_2"]}


def _answer(scores: Mapping[str, int], thoughts: str) -> dict[str, Any]:
    return {"json": {**scores, "thoughts": thoughts}}


def demo_script(items: Sequence[Mapping[str, Any]], api_key: str | None = None,
                latency: float = 0.3) -> dict[str, Any]:
    """Rules answering the debaters and the judge (and a single agent) for each of ``items``
    (``translation`` and ``requirement`` pick an item's requests out)."""
    rules = []
    for item in items:
        seed = int(hashlib.sha256(f"{item['translation']}\n{item['requirement']}".encode()).hexdigest()[:8], 16)
        key = item.get("answer")
        final = {k: int(key[k]) for k in ("sp", "g_1", "g_2")} if key else _scores(seed)
        converge = 1 + seed % 3   # the round in which the debaters agree
        # Debater B starts one step harsher, or (on an item scored 0/0/0) one step kinder
        early = _lower(final) if _lower(final) != final else {"sp": 1, "g_1": 1, "g_2": 1}
        what = item.get("requirement", "the phenomenon")
        reason = (key or {}).get("reason") or f"the rendering of {what!r} earns these scores."
        a = [_answer(final, f"Round {r}: {reason}") for r in (1, 2, 3)]
        b = [_answer(early if r < converge else final,
                     f"Round {r}: " + ("I judge it harsher: the phenomenon is only partly rendered."
                                       if r < converge else "Debater A's argument convinces me; I agree."))
             for r in (1, 2, 3)]
        verdicts = [{"json": {"judge": "no" if r < converge else "yes", "judge_reasons":
                              "The debaters still differ." if r < converge else f"The debaters agree: {reason}",
                              **final}}
                    for r in (1, 2, 3)]
        match = [item["translation"], item["requirement"]]
        rules += [{"prefix": "You are Debater A", "match": match, "replies": a},
                  {"prefix": "You are Debater B", "match": match, "replies": b},
                  {"prefix": "You are the judge", "match": match, "replies": verdicts},
                  {"prefix": "", "match": match, "replies": [_answer(final, reason)]}]
    script: dict[str, Any] = {"latency": latency, "rules": rules,
                              "default": {"json": {"sp": 1, "g_1": 1, "g_2": 1, "thoughts": "demo default"}}}
    if api_key:
        script["api_key"] = api_key
    return script
