"""The typed parts of the protocol contract (:class:`~enface.campaigns.protocol.Protocol`): what a
protocol declares to the core instead of the core naming it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
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
