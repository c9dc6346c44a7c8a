"""BWS training items (the crowd kit's tutorials, :mod:`enface.crowd.tutorial`): the expected answer is the
preferred translation and the dispreferred one of a labelled tuple.

A training item's ``translation`` lists the tuple, one translation a line, each labelled as the annotator's
page labels them (``A: …``, ``B: …``, …); its expected answer names two of those labels::

    {"source": "…", "translation": "A: …\\nB: …\\nC: …\\nD: …", "expected": {"best": "B", "worst": "D"}}

An answer is right when both the best and the worst are the expected ones.
"""

from __future__ import annotations

import re
from typing import Any

from ...campaigns.models import Campaign
from ...campaigns.services import bad
from .page import LETTERS
from .settings import DEFAULTS, MAX_TUPLE_SIZE

LABEL_RE = re.compile(r"^\s*([A-J])\s*[:.)]\s*\S")
CHOICES = {"best": "The best translation", "worst": "The worst translation"}


def _letters(campaign: Campaign) -> list[str]:
    size = int(campaign.setting("tuple_size", DEFAULTS["tuple_size"]))
    return list(LETTERS[:min(size, MAX_TUPLE_SIZE)])


def fields(campaign: Campaign) -> list[dict[str, Any]]:
    return [{"name": name, "type": "choice", "label": label, "options": _letters(campaign)}
            for name, label in CHOICES.items()]


def labels_in(translation: str) -> list[str]:
    """The labels of a training tuple's lines ("A: …"), in order."""
    return [m.group(1) for m in (LABEL_RE.match(line) for line in translation.splitlines() if line.strip()) if m]


def check_expected(campaign: Campaign, expected: Any, translation: str) -> dict[str, Any]:
    letters = _letters(campaign)
    found = labels_in(translation)
    if len(found) < 2 or found != letters[:len(found)] or len(found) != len(translation.strip().splitlines()):
        raise bad("invalid_tutorial", f"a BWS training item's translation lists the tuple one translation a line, "
                  f"labelled {', '.join(f'{x}:' for x in letters)} in order", field="tutorial")
    if not isinstance(expected, dict) or set(expected) != set(CHOICES):
        raise bad("invalid_tutorial", 'a BWS expected answer is {"best": LABEL, "worst": LABEL}', field="tutorial")
    best, worst = expected["best"], expected["worst"]
    if best not in found or worst not in found:
        raise bad("invalid_tutorial", f"best and worst are labels of the tuple ({', '.join(found)})", field="tutorial")
    if best == worst:
        raise bad("invalid_tutorial", "the best and the worst are two different translations", field="tutorial")
    return {"best": best, "worst": worst}


def grade(campaign: Campaign, expected: dict[str, Any], answer: dict[str, Any]) -> bool:
    missing = [k for k in CHOICES if answer.get(k) is None]
    if missing:
        raise bad("invalid_answer", f"choose {' and '.join(CHOICES[k].lower() for k in missing)}", field=missing[0])
    if answer["best"] == answer["worst"]:
        raise bad("invalid_answer", "one translation cannot be both the best and the worst", field="worst")
    return answer["best"] == expected["best"] and answer["worst"] == expected["worst"]
