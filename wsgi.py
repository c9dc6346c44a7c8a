"""WSGI entry point for gunicorn: ``gunicorn wsgi:app`` (``enface serve`` runs ``gunicorn "enface:create_app()"``)."""

from enface import create_app

app = create_app()
