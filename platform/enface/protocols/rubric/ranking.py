"""A rubric campaign's official human ranking: every system ranked together by the people's Σ scores.

The units of the paired test are the phenomenon items (document, segment, dimension), the
same for every system; a system's score on a unit is its Σ (S + G1 + G2, 0-6) averaged over
the human raters who scored it. LLM judges are machine annotators (``machine`` rows): they are
compared with the people on the meta-evaluation page, never pooled into the human ranking.
The systems are ordered by the people's overall average Σ (DITING's headline number, the
unweighted mean of the dimension Σs), higher is better; clusters and rank ranges come from
:func:`enface.campaigns.services.ranking.official_ranking` with the campaign's paired test.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any

from humaneval.rubric import CRITERION_KEYS, rubric_results

from ...campaigns.models import Campaign
from ...campaigns.services.ranking import official_ranking
from .settings import campaign_rubric

#: the ranking's name on the leaderboard, the head-to-head page and the paper's table
NAME = "Rubric Σ"
UNIT = "phenomenon item"


def human_rows(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The people's score rows (an LLM judge's rows are ``machine``)."""
    return [r for r in rows if not r.get("machine")]


def unit_scores(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[tuple[str, int, str], float]]:
    """{system: {(document, segment, dimension): Σ averaged over its raters}} of the given rows."""
    sums: dict[str, dict[tuple[str, int, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        sums[r["system"]][(r["document"], int(r["segment"]), r["dimension"])].append(
            float(sum(r[k] for k in CRITERION_KEYS)))
    return {system: {unit: fmean(values) for unit, values in units.items()} for system, units in sums.items()}


def rubric_ranking(campaign: Campaign, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The official ranking from the human rows of ``rows`` (:func:`~enface.protocols.rubric.results.response_rows`); None
    when no person has scored anything."""
    people = human_rows(rows)
    if not people:
        return None
    overall = {s["system"]: float(s["overall"])
               for s in rubric_results(people, campaign_rubric(campaign), with_agreement=False)["systems"]}
    return official_ranking(campaign, unit_scores(people), scores=overall, higher_is_better=True,
                            unit=UNIT, name=NAME)
