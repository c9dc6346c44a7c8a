"""A judge's run: every item the campaign's protocol gives it, scored with bounded concurrency, resumable.

Each item is claimed first (a ``judge_items`` row in state ``running``, unique per
judge, item and key), scored by :class:`humaneval.judge.Judge`, then stored in
one transaction: the judge item (scores, transcript, tokens, cost) and, for a
success, a core response of the judge's machine annotator on a finished
assignment. A run that dies leaves at most its in-flight claims; the next run
drops those claims (once the dead run's heartbeat is stale) and scores those
items again, and never an item already stored.

The run beats a heartbeat every few seconds while it holds the judge; a second
run while it beats is refused, and a run that finds its token replaced (a
stale run overtaken) stops taking items.
"""

from __future__ import annotations

import secrets
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from flask import current_app
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from humaneval.judge import ChatClient, EndpointConfig, ItemResult, load_prompts
from humaneval.judge import Judge as ScoringJudge

from ..campaigns.contract import JudgeTask
from ..campaigns.models import Assignment, Campaign, Item, Response
from ..campaigns.protocol import protocol_of
from ..campaigns.services.common import bad
from ..extensions import db
from ..models import utcnow
from ..services import ServiceError
from .models import Judge, JudgeItem
from .setup import api_key, prompts_folder, run_refusal

HEARTBEAT_EVERY = 5.0     # seconds


def stale_after() -> float:
    """Seconds without a heartbeat after which a run counts as dead (``ENFACE_JUDGE_STALE_AFTER``, default 30)."""
    return float(current_app.config.get("JUDGE_STALE_SECONDS", 30))


def is_alive(judge: Judge) -> bool:
    """Whether a run holds the judge and beat recently."""
    return (judge.state == "running" and judge.heartbeat_at is not None
            and utcnow() - judge.heartbeat_at < timedelta(seconds=stale_after()))


def tasks_of(campaign: Campaign) -> list[tuple[Item, JudgeTask]]:
    protocol = protocol_of(campaign)
    return [(item, task) for item in campaign.items for task in protocol.judge_tasks(item)]


def queue_run(judge: Judge) -> None:
    """Queue a run on the ``llm`` queue (refused while a run is alive or the campaign has no items yet)."""
    from ..job_queue import enqueue

    _check_runnable(judge)
    with db.write():
        db.session.execute(update(Judge).where(Judge.id == judge.id).values(state="queued", message=""))
    enqueue("judge", judge.id)


def _check_runnable(judge: Judge) -> None:
    if judge.campaign.state not in ("open", "closed"):
        raise bad("bad_state", f"a {judge.campaign.state} campaign has no items to judge yet: start it first", 409)
    if is_alive(judge):
        raise bad("judge_running", "this judge is running already", 409)
    refusal = run_refusal(judge)
    if refusal:
        raise bad("judge_not_allowed", refusal, 409)


def _take(judge_id: int, token: str) -> Judge | None:
    """Make this run the judge's holder; drop the claims of dead runs and earlier failures."""
    from ..campaigns.services.people import _add_annotator  # (the core's one way to add an annotator)

    with db.write():
        judge = db.session.get(Judge, judge_id)
        db.session.refresh(judge)
        if is_alive(judge):
            return None
        _check_runnable(judge)
        now = utcnow()
        judge.state, judge.run_token, judge.heartbeat_at, judge.started_at = "running", token, now, now
        judge.finished_at, judge.message = None, ""
        db.session.execute(delete(JudgeItem).where(JudgeItem.judge_id == judge_id,
                                                   JudgeItem.state.in_(("running", "failed"))))
    if judge.annotator_id is None:
        annotator = _add_annotator(judge.campaign, judge.user, None)
        with db.write():
            db.session.execute(update(Judge).where(Judge.id == judge_id).values(annotator_id=annotator.id))
        db.session.refresh(judge)
    return judge


def _client(judge: Judge) -> ScoringJudge:
    config = EndpointConfig(base_url=judge.base_url, model=judge.model, api_key=api_key(judge),
                            temperature=judge.temperature, timeout=judge.timeout,
                            requests_per_minute=judge.requests_per_minute,
                            price_prompt_per_1k=judge.price_prompt_per_1k,
                            price_completion_per_1k=judge.price_completion_per_1k)
    testset = judge.campaign.testset
    return ScoringJudge(ChatClient(config), load_prompts(prompts_folder(judge.prompts_dir) if judge.prompts_dir else None), mode=judge.mode,
                        max_rounds=judge.max_rounds, source_language=language_name(testset.src_lang),
                        target_language=language_name(testset.tgt_lang))


#: how the prompts name a test set's languages (other codes are shown as they are)
LANGUAGES = {"zh": "Chinese", "en": "English", "de": "German", "fr": "French", "es": "Spanish", "ja": "Japanese",
             "ko": "Korean", "ru": "Russian", "ar": "Arabic", "pt": "Portuguese", "it": "Italian", "cs": "Czech"}


def language_name(code: str) -> str:
    return LANGUAGES.get((code or "").split("-")[0].lower(), code)


def _claim(judge_id: int, item_id: int, key: str, token: str) -> bool:
    try:
        with db.write():
            holder = db.session.scalar(select(Judge.run_token).where(Judge.id == judge_id))
            if holder != token:
                return False
            db.session.add(JudgeItem(judge_id=judge_id, item_id=item_id, key=key, run_token=token))
        return True
    except IntegrityError:   # judged already, or claimed by another live run
        return False


def _assignment(judge: Judge, item_id: int) -> Assignment:
    asg = db.session.scalar(select(Assignment).where(Assignment.item_id == item_id,
                                                     Assignment.annotator_id == judge.annotator_id))
    if asg is None:
        number = (db.session.scalar(select(func.max(Assignment.number))
                                    .where(Assignment.annotator_id == judge.annotator_id)) or 0) + 1
        now = utcnow()
        asg = Assignment(campaign_id=judge.campaign_id, item_id=item_id, annotator_id=judge.annotator_id,
                         number=number, public_id=secrets.token_urlsafe(12), state="finished",
                         started_at=now, last_active_at=now, finished_at=now)
        db.session.add(asg)
        db.session.flush()
    return asg


def _store(judge: Judge, item_id: int, task: JudgeTask, result: ItemResult, token: str) -> None:
    with db.write():
        # One store at a time per judge (a row lock on PostgreSQL; SQLite writes one at a time anyway):
        # the judge's next assignment number is max + 1, which two threads must not both take.
        db.session.execute(select(Judge.id).where(Judge.id == judge.id).with_for_update())
        row = db.session.scalar(select(JudgeItem).where(JudgeItem.judge_id == judge.id, JudgeItem.item_id == item_id,
                                                        JudgeItem.key == task.key, JudgeItem.run_token == token))
        if row is None:   # the claim was dropped: another run took the judge over
            return
        calls = result.calls
        row.transcript = result.transcript()
        row.rounds, row.consensus, row.error = result.rounds, result.consensus, result.error
        row.calls, row.retried_calls = len(calls), sum(c.retried for c in calls)
        row.prompt_tokens, row.completion_tokens, row.cost = (result.prompt_tokens, result.completion_tokens,
                                                              result.cost)
        row.seconds = round(sum(c.seconds for c in calls), 3)
        row.finished_at = utcnow()
        row.state = "failed"
        if result.ok:
            data = {**result.scores(), "refusal": None, "comment": result.judge_reasons[:2000]}
            asg = _assignment(judge, item_id)
            try:
                data = protocol_of(judge.campaign).check_response(asg, task.kind, task.key, data)
            except ServiceError as exc:
                row.error = f"the campaign refused the judge's scores: {exc.message}"
            else:
                row.scores, row.state = result.scores(), "ok"
                now = utcnow()
                db.session.add(Response(assignment_id=asg.id, uuid=str(uuid.uuid4()), kind=task.kind,
                                        key=task.key, data=data, created_at=now, updated_at=now))


def beat(app, holder, holder_id: int, token: str, stop: threading.Event, lost: threading.Event) -> None:
    """The heartbeat of a run holding ``holder`` (a table with ``run_token`` and ``heartbeat_at``: a judge, an
    ESA^AI suggester) every :data:`HEARTBEAT_EVERY` seconds until ``stop``; sets ``lost`` once another run
    has taken the token over."""
    while not stop.wait(HEARTBEAT_EVERY):
        with app.app_context(), db.write():
            kept = db.session.execute(update(holder).where(holder.id == holder_id, holder.run_token == token)
                                      .values(heartbeat_at=utcnow())).rowcount
        if not kept:
            lost.set()
            return


def run_judge(judge_id: int) -> dict[str, Any]:
    """The ``llm`` queue's task body (and ``enface campaign run-judge``): score what is left, then stop."""
    token = secrets.token_hex(8)
    try:
        judge = _take(judge_id, token)
    except ServiceError as exc:
        with db.write():
            db.session.execute(update(Judge).where(Judge.id == judge_id, Judge.state == "queued")
                               .values(state="failed", message=exc.message))
        return {"judge": judge_id, "state": "failed", "message": exc.message}
    if judge is None:
        return {"judge": judge_id, "skipped": "another run holds this judge"}
    app = current_app._get_current_object()
    stop, lost = threading.Event(), threading.Event()
    counts = {"scored": 0, "failed": 0, "skipped": 0}
    lock = threading.Lock()
    try:
        scorer = _client(judge)
        done = set(db.session.execute(select(JudgeItem.item_id, JudgeItem.key)
                                      .where(JudgeItem.judge_id == judge_id, JudgeItem.state == "ok")).all())
        todo = [(item.id, task) for item, task in tasks_of(judge.campaign) if (item.id, task.key) not in done]
        beater = threading.Thread(target=beat, args=(app, Judge, judge_id, token, stop, lost), daemon=True)
        beater.start()

        def one(entry: tuple[int, JudgeTask]) -> None:
            item_id, task = entry
            with app.app_context():
                if lost.is_set() or not _claim(judge_id, item_id, task.key, token):
                    outcome = "skipped"
                else:
                    try:
                        result = scorer.score(task.item, task.scale)
                    except Exception as exc:   # noqa: BLE001 - whatever one answer did fails that item, not the run
                        result = ItemResult(id=str(task.item.get("id", item_id)),
                                            error=f"{type(exc).__name__}: {str(exc)[:300]}")
                    _store(db.session.get(Judge, judge_id), item_id, task, result, token)
                    outcome = "scored" if result.ok else "failed"
            with lock:
                counts[outcome] += 1

        with ThreadPoolExecutor(max_workers=judge.concurrency, thread_name_prefix=f"judge{judge_id}") as pool:
            list(pool.map(one, todo))
        final = "done"
        message = (f"{counts['failed']} of {len(todo)} item(s) could not be scored: the reasons are below"
                   if counts["failed"] else "")
        if lost.is_set():
            message = "another run took this judge over (this run's heartbeat had gone stale)"
    except ServiceError as exc:
        final, message = "failed", exc.message
    except Exception as exc:   # recorded for the organizer; the worker keeps running
        final, message = "failed", f"{type(exc).__name__}: {exc}"
    finally:
        stop.set()
    with db.write():
        db.session.execute(update(Judge).where(Judge.id == judge_id, Judge.run_token == token).values(
            state=final, message=message, run_token=None, finished_at=utcnow()))
    return {"judge": judge_id, **counts, "state": final, "message": message}


def sweep_stalled() -> list[int]:
    """Queue again every judge whose run died (state ``running``, heartbeat stale): ``enface serve``'s
    sweeper calls this every minute, so a killed worker's judge resumes by itself. Returns their ids."""
    cutoff = utcnow() - timedelta(seconds=stale_after())
    stalled = db.session.scalars(select(Judge).where(Judge.state == "running", Judge.heartbeat_at < cutoff)).all()
    requeued = []
    for judge in stalled:
        try:
            queue_run(judge)
        except ServiceError:   # the campaign was closed for judging meanwhile; the page says so
            continue
        requeued.append(judge.id)
    return requeued
