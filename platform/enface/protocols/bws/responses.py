"""A BWS judgment as the core's response: kind "choice", key "bws", data ``{"best": slot, "worst": slot}``.

Slots are the item's version slots (1..N), which name no system; a save may be a draft (one of the two
still null) but never picks one translation as both; finishing needs both.
"""

from __future__ import annotations

from typing import Any

from ...campaigns.models import Assignment, Response
from ...campaigns.services import bad

KIND = "choice"
KEY = "bws"
CHOICES = ("best", "worst")


def live_choice(asg: Assignment) -> Response | None:
    """The latest live judgment of an assignment."""
    found = [r for r in asg.responses if not r.deleted and r.kind == KIND and r.key == KEY]
    return max(found, key=lambda r: (r.updated_at, r.id)) if found else None


def _slot(value: Any, slots: set[int], field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value not in slots:
        raise bad("invalid_field", f"{field} must be one of the item's translations ({', '.join(map(str, sorted(slots)))}"
                  " or null)", field=field)
    return value


def check_response(asg: Assignment, kind: str, key: str, data: Any) -> dict[str, Any]:
    if kind != KIND:
        raise bad("unknown_kind", f"a BWS item takes {KIND!r} answers, not {kind!r}", field="kind")
    if key != KEY:
        raise bad("invalid_field", f"a BWS answer's key is {KEY!r}, not {key!r}", field="key")
    if not isinstance(data, dict) or set(data) - set(CHOICES):
        raise bad("invalid_field", "data must be an object {best, worst}", field="data")
    slots = {iv.slot for iv in asg.item.versions}
    best, worst = (_slot(data.get(c), slots, c) for c in CHOICES)
    if best is not None and best == worst:
        raise bad("same_choice", "one translation cannot be both the best and the worst", field="worst")
    return {"best": best, "worst": worst}


def choice_of(asg: Assignment) -> tuple[int | None, int | None]:
    r = live_choice(asg)
    return (r.data.get("best"), r.data.get("worst")) if r is not None else (None, None)


def check_finish(asg: Assignment) -> None:
    best, worst = choice_of(asg)
    missing = [name for name, v in (("the best", best), ("the worst", worst)) if v is None]
    if missing:
        raise bad("incomplete", f"choose {' and '.join(missing)} translation first", 409, missing=missing)
