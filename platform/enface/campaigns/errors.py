"""The error of the campaign core's pure parts (sampling, assignment): a campaign cannot be built as asked."""

from __future__ import annotations


class CampaignError(ValueError):
    """A campaign cannot be built as asked; the message says why and what to change."""
