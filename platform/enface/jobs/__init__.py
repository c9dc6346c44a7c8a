"""Background jobs (Celery): validation and scoring on the ``cpu`` queue, COMET on the ``gpu`` queue.

* :mod:`enface.jobs.queue`: the Celery app bound to Flask, queues and routes, :func:`enqueue`.
  It imports no service, so the services import it freely.
* :mod:`enface.jobs.tasks`: the task bodies, which call :mod:`enface.services.pipeline`.

Importing this package registers the tasks (``create_app`` does, so does ``celery -A enface.worker``).
"""

from . import tasks
from .queue import QUEUES, celery_init_app, declare_queues, enqueue

__all__ = ["QUEUES", "celery_init_app", "declare_queues", "enqueue", "tasks"]
