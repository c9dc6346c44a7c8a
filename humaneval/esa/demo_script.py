"""Rules for the scripted endpoint that answer the error-span prompt plausibly (``enface demo``'s ESA^AI).

No model is involved: each translation's answer is derived from a hash of its text, so a demo
run is repeatable. About a quarter of the segments are found flawless (score 92-98, no span),
the others get one or two spans on words of the translation (minor or major) and a score
that falls with them; one segment in seven also gets a ``[missing]`` marker. The rules use
the prompt's own wording (``You are an experienced``, humaneval/esa/prompts/spans.txt) and the
translation's text to find each request.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

PROMPT_START = "You are an experienced"


def _answer(translation: str) -> dict:
    seed = int(hashlib.sha256(translation.encode("utf-8")).hexdigest()[:8], 16)
    words = [w for w in re.findall(r"\w[\w'-]*", translation) if len(w) > 3]
    if seed % 4 == 0 or not words:
        return {"errors": [], "score": 92 + seed % 7}
    errors = []
    first = words[seed % len(words)]
    errors.append({"text": first, "severity": "major" if seed % 3 == 0 else "minor"})
    if seed % 5 == 1 and len(words) > 1:
        second = words[(seed // 7) % len(words)]
        if second != first:
            errors.append({"text": second, "severity": "minor"})
    if seed % 7 == 2:
        errors.append({"missing": True, "severity": "major"})
    majors = sum(e["severity"] == "major" for e in errors)
    return {"errors": errors, "score": max(10, 88 - 25 * majors - 8 * (len(errors) - majors) - seed % 5)}


def span_rules(translations: Iterable[str], latency: float = 0.2) -> list[dict]:
    """One scripted-endpoint rule per distinct translation, longest first (a request matches the first
    rule whose text it holds, and a short translation may occur inside a longer one)."""
    texts = sorted({t for t in translations if t and t.strip()}, key=lambda t: (-len(t), t))
    return [{"prefix": PROMPT_START, "match": [text], "replies": [{"json": _answer(text), "delay": latency}]}
            for text in texts]
