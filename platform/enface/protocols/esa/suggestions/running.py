"""An LLM suggester's run: every segment of the campaign asked for its error spans, resumable.

The endpoint is a judge's (:class:`humaneval.judge.ChatClient`: retries on 429, 5xx and
timeouts, the rate limit, tokens and cost; the key decrypted or read from an allowed
environment variable, :func:`enface.judges.setup.api_key`), the question the error-span
prompt (:class:`humaneval.esa.llm.SpanSuggester`: a malformed answer is sent back once
with the problem named). Each segment is claimed first (its unique ``esa_suggestions``
row in state ``running``), then stored with its transcript in one transaction, so a run
that dies leaves at most its in-flight claims, which the next run takes over; a segment
already suggested is never asked again. The heartbeat and the stale rule are the judges'.

The run goes to the ``llm`` queue as the task ``enface.esa_suggest`` (the id is the suggester's).
"""

from __future__ import annotations

import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from celery import shared_task
from flask import current_app
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from humaneval.esa.llm import SpanItem, SpanSuggester, SuggestionResult, load_span_prompts
from humaneval.judge import ChatClient, EndpointConfig

from ....campaigns.services.common import bad
from ....extensions import db
from ....judges.running import beat, is_alive, language_name
from ....judges.setup import api_key, prompts_folder, run_refusal
from ....models import utcnow
from ....services import ServiceError
from .models import Suggester, Suggestion
from .spans import span_to_json
from .targets import Target, campaign_targets

TASK = "enface.esa_suggest"
QUEUE = "llm"


def queue_run(suggester: Suggester) -> None:
    """Queue a run on the ``llm`` queue (refused while one is alive, or for a file's suggestions)."""
    _check_runnable(suggester)
    with db.write():
        db.session.execute(update(Suggester).where(Suggester.id == suggester.id).values(state="queued", message=""))
    celery = current_app.extensions["celery"]
    task = celery.tasks.get(TASK)
    try:
        if task is not None:
            task.apply_async((suggester.id,), queue=QUEUE)   # eager in tests
        else:
            celery.send_task(TASK, (suggester.id,), queue=QUEUE)
    except Exception as exc:   # the broker is down: say so rather than leave it "queued" for ever
        with db.write():
            db.session.execute(update(Suggester).where(Suggester.id == suggester.id, Suggester.state == "queued")
                               .values(state="failed", message=f"could not queue the run: {type(exc).__name__}"))


def _check_runnable(suggester: Suggester) -> None:
    if suggester.source != "llm":
        raise bad("not_llm", "these suggestions come from an uploaded file: there is nothing to run", 409)
    if suggester.campaign.state not in ("draft", "open"):
        raise bad("bad_state", f"this campaign is {suggester.campaign.state}: its suggestions are fixed", 409)
    if is_alive(suggester):
        raise bad("suggester_running", "the suggester is running already", 409)
    refusal = run_refusal(suggester)
    if refusal:
        raise bad("suggester_not_allowed", refusal.replace("this judge", "this suggester"), 409)


def _take(suggester_id: int, token: str) -> Suggester | None:
    with db.write():
        suggester = db.session.get(Suggester, suggester_id)
        db.session.refresh(suggester)
        if is_alive(suggester):
            return None
        _check_runnable(suggester)
        now = utcnow()
        suggester.state, suggester.run_token, suggester.heartbeat_at = "running", token, now
        suggester.started_at, suggester.finished_at, suggester.message = now, None, ""
        db.session.execute(delete(Suggestion).where(Suggestion.suggester_id == suggester_id,
                                                    Suggestion.state.in_(("running", "failed"))))
    return suggester


def span_suggester(suggester: Suggester) -> SpanSuggester:
    config = EndpointConfig(base_url=suggester.base_url, model=suggester.model, api_key=api_key(suggester),
                            temperature=suggester.temperature, timeout=suggester.timeout,
                            requests_per_minute=suggester.requests_per_minute,
                            price_prompt_per_1k=suggester.price_prompt_per_1k,
                            price_completion_per_1k=suggester.price_completion_per_1k)
    testset = suggester.campaign.testset
    prompts = load_span_prompts(prompts_folder(suggester.prompts_dir) if suggester.prompts_dir else None)
    return SpanSuggester(ChatClient(config), prompts, language_name(testset.src_lang), language_name(testset.tgt_lang))


def _claim(suggester_id: int, target: Target, token: str) -> bool:
    try:
        with db.write():
            if db.session.scalar(select(Suggester.run_token).where(Suggester.id == suggester_id)) != token:
                return False
            db.session.add(Suggestion(suggester_id=suggester_id, version_id=target.version_id,
                                      document_id=target.document_id, position=target.position, run_token=token))
        return True
    except IntegrityError:   # suggested already, or claimed by another live run
        return False


def _store(suggester_id: int, target: Target, result: SuggestionResult, token: str) -> None:
    with db.write():
        row = db.session.scalar(select(Suggestion).where(
            Suggestion.suggester_id == suggester_id, Suggestion.version_id == target.version_id,
            Suggestion.document_id == target.document_id, Suggestion.position == target.position,
            Suggestion.run_token == token))
        if row is None:   # the claim was dropped: another run took over
            return
        transcript = result.transcript()
        transcript["item"], transcript["system"] = target.item, target.system
        row.transcript, row.error = transcript, result.error
        row.calls, row.retried_calls = len(result.calls), sum(c.retried for c in result.calls)
        row.prompt_tokens, row.completion_tokens = transcript["prompt_tokens"], transcript["completion_tokens"]
        row.cost, row.seconds = transcript["cost"], round(sum(c.seconds for c in result.calls), 3)
        row.finished_at = utcnow()
        if result.ok:
            row.state, row.spans, row.score = "ok", [span_to_json(s) for s in result.spans], result.score
        else:
            row.state = "failed"


def run_suggester(suggester_id: int) -> dict[str, Any]:
    """The task body: ask for every segment not suggested yet, then stop. Returns the counts."""
    token = secrets.token_hex(8)
    try:
        suggester = _take(suggester_id, token)
    except ServiceError as exc:
        with db.write():
            db.session.execute(update(Suggester).where(Suggester.id == suggester_id, Suggester.state == "queued")
                               .values(state="failed", message=exc.message))
        return {"suggester": suggester_id, "state": "failed", "message": exc.message}
    if suggester is None:
        return {"suggester": suggester_id, "skipped": "another run holds this suggester"}
    app = current_app._get_current_object()
    stop, lost = threading.Event(), threading.Event()
    counts = {"suggested": 0, "failed": 0, "skipped": 0}
    lock = threading.Lock()
    try:
        asker = span_suggester(suggester)
        done = set(db.session.execute(select(Suggestion.version_id, Suggestion.document_id, Suggestion.position)
                                      .where(Suggestion.suggester_id == suggester_id, Suggestion.state == "ok")).all())
        todo = [t for t in campaign_targets(suggester.campaign) if t.key not in done]
        beater = threading.Thread(target=beat, args=(app, Suggester, suggester_id, token, stop, lost), daemon=True)
        beater.start()

        def one(target: Target) -> None:
            with app.app_context():
                if lost.is_set() or not _claim(suggester_id, target, token):
                    outcome = "skipped"
                else:
                    item = SpanItem(target.item, target.system, target.source, target.translation, target.context)
                    try:
                        result = asker.suggest(item)
                    except Exception as exc:   # noqa: BLE001 - one answer's trouble fails that segment, not the run
                        result = SuggestionResult(target.item, target.system,
                                                  error=f"{type(exc).__name__}: {str(exc)[:300]}")
                    _store(suggester_id, target, result, token)
                    outcome = "suggested" if result.ok else "failed"
            with lock:
                counts[outcome] += 1

        with ThreadPoolExecutor(max_workers=suggester.concurrency, thread_name_prefix=f"esa-suggest{suggester_id}") as pool:
            list(pool.map(one, todo))
        final = "done"
        message = (f"{counts['failed']} of {len(todo)} segment(s) got no suggestion: the reasons are below"
                   if counts["failed"] else "")
        if lost.is_set():
            message = "another run took this suggester over (this run's heartbeat had gone stale)"
    except ServiceError as exc:
        final, message = "failed", exc.message
    except Exception as exc:   # recorded for the organizer; the worker keeps running
        final, message = "failed", f"{type(exc).__name__}: {exc}"
    finally:
        stop.set()
    with db.write():
        db.session.execute(update(Suggester).where(Suggester.id == suggester_id, Suggester.run_token == token).values(
            state=final, message=message, run_token=None, finished_at=utcnow()))
    return {"suggester": suggester_id, **counts, "state": final, "message": message}


@shared_task(name=TASK)
def esa_suggest_task(suggester_id: int):
    return run_suggester(suggester_id)
