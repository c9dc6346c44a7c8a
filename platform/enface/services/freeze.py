"""Freezing a test set's leaderboard at the deadline, and the licence terms of its data release.

A freeze keeps the automatic standings as of that moment (:func:`leaderboard.automatic_standings`,
stored as JSON on the test set): from then on the public (and the teams) see those, while
organizers keep seeing the live leaderboard. Human rankings released later are still attached to
the frozen standings, since they come after the deadline by design. Lifting the freeze shows the
live standings to everyone again. Release (who may see anything at all) is a separate switch:
``TestSet.released``, set on the admin's test-set page or by ``enface testset release``.
"""

from __future__ import annotations

import json

from ..extensions import db
from ..models import TestSet, utcnow
from . import ServiceError
from . import leaderboard as lb
from .accounts import check_text
from .testsets import note_leaderboard_change

MAX_LICENCE = 20000


def freeze(ts: TestSet) -> TestSet:
    """Freeze the leaderboard now (again, if it was frozen: the standings are taken anew)."""
    standings = json.loads(json.dumps(lb.automatic_standings(ts), default=str))
    with db.write():
        ts = db.session.merge(ts)
        ts.frozen_board = standings
        ts.frozen_at = utcnow()
        ts.scores_version = TestSet.scores_version + 1
        note_leaderboard_change(db.session, ts.id)
    db.session.refresh(ts)
    return ts


def unfreeze(ts: TestSet) -> TestSet:
    if ts.frozen_at is None:
        raise ServiceError("not_frozen", f"the leaderboard of test set {ts.id} is not frozen", 409)
    with db.write():
        ts = db.session.merge(ts)
        ts.frozen_board = None
        ts.frozen_at = None
        ts.scores_version = TestSet.scores_version + 1
        note_leaderboard_change(db.session, ts.id)
    db.session.refresh(ts)
    return ts


def set_licence(ts: TestSet, text: str) -> TestSet:
    """The licence terms of the data release, as typed (quoted verbatim in the bundle's README)."""
    text = check_text(text or "", "licence", max_len=MAX_LICENCE, required=False, multiline=True)
    with db.write():
        ts = db.session.merge(ts)
        ts.licence = text
    db.session.refresh(ts)
    return ts
