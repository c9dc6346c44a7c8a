"""What every browser page starts from: the test set, the check of who may see it, and its systems."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import TestSet
from ..services import leaderboard as lb
from ..services.testsets import get_testset
from .access import check_browse


@dataclass
class Browse:
    ts: TestSet
    board: dict
    names: dict[str, str]        # version key (submission id as a string, ref1, ref2) -> its name
    systems: list[dict]          # the leaderboard's rows the user may see, in its order

    @property
    def visible_ids(self) -> set[int]:
        return {r["submission_id"] for r in self.systems}

    def name(self, key: str) -> str:
        return self.names.get(key, "?")


def browse_context(user, testset_id: int) -> Browse:
    ts = get_testset(testset_id)
    check_browse(user, ts)
    board = lb.visible_leaderboard(user, testset_id)
    systems = [r for g in lb.grouped(board) for r in g["rows"]]
    names = {str(r["submission_id"]): r["system"] for r in systems}
    for n in range(1, ts.num_refs + 1):
        names[f"ref{n}"] = f"reference {n}"
    return Browse(ts=ts, board=board, names=names, systems=systems)
