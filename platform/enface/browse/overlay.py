"""Error spans laid over a text: the pieces a page renders, each with the spans that cover it.

Pure functions (no Flask, no database). Spans may overlap (two raters marking the same words);
a piece is a maximal run of characters covered by the same set of spans.
"""

from __future__ import annotations

#: The order in which a piece covered by several spans takes its colour (the most severe wins).
SEVERITY_ORDER = ("Critical", "Major", "Minor", "Neutral")


def severity_rank(severity: str) -> int:
    try:
        return SEVERITY_ORDER.index(severity)
    except ValueError:
        return len(SEVERITY_ORDER)


def pieces(text: str, spans: list[dict]) -> list[dict]:
    """[{"text", "spans": [the spans covering it, most severe first], "severity": the worst or None}].

    A span is a dict with ``start`` and ``end`` (code points, end exclusive) and ``severity``;
    spans outside the text are clipped, empty ones ignored. Joining the pieces' texts gives ``text``.
    """
    n = len(text)
    usable = [s for s in spans if s.get("start") is not None and s.get("end") is not None
              and min(s["end"], n) > max(s["start"], 0)]
    cuts = sorted({0, n, *(max(0, min(s["start"], n)) for s in usable), *(max(0, min(s["end"], n)) for s in usable)})
    out = []
    for a, b in zip(cuts, cuts[1:]):
        if a == b:
            continue
        covering = sorted((s for s in usable if s["start"] <= a and s["end"] >= b),
                          key=lambda s: severity_rank(s.get("severity", "")))
        out.append({"text": text[a:b], "spans": covering,
                    "severity": covering[0].get("severity") if covering else None})
    if not out:
        out.append({"text": text, "spans": [], "severity": None})
    return out
