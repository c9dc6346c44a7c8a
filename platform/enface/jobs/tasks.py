"""The Celery tasks: each takes a submission id and calls the pipeline service.

The services are imported inside the task bodies: a worker imports this module
when the app is created, and the pipeline (scoring, sacrebleu) loads when the
first job runs. The tasks are queued by name through :func:`enface.job_queue.enqueue`.
"""

from __future__ import annotations

from celery import shared_task

from ..job_queue import PING_TASK, QUEUES, SWEEP_TASK


@shared_task(name=QUEUES["validate"][0])
def validate_submission(submission_id: int):
    from ..services.pipeline import run_validation

    return run_validation(submission_id)


@shared_task(name=QUEUES["score"][0])
def score_submission(submission_id: int):
    from ..services.pipeline import run_scoring

    return run_scoring(submission_id)


@shared_task(name=QUEUES["gpu"][0])
def gpu_metrics_submission(submission_id: int):
    from ..services.pipeline import run_gpu_metrics

    return run_gpu_metrics(submission_id)


@shared_task(name=QUEUES["rank"][0])
def rank_testset(testset_id: int):
    from ..services.auto_ranking import run

    return run(testset_id)


@shared_task(name=QUEUES["judge"][0])
def run_judge(judge_id: int):
    from ..judges.running import run_judge as run

    return run(judge_id)


@shared_task(name=SWEEP_TASK)
def sweep_task():
    from ..services.pipeline import sweep

    return [list(x) for x in sweep()]


@shared_task(name=PING_TASK, ignore_result=False)
def ping():
    """``enface doctor`` asks each queue for this: which worker took it (its host name)."""
    import socket

    return socket.gethostname()
