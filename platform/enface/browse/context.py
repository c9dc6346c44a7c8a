"""What every browser page starts from: the test set, the check of who may see it, and its systems."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import TestSet
from ..services import leaderboard as lb
from ..services.testsets import get_testset
from .access import check_browse, is_organizer


@dataclass
class Browse:
    ts: TestSet
    board: dict
    names: dict[str, str]        # version key (submission id as a string, ref1, ref2) -> its name
    systems: list[dict]          # the leaderboard's rows the user may see, in its order
    ref_keys: list[str]          # the references the user may read (ref1, ...): none unless they are public

    @property
    def visible_ids(self) -> set[int]:
        return {r["submission_id"] for r in self.systems}

    def name(self, key: str) -> str:
        return self.names.get(key, "?")

    def may_see(self, e: dict) -> bool:
        """Whether a piece of evidence is on a version the user may read (a system on their board, or a
        reference they may read): its quoted text is that version's."""
        return str(e["submission_id"]) in self.names if e.get("submission_id") is not None else (
            f"ref{e.get('reference')}" in self.ref_keys)


def browse_context(user, testset_id: int) -> Browse:
    ts = get_testset(testset_id)
    check_browse(user, ts)
    board = lb.visible_leaderboard(user, testset_id)
    systems = [r for g in lb.grouped(board) for r in g["rows"]]
    names = {str(r["submission_id"]): r["system"] for r in systems}
    # The references follow the test set's own setting (as its page and the release bundle do): a
    # released test set may keep them private, for a later edition or because of their licence.
    refs = [f"ref{n}" for n in range(1, ts.num_refs + 1)] if ts.references_public or is_organizer(user) else []
    for n, key in enumerate(refs, 1):
        names[key] = f"reference {n}"
    return Browse(ts=ts, board=board, names=names, systems=systems, ref_keys=refs)
