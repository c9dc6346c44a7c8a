"""What every command module shares: the app, and how a command fails.

Imported by the command modules; it imports none of them (nor ``enface.commands``), so the
command modules and the root group in ``__init__`` never import each other in a cycle.
"""

from __future__ import annotations

import click


def load_app():
    """The Flask app, configured from the ENFACE_* environment variables."""
    from .. import create_app

    return create_app()


def fail(message: str, code: int = 1):
    """Print ``enface: message`` on stderr and exit with ``code``."""
    click.echo(f"enface: {message}", err=True)
    raise SystemExit(code)
