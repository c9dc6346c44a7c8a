"""Steps an annotator must take before working on a campaign's items (a consent form, a tutorial), and the
page that follows the last item (a completion code).

A feature registers a gate (``gate(assignment) -> Gate | None``); the item page sends the annotator
to the first gate's page, and every write to an assignment (answers, marks, progress, finish) is
refused with the gate's message while one is pending. The core names no feature: the crowd
package (:mod:`enface.crowd`) registers its own when the app is created.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import Assignment


@dataclass(frozen=True)
class Gate:
    code: str          # e.g. "consent_required"
    message: str       # what the annotator must do first
    url: str           # the page where they do it


GATES: list[Callable[[Assignment], Gate | None]] = []


def register_gate(gate: Callable[[Assignment], Gate | None]) -> None:
    if gate not in GATES:
        GATES.append(gate)


def pending_gate(asg: Assignment) -> Gate | None:
    for gate in GATES:
        found = gate(asg)
        if found is not None:
            return found
    return None


#: ``page(assignment) -> URL | None``: where an annotator goes after finishing their last item (None: nowhere).
AFTER_WORK: list[Callable[[Assignment], str | None]] = []


def register_after_work(page: Callable[[Assignment], str | None]) -> None:
    if page not in AFTER_WORK:
        AFTER_WORK.append(page)


def after_work(asg: Assignment) -> str | None:
    for page in AFTER_WORK:
        url = page(asg)
        if url is not None:
            return url
    return None
