"""The built-in human-evaluation protocols. Importing this package registers them with the core.

Each protocol is one folder (models, services, routes, templates, JS); the core
(:mod:`enface.campaigns`) never imports them, it dispatches on ``Campaign.protocol``.
"""

from __future__ import annotations

import importlib

BUILT_IN = ("mqm", "reader", "rubric", "esa")


def load_all() -> None:
    """Imports every built-in protocol (registering it) and its tables."""
    for name in BUILT_IN:
        importlib.import_module(f"{__name__}.{name}.protocol")
        importlib.import_module(f"{__name__}.{name}.models")


def init_app(app) -> None:
    load_all()
    from ..campaigns.protocol import PROTOCOLS

    for protocol in PROTOCOLS.values():
        if protocol.blueprint is not None and protocol.blueprint.name not in app.blueprints:
            app.register_blueprint(protocol.blueprint)
