"""Background jobs (Celery): validation and scoring on the ``cpu`` queue, COMET on the ``gpu`` queue.

* :mod:`enface.job_queue`: the Celery app bound to Flask, queues and routes, :func:`enqueue`.
  It imports no service, and it lives outside this package so that the services import it
  without running this ``__init__`` (which imports the tasks, which call the services).
* :mod:`enface.jobs.tasks`: the task bodies, which call :mod:`enface.services.pipeline`.

Importing this package registers the tasks (``create_app`` does, so does ``celery -A enface.worker``).
"""

from ..job_queue import QUEUES, celery_init_app, declare_queues, enqueue
from . import tasks

__all__ = ["QUEUES", "celery_init_app", "declare_queues", "enqueue", "tasks"]
