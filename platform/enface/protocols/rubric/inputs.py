"""What a rubric campaign is created from (the web form, ``enface campaign create``, the demo, the tests)."""

from __future__ import annotations

from typing import Any

from ...campaigns.options import CampaignInput
from ...services.phenomena import testset_phenomena
from .settings import DEFAULTS

KEY = "rubric"


def phenomenon_documents(testset) -> list[str]:
    """The documents with at least one phenomenon, in test-set order: the default ranges."""
    return list(dict.fromkeys(p.document.name for p in testset_phenomena(testset)))


def campaign_input(*, name: str, submission_ids: list[int], redundancy: Any = 1, strategy: str = "",
                   ranges: str = "", instructions: str = "", rubric: Any = DEFAULTS["rubric"],
                   show_reference: bool = True, guidelines: str = "", seed: int | None = None,
                   significance_test: str = DEFAULTS["significance_test"], testset=None) -> CampaignInput:
    """A rubric campaign's :class:`CampaignInput` (the web form, the CLI, the demo and the tests build one so). Empty ``ranges``:
    every document with phenomena (never a random sample: the tags say what to evaluate)."""
    if not ranges.strip() and testset is not None:
        ranges = "\n".join(phenomenon_documents(testset))
    return CampaignInput(name=name, submission_ids=submission_ids, protocol=KEY, redundancy=redundancy,
                         strategy=strategy, ranges=ranges, instructions=instructions, seed=seed,
                         settings={"rubric": rubric, "show_reference": show_reference,
                                   "guidelines": guidelines, "significance_test": significance_test})
