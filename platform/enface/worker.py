"""Celery entry point: ``celery -A enface.worker worker -Q cpu,gpu`` (``enface serve`` starts one)."""

from enface import create_app

flask_app = create_app()
celery = flask_app.extensions["celery"]
