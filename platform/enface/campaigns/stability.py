"""The live ranking's stability on every protocol's dashboard: of the protocol's annotations in the order they
came in (:meth:`~enface.campaigns.protocol.Protocol.ranking_judgments`), how many version pairs are ordered
differently after the first nine tenths than after all of them (:func:`humaneval.selection.ranking_stability`).
"""

from __future__ import annotations

from typing import Any

from humaneval.selection import ranking_stability

from ..services import ServiceError
from .models import Campaign
from .protocol import protocol_of


def campaign_stability(campaign: Campaign) -> dict[str, Any] | None:
    """The figure for the dashboard (``annotations``, ``before``, ``pairs``, ``changed``, ``changed_pairs``,
    ``noun``), or None: a draft, or a protocol without :meth:`ranking_judgments`."""
    if campaign.state == "draft":
        return None
    try:
        found = protocol_of(campaign).ranking_judgments(campaign)
    except ServiceError:   # (what the protocol cannot read, its own panels say; the figure is left out)
        return None
    if found is None:
        return None
    return {**ranking_stability(found.annotations, found.scores).to_dict(), "noun": found.noun}
