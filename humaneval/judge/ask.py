"""One question to a model with the judges' convention: one corrective retry after a malformed answer.

The answer is parsed; a :class:`~humaneval.judge.parse.MalformedAnswer` sends the model its answer
back with the problem named (the ``correction`` template), once. Every call, the
corrective one included, is appended to ``calls`` (the transcript). An endpoint
failure (after the client's own retries) or a second malformed answer raises
:class:`AskFailed` with the message to record and the unusable answer.
"""

from __future__ import annotations

from typing import Any, Callable

from .client import CallRecord, ChatClient, EndpointError
from .parse import MalformedAnswer


class AskFailed(Exception):
    """The question got no usable answer; ``message`` says why, ``raw`` is the last answer (or None)."""

    def __init__(self, message: str, raw: str | None = None):
        super().__init__(message)
        self.message, self.raw = message, raw


def ask(client: ChatClient, prompt: str, parse: Callable[[str | None], Any], *, calls: list[CallRecord],
        correction: Callable[[str], str], role: str, round_no: int = 1) -> Any:
    """``parse(answer)`` of the model's answer to ``prompt``, with at most one corrective retry."""
    messages = [{"role": "user", "content": prompt}]
    for corrective in (False, True):
        record = CallRecord(role=role, round=round_no, messages=list(messages), correction=corrective)
        calls.append(record)
        try:
            client.complete(record)
        except EndpointError as exc:
            raise AskFailed(f"{role}, round {round_no}: {exc}") from None
        try:
            return parse(record.answer)
        except MalformedAnswer as exc:
            problem = str(exc)
            if corrective:
                raise AskFailed(f"{role}, round {round_no}: malformed answer after a corrective retry: {problem}",
                                record.answer) from None
            messages += [{"role": "assistant", "content": record.answer or ""},
                         {"role": "user", "content": correction(problem)}]
    raise AssertionError("unreachable")
