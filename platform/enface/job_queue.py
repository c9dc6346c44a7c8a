"""The job queue: the Celery app, its queues and routes, and :func:`enqueue`.

Validation and scoring go to the ``cpu`` queue, COMET to the ``gpu`` queue, LLM judge runs
(:mod:`enface.judges`, the id is a judge's) to the ``llm`` queue.

The embedded default needs nothing installed: a SQLite broker
(``sqla+sqlite:///<data_dir>/broker.sqlite``) and result backend, and a worker
that ``enface serve`` starts beside gunicorn. Scale out with
``ENFACE_BROKER_URL=redis://...`` and more workers::

    celery -A enface.worker worker -Q cpu          # CPU hosts
    celery -A enface.worker worker -Q gpu -c 1     # GPU hosts (ENFACE_COMET_MODEL set)

Workers ack late with a prefetch of one, so a job is taken only when a
process is free. The SQLite transport never redelivers a message whose
worker died, and other brokers may not either before a long timeout: the
sweeper (:func:`enface.services.pipeline.sweep`, run by ``enface serve``
every minute, by ``enface sweep``, or as the ``enface.sweep`` task) requeues
any submission without a heartbeat.

Tasks only carry a submission id; the state lives in the database.

This module knows the tasks by name only and imports no service: the services
call :func:`enqueue`, and the task bodies (:mod:`enface.jobs.tasks`) call the
services, so neither side imports the other in a cycle.
"""

from __future__ import annotations

import logging
import socket
import time
from queue import Empty

from celery import Celery, Task
from celery.signals import worker_process_init
from flask import Flask
from kombu.transport import sqlalchemy as kombu_sql

log = logging.getLogger(__name__)

#: job -> (task name, queue). The tasks are defined in enface.jobs.tasks.
QUEUES = {"validate": ("enface.validate_submission", "cpu"),
          "score": ("enface.score_submission", "cpu"),
          "gpu": ("enface.gpu_metrics_submission", "gpu"),   # the registry's gpu-queue metrics (COMET)
          "rank": ("enface.rank_testset", "cpu"),   # a test set's automatic clusters (takes a test set id)
          # LLM judges (enface.judges) wait on remote endpoints, not on CPUs: their own queue.
          "judge": ("enface.run_judge", "llm")}
SWEEP_TASK = "enface.sweep"
PING_TASK = "enface.ping"   # enface doctor: sent to one queue at a time, answered by whichever worker serves it
WORKER_QUEUES = ("cpu", "gpu", "llm")


def celery_init_app(app: Flask) -> Celery:
    """A Celery app bound to ``app``: every task runs inside an app context (Flask's documented pattern)."""

    class FlaskTask(Task):
        def __call__(self, *args, **kwargs):
            with app.app_context():
                return self.run(*args, **kwargs)

    celery = Celery(app.name, task_cls=FlaskTask, set_as_current=False)
    broker = app.config["CELERY_BROKER_URL"]
    backend = app.config["CELERY_RESULT_BACKEND"]
    conf = {
        "broker_url": broker,
        "result_backend": backend,
        "task_ignore_result": True,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_default_queue": "cpu",
        "task_routes": {name: {"queue": queue} for name, queue in QUEUES.values()} | {
            SWEEP_TASK: {"queue": "cpu"}},
        "task_always_eager": app.config.get("JOBS") == "eager",
        "task_eager_propagates": False,
        "broker_connection_retry_on_startup": True,
        "worker_hijack_root_logger": False,
        "beat_schedule": {"sweep": {"task": SWEEP_TASK, "schedule": max(10, app.config["SWEEP_EVERY_SECONDS"])}},
    }
    if broker.startswith("sqla+"):
        # kombu's SQL transport, polled more often (below); the URL without its "sqla+" prefix, which
        # would choose kombu's own class
        conf["broker_url"], conf["broker_transport"] = broker.removeprefix("sqla+"), PolledSqlTransport
    if broker.startswith("sqla+sqlite"):
        conf["broker_transport_options"] = {"connect_args": {"timeout": 30}}
    elif broker.startswith(("redis://", "rediss://")):
        # Redis redelivers unacked messages after the visibility timeout; scoring a WMT-size test set
        # takes minutes, so give it an hour (the sweeper watches heartbeats meanwhile).
        conf["broker_transport_options"] = {"visibility_timeout": 3600}
        if app.config.get("BROKER_KEY_PREFIX"):
            conf["broker_transport_options"]["global_keyprefix"] = app.config["BROKER_KEY_PREFIX"]
    if backend.startswith("db+sqlite"):
        conf["database_engine_options"] = {"connect_args": {"timeout": 30}}
    celery.conf.update(conf)
    celery.set_default()
    celery.flask_app = app
    app.extensions["celery"] = celery
    return celery


class PolledSqlTransport(kombu_sql.Transport):
    """kombu's SQL broker transport, asked for a job every 0.2 s instead of every second.

    A SQL broker is polled (Redis pushes), and kombu's default interval of 1 s added up to a second to
    every job; a submission's validate, score and rank jobs run one after another, so users waited
    seconds for nothing. Five small SELECTs a second per idle worker cost nothing next to that.
    (kombu hands every transport option to ``create_engine``, so the interval is a class attribute.)
    """

    polling_interval = 0.2

    def drain_events(self, connection, timeout=None):
        """kombu's polling loop, which also ends at the next poll once the worker has been asked to stop.

        Celery's loop for polled brokers checks for a stop only between drains of 2 s, and drains once
        more after it: a worker took some 3 s to begin its warm shutdown after SIGTERM, which every
        ``enface serve`` and ``demo`` stop (and every test of a real worker) waited through.
        """
        # (imported here: only a worker process drains; the web side never does)
        from celery.worker import state

        started = time.monotonic()
        while True:
            try:
                return self.cycle.get(self._deliver, timeout=timeout)
            except Empty:
                stopping = state.should_stop is not None or state.should_terminate is not None
                if timeout is not None and (stopping or time.monotonic() - started >= timeout):
                    raise socket.timeout() from None
                time.sleep(self.polling_interval)


@worker_process_init.connect
def _after_fork(**_kwargs) -> None:
    """A forked worker child must not share the parent's database connections."""
    from celery import current_app as current_celery

    flask_app = getattr(current_celery, "flask_app", None)
    if flask_app is not None:
        flask_app.extensions["enface_db"][0].dispose(close=False)


def declare_queues(broker_url: str) -> None:
    """Create the broker's queues once, before a web server and a worker start side by side.

    kombu's SQL transport creates its tables and queue rows by check-then-insert
    under a lock that holds within one process only. A web process publishing
    its first job while the worker starts can lose that race ("table
    kombu_queue already exists", "UNIQUE constraint failed: kombu_queue.name"),
    and the lost job would wait for the sweeper. Redis and AMQP declare
    atomically and need nothing here.
    """
    if not broker_url.startswith("sqla+"):
        return
    from kombu import Connection, Exchange, Queue

    with Connection(broker_url, transport_options={"connect_args": {"timeout": 30}}) as conn:
        channel = conn.default_channel
        for name in sorted({queue for _task, queue in QUEUES.values()}):
            Queue(name, Exchange(name, "direct"), routing_key=name)(channel).declare()


def enqueue(job: str, submission_id: int) -> None:
    """Queue a job for a submission: ``job`` is a key of :data:`QUEUES` (``validate``, ``score``, ``gpu``;
    ``rank`` takes a test set's id, ``judge`` a judge's id instead).

    The task is found by its name in the app's Celery (``task_routes`` sends it
    to its queue); where this process has not registered the task, the message
    is sent by name for a worker to run.

    Celery already retries a publish that fails with a broker connection error
    (``task_publish_retry``). What still fails is logged, not raised: the
    submission keeps its state and heartbeat, and the sweeper queues it again
    once it looks stuck.
    """
    from flask import current_app

    name, _queue = QUEUES[job]
    celery: Celery = current_app.extensions["celery"]
    try:
        task = celery.tasks.get(name)
        if task is not None:
            task.apply_async((submission_id,))   # eager in tests (task_always_eager)
        else:
            celery.send_task(name, (submission_id,))
    except Exception:
        log.exception("could not queue %s for submission %s; the sweeper will retry", job, submission_id)
