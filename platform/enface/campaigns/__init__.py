"""The human-evaluation core, the organizer's side: create a campaign of any protocol, invite
annotators, start, watch, rebalance, export, release.

The tables are in :mod:`~enface.campaigns.models`, the rules in :mod:`~enface.campaigns.services` (and the pure parts
in :mod:`~enface.campaigns.sampling`, :mod:`~enface.campaigns.assignment` and :mod:`~enface.campaigns.reading`), the protocol interface in :mod:`~enface.campaigns.protocol`;
:mod:`~enface.campaigns.views` are thin. The blueprint (``bp``) is imported on first use, so that
``enface campaign --help`` stays quick.
"""

from __future__ import annotations


def __getattr__(name: str):
    if name == "bp":
        from .views import bp

        return bp
    raise AttributeError(name)
