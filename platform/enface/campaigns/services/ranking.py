"""The official human ranking of a campaign: every evaluated system ranked together, the WMT way.

A protocol gives its human scores per system and per unit (MQM: segments or documents;
a rubric: items; a reader study: chunks) and the system scores that order them;
:func:`official_ranking` ranks all of them together (primary systems, baselines,
human references, marked by ``kind``) with :func:`scoring.human_ranking.rank_systems`:
the paired test the campaign's ``significance_test`` setting names (Wilcoxon
signed-rank by default, as WMT; or approximate randomisation), rank ranges
``losses + 1 .. N - wins`` and clusters. Computed when results are computed and
frozen with the release, so the leaderboard never runs a test per request.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from scoring.human_ranking import DEFAULT_TEST, TESTS, rank_systems

from ..models import Campaign
from .setup import system_labels

#: (kind, title) of the ranking's "Type" column: the leaderboard's groups, then the human references
KINDS = [("baseline", "Baseline"), ("primary-constrained", "Primary"), ("primary-unconstrained", "Primary ⋆"),
         ("contrastive", "Contrastive"), ("reference", "Human reference")]
KIND_TITLES = dict(KINDS)


def significance_test(campaign: Campaign) -> str:
    """The campaign's paired test for its human ranking (setting ``significance_test``), WMT's by default."""
    test = campaign.setting("significance_test", DEFAULT_TEST) or DEFAULT_TEST
    return test if test in TESTS else DEFAULT_TEST


def official_ranking(campaign: Campaign, units: Mapping[str, Mapping[Hashable, float]], *,
                     scores: Mapping[str, float], higher_is_better: bool, unit: str, name: str,
                     test: str | None = None) -> dict[str, Any]:
    """The ranking of the systems of ``units`` ({system label: {unit: score}}), labelled as in results.

    Rows carry ``submission_id``, ``team``, ``constrained``, ``kind`` (the leaderboard group, or
    "reference" for a version that is no submission) and ``kind_title``; pairs carry p-values.
    """
    labels = system_labels(campaign)
    subs = {cs.submission_id: cs.submission for cs in campaign.systems}
    sub_of = {label: subs[sid] for sid, label in labels.items()}
    ranked_units = {s: u for s, u in units.items() if scores.get(s) is not None and u}
    kinds = {s: (sub_of[s].group if s in sub_of else "reference") for s in ranked_units}
    out = rank_systems(ranked_units, scores={s: scores[s] for s in ranked_units},
                       higher_is_better=higher_is_better, test=test or significance_test(campaign), kinds=kinds)
    for row in out["rows"]:
        sub = sub_of.get(row["system"])
        row.update(submission_id=sub.id if sub else None, team=sub.owner_name if sub else "",
                   constrained=sub.constrained if sub else True, kind_title=KIND_TITLES.get(row["kind"], ""))
    for pair in out["pairs"]:
        for key in ("mean_a", "mean_b", "p_value"):
            if pair[key] is not None:
                pair[key] = round(float(pair[key]), 6)
    out.update(name=name, unit=unit)
    return out
