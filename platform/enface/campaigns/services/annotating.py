"""The annotator's side of the core: their items, locks around saves, reading progress, stages, answers."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from flask import url_for
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import contains_eager, selectinload

from ...extensions import db
from ...models import User, utcnow
from ...services import NotFound, ServiceError, is_ascii_int
from .. import clock
from ..gates import after_work, pending_gate
from ..models import Assignment, Campaign, CampaignAnnotator, Item, Response
from ..protocol import PROTOCOLS, protocol_of
from .common import UUID_RE, bad, int_field, str_field

MAX_TIME_PER_SEGMENT_MS = 6 * 3600 * 1000
MAX_PARTS = 200
MAX_REV = 10**9                 # revisions of a mark or an answer: far below any database integer
PART_RE = re.compile(r"^[a-z][a-z0-9_]{0,19}:[A-Za-z0-9_.-]{1,40}$")


def annotator_assignments(user: User) -> list[Assignment]:
    """The user's items over every open, closed or released campaign, campaign by campaign.

    With what the list of items shows: each item's document and campaign, and the marks.
    """
    return list(db.session.scalars(
        select(Assignment).join(CampaignAnnotator, Assignment.annotator_id == CampaignAnnotator.id)
        .join(Campaign, Assignment.campaign_id == Campaign.id)
        .options(selectinload(Assignment.item).selectinload(Item.document),
                 selectinload(Assignment.item).selectinload(Item.campaign), selectinload(Assignment.annotator),
                 selectinload(Assignment.responses),
                 *(option for p in PROTOCOLS.values() for option in p.list_options()))
        .where(CampaignAnnotator.user_id == user.id, Campaign.state != "draft")
        .order_by(Campaign.id, Assignment.number)))


def annotator_campaigns(user: User) -> list[Campaign]:
    return list(db.session.scalars(
        select(Campaign).join(CampaignAnnotator, CampaignAnnotator.campaign_id == Campaign.id)
        .where(CampaignAnnotator.user_id == user.id).order_by(Campaign.id)))


def get_assignment(user: User, public_id: str, *, write: bool = False) -> Assignment:
    """The user's own assignment by its public id.

    Another annotator's item answers exactly like an unknown one (404), so ids
    cannot be probed. Organizers may read any item (``write`` False).
    """
    asg = None
    if public_id and len(public_id) <= 24:
        # one query for the assignment, its annotator, item and campaign (every save starts here)
        asg = db.session.scalar(
            select(Assignment).join(Assignment.annotator).join(Assignment.item).join(Item.campaign)
            .options(contains_eager(Assignment.annotator),
                     contains_eager(Assignment.item).contains_eager(Item.campaign))
            .where(Assignment.public_id == public_id))
    if asg is None:
        raise NotFound("item")
    if asg.annotator.user_id == user.id:
        if asg.item.campaign.state == "draft":
            raise NotFound("item")
        if write:
            gate = pending_gate(asg)       # a consent form or a tutorial to pass first
            if gate is not None:
                raise bad(gate.code, gate.message, 409, url=gate.url)
        return asg
    if not write and user.is_organizer:
        return asg
    raise NotFound("item")








def next_assignment(asg: Assignment) -> Assignment | None:
    return db.session.scalar(select(Assignment).where(Assignment.annotator_id == asg.annotator_id,
                                                      Assignment.state != "finished", Assignment.id != asg.id)
                             .order_by(Assignment.number).limit(1))




_WRITE_LOCK = threading.Lock()


@contextmanager
def annotation_write():
    """``db.write()`` for the annotation saves, queued on a lock inside this process on SQLite.

    SQLite has one writer at a time and its busy handler polls with sleeps of up to
    100 ms, which lets unlucky requests wait for seconds under load. Threads of one
    process queue fairly on this lock instead; between processes the busy timeout
    still applies. PostgreSQL needs no such thing (row locks).
    """
    if db.session.get_bind().dialect.name != "sqlite":
        with db.write():
            yield
        return
    with _WRITE_LOCK, db.write():
        yield


def lock_assignment(asg_id: int) -> tuple[Assignment, str]:
    """Re-reads the assignment and its campaign's state inside the current write transaction,
    the assignment's row locked against concurrent writers (SQLite: the whole database is).

    Returns (assignment, campaign state): that state, not ``asg.item.campaign.state`` (read
    before the transaction, maybe stale), is the one to check.
    """
    row = db.session.execute(
        select(Assignment, Campaign.state).join(Item, Assignment.item_id == Item.id)
        .join(Campaign, Item.campaign_id == Campaign.id).where(Assignment.id == asg_id)
        .with_for_update(of=Assignment).execution_options(populate_existing=True)).first()
    if row is None:
        raise NotFound("item")
    asg, campaign_state = row
    return asg, campaign_state


def not_writable(asg: Assignment, campaign_state: str) -> ServiceError | None:
    """Why the annotator can no longer change this assignment (None: they can)."""
    if campaign_state != "open":
        return bad("campaign_closed", f"the campaign is {campaign_state}: marks can no longer be changed", 409)
    if asg.state == "finished":
        return bad("item_finished", "this item is finished and locked; ask the organizer to reopen it", 409)
    return None


def check_writable(asg: Assignment, campaign_state: str) -> None:
    refusal = not_writable(asg, campaign_state)
    if refusal is not None:
        raise refusal


def touch(asg: Assignment) -> None:
    now = utcnow()
    if asg.state == "pending":
        asg.state = "started"
        asg.started_at = now
    if asg.last_active_at is None or (now - asg.last_active_at).total_seconds() > 15:
        asg.last_active_at = now   # (to the quarter minute: one write fewer per save)


def save_progress(user: User, public_id: str, body: Any) -> dict:
    """Reading cursor, furthest segment and reading times (idempotent: times only grow).

    ``times`` holds milliseconds per segment ("0", "1", ...) or per named part of a
    protocol's page ("read:1"). The protocol may hold ``furthest`` back (a segment
    counts as read only after a minimum dwell time): see :meth:`Protocol.furthest_clipper`.
    """
    if not isinstance(body, dict):
        raise bad("invalid_json", "the request body must be a JSON object")
    asg = get_assignment(user, public_id, write=True)
    n = asg.item.num_segments
    cursor = body.get("cursor", asg.cursor)
    furthest = body.get("furthest", cursor)
    for name, value in (("cursor", cursor), ("furthest", furthest)):
        if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value < n:
            raise bad("bad_segment", f"{name} must be a segment of this item (0-{n - 1})", field=name)
    times = body.get("times", {})
    if not isinstance(times, dict) or len(times) > n + MAX_PARTS:
        raise bad("invalid_field", "times must be an object {segment or part: milliseconds}", field="times")
    clean: dict[str, int] = {}
    for key, ms in times.items():
        if not isinstance(key, str) or not (is_ascii_int(key) and int(key) < n or PART_RE.match(key)):
            raise bad("bad_segment", f"times: {key!r} is not a segment of this item nor a part name", field="times")
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not 0 <= ms <= MAX_TIME_PER_SEGMENT_MS:
            raise bad("invalid_field", f"times[{key}] must be milliseconds between 0 and "
                      f"{MAX_TIME_PER_SEGMENT_MS}", field="times")
        clean[str(int(key)) if is_ascii_int(key) else key] = int(ms)
    clip = protocol_of(asg.item.campaign).furthest_clipper(asg)
    with annotation_write():
        asg, campaign_state = lock_assignment(asg.id)
        if not_writable(asg, campaign_state) is not None:
            return {"cursor": asg.cursor, "furthest": asg.furthest, "time_ms": asg.time_ms, "locked": True}
        merged = dict(asg.times or {})
        for key, ms in clean.items():
            merged[key] = max(int(merged.get(key, 0)), ms)
        asg.times = merged
        asg.time_ms = sum(merged.values())
        asg.cursor = max(cursor, 0)
        asg.furthest = max(asg.furthest, clip(max(furthest, asg.cursor), merged))
        touch(asg)
        return {"cursor": asg.cursor, "furthest": asg.furthest, "time_ms": asg.time_ms, "locked": False}


def stage_opens_at(asg: Assignment) -> datetime | None:
    """When the assignment's current stage opens, if that is still in the future (server clock)."""
    if asg.opens_at is not None and clock.now() < asg.opens_at:
        return asg.opens_at
    return None


def check_stage_open(asg: Assignment) -> None:
    opens = stage_opens_at(asg)
    if opens is not None:
        raise bad("stage_locked", f"this stage opens at {opens:%Y-%m-%d %H:%M} UTC", 409,
                  opens_at=opens.isoformat())


def finish(user: User, public_id: str) -> dict:
    """Finishes the assignment's current stage: the next stage opens (after its lock), or the assignment is done."""
    asg = get_assignment(user, public_id, write=True)
    protocol = protocol_of(asg.item.campaign)
    with annotation_write():
        asg, campaign_state = lock_assignment(asg.id)
        if asg.state == "finished":
            nxt = next_assignment(asg)
            return {"finished": True, "already": True,
                    "next": url_for("annotate.item", public_id=nxt.public_id) if nxt else after_work(asg)}
        check_writable(asg, campaign_state)
        check_stage_open(asg)
        protocol.check_finish(asg)
        protocol.on_stage_finish(asg)
        now = clock.now()
        touch(asg)
        if asg.stage + 1 < len(protocol.stages):
            asg.stage += 1
            hours = protocol.stage_lock_hours(asg.item.campaign, asg.stage)
            asg.opens_at = now + timedelta(hours=hours) if hours else None
            return {"finished": False, "stage": asg.stage, "stage_name": protocol.stages[asg.stage],
                    "opens_at": asg.opens_at.isoformat() if asg.opens_at else None,
                    "next": url_for("annotate.item", public_id=asg.public_id)}
        protocol.on_finish(asg)
        asg.state = "finished"
        asg.finished_at = now
        asg.last_active_at = now
        nxt = next_assignment(asg)
        return {"finished": True, "next": url_for("annotate.item", public_id=nxt.public_id) if nxt else after_work(asg)}


# --------------------------------------------------------------------------- answers (the autosave queue's endpoint)


def client_uuid(uuid: Any, what: str = "answer") -> str:
    """The client-generated id of an answer (or a mark), checked and lower-cased."""
    if not isinstance(uuid, str) or not UUID_RE.match(uuid):
        raise bad("invalid_field", f"the {what} id must be a UUID", field="uuid")
    return uuid.lower()


def versioned_put(asg: Assignment, model: type, uuid: str, rev: int, fill: Callable[[Any, Assignment], None],
                  what: str = "answer") -> tuple[dict, bool]:
    """Creates or updates row ``uuid`` of ``model`` for the assignment, idempotently. Returns (row, changed).

    ``model`` is any table keyed by (assignment_id, uuid) with ``rev``, ``deleted``, ``created_at``,
    ``updated_at`` and ``to_json()`` (the core's answers, MQM's marks). A request whose ``rev`` is not
    newer than the stored one changes nothing and returns the stored row: a retried or replayed
    request is harmless, and the same UUID sent twice makes one row. ``fill(row, asg)`` writes the
    checked fields (it may refuse), under the assignment's write lock.
    """
    for _attempt in range(3):
        try:
            with annotation_write():
                asg, campaign_state = lock_assignment(asg.id)
                check_writable(asg, campaign_state)
                row = db.session.scalar(select(model).where(model.assignment_id == asg.id, model.uuid == uuid))
                if row is not None and rev <= row.rev:
                    return row.to_json(), False
                now = utcnow()
                if row is None:
                    row = model(assignment_id=asg.id, uuid=uuid, created_at=now)
                    db.session.add(row)
                fill(row, asg)
                row.rev, row.deleted, row.updated_at = rev, False, now
                touch(asg)
                db.session.flush()
                out = row.to_json()
            return out, True
        except IntegrityError:
            continue   # the same new UUID raced in twice (PostgreSQL): the loser re-reads it
    raise bad("busy", f"could not save the {what}, try again", 409)


def versioned_delete(asg: Assignment, model: type, uuid: str, body: Any) -> dict:
    """Deletes row ``uuid`` of ``model`` as a tombstone with a newer revision (a late older write cannot
    bring it back; a newer one can: undo). Unknown ids answer as deleted."""
    body = body if isinstance(body, dict) else {}
    given = body.get("rev")
    if given is not None and (isinstance(given, bool) or not isinstance(given, int) or not 1 <= given <= MAX_REV):
        raise bad("invalid_field", f"rev must be an integer between 1 and {MAX_REV}", field="rev")
    with annotation_write():
        asg, campaign_state = lock_assignment(asg.id)
        check_writable(asg, campaign_state)
        row = db.session.scalar(select(model).where(model.assignment_id == asg.id, model.uuid == uuid))
        if row is None:
            return {"uuid": uuid, "deleted": True, "known": False}
        rev = given if given is not None else row.rev + 1
        if rev > row.rev:
            row.deleted = True
            row.rev = rev
            row.updated_at = utcnow()
            touch(asg)
        return row.to_json()


def save_response(user: User, public_id: str, uuid: str, body: Any) -> tuple[dict, bool]:
    """Creates or updates answer ``uuid`` (idempotent, see :func:`versioned_put`). Returns (answer, changed).

    The protocol checks ``kind``, ``key`` and ``data`` (:meth:`Protocol.check_response`).
    """
    uuid = client_uuid(uuid)
    if not isinstance(body, dict):
        raise bad("invalid_json", "the request body must be a JSON object")
    rev = int_field(body, "rev")
    if not 1 <= rev <= MAX_REV:
        raise bad("invalid_field", f"rev must be an integer between 1 and {MAX_REV}", field="rev")
    kind = str_field(body, "kind", max_len=30)
    key = str_field(body, "key", required=False, max_len=100)
    asg = get_assignment(user, public_id, write=True)
    check_stage_open(asg)
    data = protocol_of(asg.item.campaign).check_response(asg, kind, key, body.get("data"))

    def fill(row: Response, locked: Assignment) -> None:
        if row.kind is not None and (row.kind != kind or row.key != key):
            raise bad("invalid_field", "an answer keeps its kind and key; send a new id", field="kind")
        row.stage, row.kind, row.key, row.data = locked.stage, kind, key, data

    return versioned_put(asg, Response, uuid, rev, fill)


def delete_response(user: User, public_id: str, uuid: str, body: Any) -> dict:
    uuid = client_uuid(uuid)
    return versioned_delete(get_assignment(user, public_id, write=True), Response, uuid, body)


def live_responses(asg: Assignment, kind: str | None = None) -> list[Response]:
    return [r for r in asg.responses if not r.deleted and (kind is None or r.kind == kind)]
