"""The typed parts of the protocol contract (:class:`~enface.campaigns.protocol.Protocol`): what a
protocol declares to the core instead of the core naming it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class LeaderboardColumn:
    """How a protocol's released campaign shows on its test set's leaderboard.

    The protocol's :meth:`~enface.campaigns.protocol.Protocol.leaderboard` part lands in
    ``board[key]`` and, per submission, in ``row[key]``; the board includes the three
    partials (given ``board``, ``part`` = ``board[key]``, ``column``; a cell also ``r`` and
    ``m`` = ``r[key]``). Its ``ranking`` (the official human ranking across all systems,
    as :func:`~enface.campaigns.services.ranking.official_ranking` gives it) is offered on
    the head-to-head page and as a paper table under ``choice``. Of several released
    rankings, the protocol with the lowest :attr:`Protocol.order` orders the board.
    """

    name: str                   # the column's and its CSV columns' title ("MQM")
    choice: str                 # its head-to-head and paper-table key (``?metric=``, ``table-<choice>.tex``)
    head: str                   # templates: the column's header cell, a row's cell, the ranking under the board
    cell: str
    ranking: str
    #: the column shows for a release without a ranking across all systems (older snapshots)
    shown_without_ranking: bool = False
    #: the API's leaderboard rows carry this part under the protocol's key too (None when not released)
    api_row_field: bool = False
    #: said when this ranking orders the board while another one is released too (escaped unless a Markup)
    precedence_note: str = ""
    key: str = ""               # the protocol's key (filled by the core)


@dataclass(frozen=True)
class Evidence:
    """One thing a released campaign's rater said about a text, for the output browser: a span, a highlight
    or a score, on one line of one document (``seg`` None: a whole document or chunk)."""

    kind: str                   # "span" | "highlight" | "score"
    campaign_id: int
    document: str
    seg: int | None             # 0-based line in the document
    submission_id: int | None   # None for a reference
    reference: int | None       # 1, 2 or None
    rater: str
    side: str = "target"        # "target" | "source"
    start: int | None = None    # code points into the text of that line (end exclusive), or None
    end: int | None = None
    text: str = ""
    category: str = ""
    subcategory: str = ""
    severity: str = ""
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LeaderboardPart:
    """A released campaign's contribution to its test set's leaderboard (the protocol's ``leaderboard``
    hook): ``by_submission`` holds each submission's cell (the protocol's own fields, read by its cell
    partial and the API), ``ranking`` its official human ranking across all systems, if any."""

    campaign: dict[str, Any]                    # {"id", "name", "released_at"}
    by_submission: dict[int, dict[str, Any]]
    ranking: dict[str, Any] | None = None
    higher_is_better: bool = True
    unit: str = ""
    name: str = ""
    #: more fields a protocol's partials read (e.g. MQM's scheme), kept beside the others
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, part: dict[str, Any] | None) -> LeaderboardPart | None:
        """A part written as the dict the board reads (a protocol's stored snapshot shape), or None."""
        if part is None:
            return None
        known = {"campaign", "by_submission", "ranking", "higher_is_better", "unit", "name"}
        return cls(campaign=part["campaign"], by_submission=part["by_submission"], ranking=part.get("ranking"),
                   higher_is_better=part.get("higher_is_better", True), unit=part.get("unit", ""),
                   name=part.get("name", ""), extra={k: v for k, v in part.items() if k not in known})

    def as_dict(self) -> dict[str, Any]:
        """The shape the board, its JSON and the templates read (``extra`` merged in)."""
        out = {"campaign": self.campaign, "by_submission": self.by_submission, "ranking": self.ranking,
               "higher_is_better": self.higher_is_better, "unit": self.unit, "name": self.name}
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class JudgeTask:
    """One thing an LLM judge (:mod:`enface.judges`) scores in an item; its answer is stored as a response
    of ``kind`` and ``key``, checked by the protocol's ``check_response`` like an annotator's."""

    kind: str
    key: str
    #: what the judge reads: ``id``, ``dimension``, ``source``, ``translation``, ``requirement``, and
    #: ``reference`` and ``context`` when shown (:class:`humaneval.judge` reads it)
    item: dict[str, Any] = field(default_factory=dict)
    #: the scale it scores on: a rubric dimension's ``to_dict()`` (criteria and their levels)
    scale: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Export:
    """One download format of a protocol's campaigns (the dashboard's buttons, ``enface campaign export
    --format``, the release bundle's ``annotations/`` files): ``writer(campaign)`` gives the text."""

    mimetype: str
    extension: str
    title: str
    writer: Callable[[Any], str]


@dataclass(frozen=True)
class RankingJudgments:
    """A campaign's annotations in the order they came in, and how a prefix of them ranks the versions: what
    :meth:`~enface.campaigns.protocol.Protocol.ranking_judgments` gives the dashboard's stability figure
    (:func:`humaneval.selection.ranking_stability`). ``scores(annotations)`` gives ``{version: score}``
    (either direction: the figure compares the order of each pair); ``noun`` is what the dashboard calls
    one annotation ("judgments", "segment scores")."""

    annotations: list[Any]
    scores: Callable[[Any], dict[str, float]]
    noun: str = "annotations"
