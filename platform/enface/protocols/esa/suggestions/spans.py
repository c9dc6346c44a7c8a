"""How a suggested span is stored: ``{"start", "end", "severity"}`` (``end`` inclusive, as Appraise and
:class:`humaneval.esa.appraise.ErrorSpan`) or ``{"missing": true, "severity"}`` for ``[missing]``."""

from __future__ import annotations

from typing import Any

from humaneval.esa.appraise import ErrorSpan


def span_to_json(span: ErrorSpan) -> dict[str, Any]:
    if span.missing:
        return {"missing": True, "severity": span.severity}
    return {"start": span.start, "end": span.end, "severity": span.severity}


def span_from_json(data: dict[str, Any]) -> ErrorSpan:
    if data.get("missing"):
        return ErrorSpan(None, None, data["severity"])
    return ErrorSpan(int(data["start"]), int(data["end"]), data["severity"])
