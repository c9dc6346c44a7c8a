"""Enface's own human-evaluation protocols (MQM, the reader study, the rubric), one folder each.

They are plug-ins like any other: each is declared as an entry point of the group
``enface.protocols`` in ``pyproject.toml`` and found by :mod:`enface.campaigns.discovery`;
the core never imports them.
"""

from __future__ import annotations


def load_all() -> None:
    """Imports and registers every installed protocol (the built-in ones and any other)."""
    from ..campaigns.discovery import load_protocols

    load_protocols()


def init_app(app) -> None:
    from ..campaigns.discovery import init_app

    init_app(app)
