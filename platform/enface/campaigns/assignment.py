"""The assignment strategies of every protocol: who annotates which item.

No database and no Flask here, so that each rule is tested on plain data:

* :func:`plan_assignments` ("redundancy") gives each item to N distinct annotators, balancing
  load and never giving an annotator a system of their own team.
* :func:`plan_by_document` ("document") gives all items of a document to the same N annotators.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from .errors import CampaignError

__all__ = ["AnnotatorSpec", "CampaignError", "ItemSpec", "plan_assignments", "plan_by_document"]


@dataclass
class ItemSpec:
    key: Hashable
    team: Hashable | None  # the team whose system this item shows
    words: int
    doc: str
    teams: frozenset = field(default_factory=frozenset)  # more teams, when the item shows several systems

    def conflicts(self, annotator: AnnotatorSpec) -> bool:
        return (self.team is not None and self.team in annotator.teams) or bool(self.teams & annotator.teams)


@dataclass
class AnnotatorSpec:
    key: Hashable
    teams: frozenset = field(default_factory=frozenset)  # teams the annotator belongs to


def plan_assignments(items: Sequence[ItemSpec], annotators: Sequence[AnnotatorSpec], redundancy: int,
                     seed: int = 0) -> dict[Hashable, list[Hashable]]:
    """{item key: [annotator keys]}: each item to ``redundancy`` distinct annotators.

    An annotator never gets an item whose system belongs to one of their teams.
    Load is balanced by item count, then by source words; ties go to annotators
    who already have the same document (denser agreement tables), then at
    random (``seed``). The most constrained items are placed first, so own-team
    exclusions do not starve an item. Raises :class:`CampaignError` when some
    item has fewer than ``redundancy`` eligible annotators.
    """
    if redundancy < 1:
        raise CampaignError("redundancy must be at least 1")
    if not annotators:
        raise CampaignError("the campaign has no annotators yet: invite or add some first")
    rng = random.Random(seed)
    tiebreak = {a.key: rng.random() for a in annotators}
    eligible = {it.key: [a for a in annotators if not it.conflicts(a)] for it in items}
    for it in items:
        if len(eligible[it.key]) < redundancy:
            raise CampaignError(
                f"item {it.doc} (a system of team {it.team}) has {len(eligible[it.key])} eligible annotators "
                f"(annotators of the system's own team are excluded) but redundancy is {redundancy}: "
                "add annotators or lower the redundancy")
    shuffled = list(items)
    rng.shuffle(shuffled)
    order = sorted(shuffled, key=lambda it: len(eligible[it.key]))  # stable: most constrained first
    load_items = {a.key: 0 for a in annotators}
    load_words = {a.key: 0 for a in annotators}
    docs: dict[Hashable, set[str]] = {a.key: set() for a in annotators}
    plan: dict[Hashable, list[Hashable]] = {}
    for it in order:
        ranked = sorted(eligible[it.key], key=lambda a: (load_items[a.key], load_words[a.key],
                                                          it.doc not in docs[a.key], tiebreak[a.key]))
        chosen = [a.key for a in ranked[:redundancy]]
        for key in chosen:
            load_items[key] += 1
            load_words[key] += it.words
            docs[key].add(it.doc)
        plan[it.key] = chosen
    return {it.key: plan[it.key] for it in items}


def plan_by_document(items: Sequence[ItemSpec], annotators: Sequence[AnnotatorSpec], redundancy: int,
                     seed: int = 0) -> dict[Hashable, list[Hashable]]:
    """Like :func:`plan_assignments`, but all items of one document (every system's version of it)
    go to the same ``redundancy`` annotators, documents balanced over annotators by count and words.

    This is how Google's MQM data was collected: per-annotator scores then compare
    systems on the same documents. An annotator of any of the document's systems' teams is excluded.
    """
    by_doc: dict[str, list[ItemSpec]] = {}
    for it in items:
        by_doc.setdefault(it.doc, []).append(it)
    groups = [ItemSpec(key=doc, team=None, words=sum(i.words for i in its), doc=doc,
                       teams=frozenset(t for i in its for t in ({i.team} if i.team is not None else set()) | i.teams))
              for doc, its in by_doc.items()]
    plan = plan_assignments(groups, annotators, redundancy, seed)
    return {it.key: list(plan[it.doc]) for it in items}
