"""Crowd-ready campaigns for every protocol: account-free links, welcome forms with consent, tutorials
that give feedback, and completion codes (the things a panel such as Prolific needs).

Tables in :mod:`~enface.crowd.models`; services in :mod:`~enface.crowd.links`, :mod:`~enface.crowd.welcome`,
:mod:`~enface.crowd.tutorial`, :mod:`~enface.crowd.codes` and :mod:`~enface.crowd.flow`; the pages in
:mod:`~enface.crowd.views` (``bp``, imported on first use).
"""

from __future__ import annotations


def __getattr__(name: str):
    if name == "bp":
        from .views import bp

        return bp
    raise AttributeError(name)
