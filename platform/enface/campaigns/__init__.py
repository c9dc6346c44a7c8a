"""The human-evaluation core, the organizer's side: create a campaign of any protocol, invite
annotators, start, watch, rebalance, export, release.

The tables are in :mod:`.models`, the rules in :mod:`.services` (and the pure parts
in :mod:`.logic` and :mod:`.reading`), the protocol interface in :mod:`.protocol`;
:mod:`.views` are thin. The blueprint (``bp``) is imported on first use, so that
``enface campaign --help`` stays quick.
"""

from __future__ import annotations


def __getattr__(name: str):
    if name == "bp":
        from .views import bp

        return bp
    raise AttributeError(name)
