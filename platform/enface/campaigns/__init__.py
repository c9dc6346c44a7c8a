"""MQM campaigns, the organizer's side: create, invite annotators, start, watch, export, release.

The models are in :mod:`.models`, the rules in :mod:`.services` (and the pure
parts in :mod:`.logic`); :mod:`.views` are thin. The blueprint (``bp``) is
imported on first use, so that ``enface campaign --help`` stays quick.
"""

from __future__ import annotations


def __getattr__(name: str):
    if name == "bp":
        from .views import bp

        return bp
    raise AttributeError(name)
