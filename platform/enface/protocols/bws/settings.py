"""A BWS campaign's settings, checked: tuple size, tuples per passage, passage length, the ranking's test."""

from __future__ import annotations

import math
from typing import Any

from humaneval.bws.design import DEFAULT_TUPLE_SIZE
from humaneval.bws.scores import DEFAULT_SPLITS
from scoring.human_ranking import DEFAULT_TEST, TESTS

from ...campaigns.models import Campaign
from ...campaigns.services import bad, whole_number
from ...services.accounts import check_text
from .selection import SELECTIONS

DEFAULTS: dict[str, Any] = {
    "tuple_size": DEFAULT_TUPLE_SIZE,   # translations shown together
    "tuples_per_passage": 0,            # 0: the fewest that show every version equally often
    "passage_segments": 1,              # consecutive segments of a source passage (1: a segment is a paragraph)
    "splits": DEFAULT_SPLITS,           # random splits of the split-half reliability
    "significance_test": DEFAULT_TEST,
    "guidelines": "",
    "passage_budget": 0,                # passages to evaluate (0: every passage of the ranges)
    "selection": "uniform",             # how they are chosen: uniform, or a subset2evaluate method
    "selection_metric": "chrf",         # whose segment scores subset2evaluate reads
}
MAX_TUPLE_SIZE = 10
MAX_TUPLES_PER_PASSAGE = 200


def clean_settings(data: dict[str, Any], testset) -> dict[str, Any]:
    given = {k: v for k, v in data.items() if v is not None and v != ""}
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise bad("invalid_field", f"unknown BWS setting(s): {', '.join(unknown)}", field=unknown[0])
    out = {**DEFAULTS, **given}
    out["tuple_size"] = whole_number(out["tuple_size"], "translations per tuple", 2, MAX_TUPLE_SIZE)
    out["tuples_per_passage"] = whole_number(out["tuples_per_passage"], "tuples per passage", 0,
                                             MAX_TUPLES_PER_PASSAGE)
    out["passage_segments"] = whole_number(out["passage_segments"], "segments per passage", 1, 200)
    out["splits"] = whole_number(out["splits"], "split-half splits", 1, 10000)
    if out["significance_test"] not in TESTS:
        raise bad("invalid_field", f"unknown significance test {out['significance_test']!r} "
                  f"(known: {', '.join(TESTS)})", field="significance_test")
    out["passage_budget"] = whole_number(out["passage_budget"], "passage budget", 0, 100000)
    if out["selection"] not in SELECTIONS:
        raise bad("invalid_field", f"unknown passage selection {out['selection']!r} (known: {', '.join(SELECTIONS)})",
                  field="selection")
    out["selection_metric"] = check_text(str(out["selection_metric"]), "selection metric", max_len=50)
    out["guidelines"] = check_text(str(out["guidelines"]).strip(), "guidelines", max_len=20000, required=False,
                                   multiline=True)
    return out


def tuple_size(campaign: Campaign) -> int:
    """The campaign's tuple size, at most its number of versions."""
    return min(int(campaign.setting("tuple_size", DEFAULT_TUPLE_SIZE)), len(campaign.versions))


def tuples_per_passage(campaign: Campaign) -> int:
    """The setting, or the fewest tuples in which every version appears equally often: lcm(versions, size) / size."""
    chosen = int(campaign.setting("tuples_per_passage", 0) or 0)
    if chosen:
        return chosen
    n, size = len(campaign.versions), tuple_size(campaign)
    return max(1, math.lcm(n, size) // size) if n and size else 1


def splits(campaign: Campaign) -> int:
    return int(campaign.setting("splits", DEFAULT_SPLITS))
