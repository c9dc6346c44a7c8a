"""Who may browse a test set's outputs and evidence.

Organizers: always. Everyone else: only after release, and an annotator who still takes part
in an unreleased human evaluation of the test set not at all, since the browser names the
systems behind the texts they are judging (annotators never see system names).
"""

from __future__ import annotations

from ..campaigns.services import annotating_blind
from ..models import TestSet, User
from ..services import NotFound, ServiceError


def is_organizer(user: User | None) -> bool:
    return user is not None and getattr(user, "is_authenticated", False) and user.is_organizer


def check_browse(user: User | None, ts: TestSet) -> None:
    """Raises NotFound before release (for all but organizers), 403 for an annotator still judging it."""
    if is_organizer(user):
        return
    if not ts.released:
        raise NotFound("output browser (the results are not released yet)")
    if annotating_blind(user, ts.id):
        raise ServiceError("blind", "you annotate in a human evaluation of this test set that is still running: "
                           "its outputs open to you once it is released", 403)
