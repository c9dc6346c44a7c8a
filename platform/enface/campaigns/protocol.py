"""The protocol interface and its registry: how a kind of human evaluation plugs into the core.

Shaped like CTFd's challenge types (a base class, a registry, dispatch by key): the
core stores ``Campaign.protocol`` and asks :func:`protocol_of` for the object that
knows that protocol's settings, items, pages, answers and results. The core never
imports a protocol: :mod:`~enface.campaigns.discovery` finds the installed ones
through the ``enface.protocols`` entry points when the app is created.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..services import NotFound, ServiceError, is_ascii_int
from .contract import Evidence, Export, JudgeTask, LeaderboardColumn, LeaderboardPart, RankingJudgments
from .options import CampaignInput, Option, default_selected

if TYPE_CHECKING:   # (annotations only: the models import nothing from here)
    from flask import Blueprint

    from .models import Assignment, Campaign, Item


@dataclass
class ItemPlan:
    """An item to create at the start: a document range in one or more campaign versions (by id, in slot order)."""

    document_id: int
    seg_start: int          # 0-based
    seg_end: int            # exclusive
    version_ids: list[int]
    source_words: int = 0
    team_ids: frozenset[int] = field(default_factory=frozenset)   # teams whose work it holds (conflict of interest)
    group: str = ""         # items of one group go to one rater under the "document" strategy


class Protocol:
    """A kind of human evaluation. Subclasses set the class attributes and override the hooks they need."""

    key: ClassVar[str] = ""
    title: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: Where it comes in lists (lowest first): the first is the default protocol of the pages and the CLI,
    #: and of several released human rankings on one test set the first orders the leaderboard.
    order: ClassVar[int] = 100
    #: Its column on the leaderboard, for released campaigns whose :meth:`leaderboard` gives a part (None: none).
    leaderboard_column: ClassVar[LeaderboardColumn | None] = None
    #: Its own creation options (``enface campaign create`` and the generic new-campaign page).
    options: ClassVar[tuple[Option, ...]] = ()
    #: Assignment strategies this protocol accepts (see :mod:`~enface.campaigns.assignment`); the first is the default.
    strategies: ClassVar[tuple[str, ...]] = ("redundancy",)
    #: Templates: the annotator's item page, and the protocol's panels on the organizer's dashboard.
    item_template: ClassVar[str] = ""
    #: The page of an item whose next stage is still time-locked (None: the core's annotate/locked.html).
    locked_template: ClassVar[str | None] = None
    #: The annotator's list of items of one campaign (a partial given ``g``: campaign, items, protocol),
    #: None: the core's table (document, segments read, answers, status).
    list_template: ClassVar[str | None] = None
    #: the organizer's dashboard and the results page (defaults: the core's generic pages)
    dashboard_template: ClassVar[str] = "campaigns/protocol_dashboard.html"
    results_template: ClassVar[str] = "campaigns/protocol_results.html"
    #: Stages an annotator goes through for one assignment (names shown to them); one by default.
    stages: ClassVar[tuple[str, ...]] = ("annotate",)
    #: Routes of its own (mounted by the app under /protocols/<key>/), or None.
    blueprint: ClassVar[Blueprint | None] = None
    #: Whether its items are built from the test set's phenomenon tags: a started campaign of such a
    #: protocol fixes the tags (its items point at them); other protocols never read them.
    uses_phenomena: ClassVar[bool] = False

    def folder(self) -> Path:
        """The protocol's folder (its module's): where its ``templates/`` and ``static/`` live."""
        return Path(sys.modules[type(self).__module__].__file__).resolve().parent

    def required(self, hook: str) -> NotImplementedError:
        """The error for a hook every protocol must provide (the base class has no sensible default)."""
        return NotImplementedError(f"the {self.key or type(self).__name__} protocol does not implement {hook}()")

    # -- settings ---------------------------------------------------------------------------------
    def clean_settings(self, data: dict[str, Any], testset) -> dict[str, Any]:
        """The protocol's settings from a form or the CLI, checked; raises ServiceError naming the field."""
        return {}

    def word_counter(self, settings: dict[str, Any], testset) -> Callable[[str], int]:
        """How source words are counted when documents are sampled by a word budget."""
        import mqm  # (the library only: word segmentation for Chinese, whitespace elsewhere)

        return mqm.WordCounter("auto", lang=testset.src_lang)

    def settings_summary(self, campaign: Campaign) -> list[tuple[str, str]]:
        """(label, value) pairs the dashboard shows; by default each declared option's value."""
        return [(o.form_label, str(campaign.setting(o.name, o.default))) for o in self.options]

    # -- the organizer's pages -------------------------------------------------------------------------------
    #: the creation form (default: the core's, with the declared :attr:`options`)
    new_template: ClassVar[str] = "campaigns/protocol_new.html"

    def form_defaults(self, testset, submissions: list, docs: list) -> dict[str, Any]:
        """The creation form's initial values (by default the core's fields and the options' defaults)."""
        return {"name": f"{testset.name} {self.title}", "redundancy": "1", "strategy": self.strategies[0],
                "ranges": "", "instructions": "", "seed": "",
                "systems": [s.id for s in submissions if default_selected(s)],
                **{o.name: o.default for o in self.options}}

    def input_from_form(self, form: dict[str, Any], posted) -> Any:
        """Updates ``form`` from the posted fields and returns a
        :class:`~enface.campaigns.services.CampaignInput` (by default: the options become the settings)."""
        for key in ("name", "redundancy", "strategy", "ranges", "instructions", "seed"):
            form[key] = posted.get(key, "")
        form["systems"] = [int(x) for x in posted.getlist("systems") if is_ascii_int(x)]
        settings = {o.name: o.from_form(posted) for o in self.options}
        form.update(settings)
        return CampaignInput(name=form["name"], submission_ids=form["systems"], protocol=self.key,
                             redundancy=form["redundancy"] or 1, strategy=form["strategy"], ranges=form["ranges"],
                             instructions=form["instructions"], seed=form["seed"].strip() or None,
                             settings=settings)

    def form_context(self, testset, form: dict[str, Any]) -> dict[str, Any]:
        """More template variables for the creation form."""
        return {}

    def dashboard_context(self, campaign: Campaign, args) -> dict[str, Any]:
        """Template variables for the dashboard (progress, live results, ...); the defaults fill the core's page."""
        prog = self.progress(campaign) if campaign.state != "draft" else {}
        results = self.results(campaign, organizer=True) if campaign.state != "draft" else {}
        return {"prog": prog, "summary": self.settings_summary(campaign), "counts": _plain(prog),
                "results_rows": list(_plain(results).items())}

    def results_context(self, campaign: Campaign) -> dict[str, Any]:
        """Template variables for the results page (the frozen snapshot once released)."""
        results = self.results(campaign)
        return {"results": results, "results_rows": list(_plain(results).items()),
                "exports": [(fmt, e.title) for fmt, e in export_table(self).items()]}

    # -- the command line ------------------------------------------------------------------------------
    #: ``cli_create(testset, request) -> (campaign, line)``: ``enface campaign create --protocol KEY``, the
    #: draft created and the line printed about it; None: the core's (the options become the settings,
    #: checked by :meth:`clean_settings`; :func:`enface.commands.campaign_create.default_create`)
    cli_create: ClassVar[Callable[..., tuple[Campaign, str]] | None] = None

    def cli_status(self, campaign: Campaign, as_json: bool) -> None:
        """``enface campaign status``: by default the campaign's state and its progress counts."""
        import json

        import click

        prog = self.progress(campaign)
        counts = {k: v for k, v in prog.items() if isinstance(v, int | float | str)}
        if as_json:
            click.echo(json.dumps({"id": campaign.id, "name": campaign.name, "state": campaign.state,
                                   "protocol": campaign.protocol, "progress": counts}, indent=1))
            return
        click.echo(f"{campaign.name} [{campaign.state}] {campaign.protocol}: "
                   + ", ".join(f"{k} {v}" for k, v in counts.items()))

    # -- the start ----------------------------------------------------------------------------------
    def build_items(self, campaign: Campaign) -> list[ItemPlan]:
        raise self.required("build_items")

    def plan_assignments(self, campaign: Campaign, items: list[ItemPlan],
                         annotators: list[Any]) -> list[tuple[int, int, dict[str, Any]]] | None:
        """(item index, annotator id, plan) triples, for protocols that assign by a design of their own
        (the reader study's counterbalancing); None: the campaign's strategy assigns."""
        return None

    def on_assigned(self, campaign: Campaign, assignments: list[Assignment]) -> dict[str, Any]:
        """Called inside the start's transaction with the new assignments (flushed): attention checks,
        presentation orders, ... Returns counts the organizer is told."""
        return {}

    def list_options(self) -> list:
        """SQLAlchemy loader options for the annotator's list of items (what its rows show of this protocol)."""
        return []

    # -- the annotator --------------------------------------------------------------------------------
    def item_state(self, asg: Assignment, *, readonly: bool) -> dict[str, Any]:
        """Everything the item page needs, and nothing that names a system, a team or a reference."""
        raise self.required("item_state")

    def check_response(self, asg: Assignment, kind: str, key: str, data: Any) -> dict[str, Any]:
        """A response to store (the core's autosave), checked; raises ServiceError(400) naming the field."""
        raise ServiceError("unknown_kind", f"this campaign takes no {kind!r} answers", 400, {"field": "kind"})

    def furthest_clipper(self, asg: Assignment) -> Callable[[int, dict[str, int]], int]:
        """``clip(furthest, times)``: the furthest segment that counts as read, given the reading times.

        Built before the save's write lock (it may read the item's texts), called inside it.
        A protocol may require a minimum dwell time per segment; by default every segment reached counts.
        """
        return lambda furthest, times: furthest

    def check_finish(self, asg: Assignment) -> None:
        """Raises ServiceError(409) saying what is missing before the assignment's stage can be finished."""

    def on_stage_finish(self, asg: Assignment) -> None:
        """Called in the finishing transaction of every stage (the last one too), before the stage moves on."""

    def on_finish(self, asg: Assignment) -> None:
        """Called in the finishing transaction (e.g. to score an attention check)."""

    def on_reopen(self, asg: Assignment) -> None:
        """Called when an organizer reopens a finished assignment."""

    def movable(self, asg: Assignment) -> bool:
        """Whether an unstarted assignment may go to another annotator (nothing of the protocol's saved)."""
        return True

    def stage_lock_hours(self, campaign: Campaign, stage: int) -> float:
        """Hours between finishing stage ``stage - 1`` and the opening of ``stage``."""
        return 0.0

    # -- results ----------------------------------------------------------------------------------------
    def results(self, campaign: Campaign, *, organizer: bool = False) -> dict[str, Any]:
        raise self.required("results")

    def release_snapshot(self, campaign: Campaign) -> dict[str, Any]:
        """The results frozen at release; raises ServiceError(409) when there is nothing to release."""
        raise self.required("release_snapshot")

    def exports(self) -> dict[str, Export]:
        """{format: :class:`~enface.campaigns.contract.Export`} this protocol's campaigns can be downloaded
        in, the first the default. (The older ``(mimetype, extension, title)`` tuples with an :meth:`export`
        of one's own still work: :func:`export_table`.)"""
        return {}

    def export(self, campaign: Campaign, fmt: str) -> str:
        """The campaign in format ``fmt`` (its :class:`Export`'s writer); NotFound for another format."""
        table = export_table(self)
        if fmt not in table:
            raise NotFound("export format")
        return table[fmt].writer(campaign)

    def progress(self, campaign: Campaign) -> dict[str, Any]:
        raise self.required("progress")

    def ranking_judgments(self, campaign: Campaign) -> RankingJudgments | None:
        """The campaign's finished annotations in the order they came in and their scorer, from which the
        core's dashboard shows the live ranking's stability (how many version pairs changed order in the last
        tenth of them: :mod:`~enface.campaigns.stability`); None (the default): no such figure."""
        return None

    def evidence(self, campaign: Campaign, *, document_id: int | None = None) -> list[Evidence]:
        """What a released campaign's raters said about the texts, for the output browser (optional): one
        :class:`~enface.campaigns.contract.Evidence` per span, highlight or score, on one document (all
        documents when ``document_id`` is None). Called only for released campaigns; the browser shows it
        beside the texts and filters it."""
        return []

    def leaderboard(self, campaign: Campaign) -> LeaderboardPart | None:
        """A released campaign's contribution to its test set's leaderboard (its column's cells, its
        ranking): a :class:`~enface.campaigns.contract.LeaderboardPart`, or None."""
        return None

    def meta_sources(self, campaign: Campaign) -> list[Any]:
        """A released campaign's human scores for the meta-evaluation page: ``scoring.meta.HumanSource``
        objects whose systems are submission ids as strings (a reference version: its label, e.g.
        "reference 1"); item keys are (document name, 0-based position). [] when it has none."""
        return []

    # -- machine annotators (LLM judges, :mod:`enface.judges`) ---------------------------------------------
    def judge_tasks(self, item: Item) -> list[JudgeTask]:
        """What an LLM judge scores in ``item``; [] (the default): this protocol takes no judges."""
        return []

    def metric_providers(self) -> list[Callable[[Any], dict[str, Any]]]:
        """More "metrics" for the meta-evaluation page: functions of a test set giving
        ``{key: scoring.meta.MetricScores}`` (the rubric's LLM judges). [] by default."""
        return []

    # -- tutorials and completion codes (enface.crowd) ------------------------------------------------------
    #: a module with ``fields(campaign)``, ``check_expected(campaign, expected, translation)`` and
    #: ``grade(campaign, expected, answer)``, which the three tutorial hooks below call (None: no tutorial items)
    tutorial_hooks: Any = None

    def tutorial_fields(self, campaign: Campaign) -> list[dict[str, Any]]:
        """The answer form of a training item, for the core's tutorial page: ``[{"name", "type": "span" | "choice"
        | "number", "label", "options"?, "min"?, "max"?}]`` (a span is chosen in the translation, or none).
        [] (the default): the protocol has no tutorial items."""
        return self.tutorial_hooks.fields(campaign) if self.tutorial_hooks is not None else []

    def check_tutorial_expected(self, campaign: Campaign, expected: Any, translation: str) -> dict[str, Any]:
        """A training item's expected answer from the organizer's file (on ``translation``, the text shown),
        checked (ServiceError 400 saying why)."""
        if self.tutorial_hooks is not None:
            return self.tutorial_hooks.check_expected(campaign, expected, translation)
        raise ServiceError("no_tutorial", f"the {self.key or 'this'} protocol has no tutorial items", 400,
                           {"field": "tutorial"})

    def grade_tutorial(self, campaign: Campaign, expected: dict[str, Any], answer: dict[str, Any]) -> bool:
        """Whether an annotator's answer (the fields of :meth:`tutorial_fields`, as posted) matches ``expected``;
        a malformed answer raises ServiceError(400)."""
        if self.tutorial_hooks is not None:
            return self.tutorial_hooks.grade(campaign, expected, answer)
        raise self.required("grade_tutorial")

    def attention_results(self, campaign: Campaign, annotator_id: int) -> tuple[int, int]:
        """(passed, checked): one annotator's attention checks on finished items; (0, 0) when there are none."""
        return (0, 0)

    def item_label(self, item: Item) -> str:
        """How the organizer's dashboard names an item (system names allowed there)."""
        return f"{item.document.name}:{item.seg_start + 1}-{item.seg_end}"


def export_table(protocol: Protocol) -> dict[str, Export]:
    """The protocol's :meth:`~Protocol.exports` as :class:`Export` rows, whichever shape it gives."""
    table = {}
    for fmt, row in protocol.exports().items():
        if not isinstance(row, Export):   # (mimetype, extension, title), written by the protocol's export()
            if type(protocol).export is Protocol.export:
                raise TypeError(f"the {protocol.key} protocol's export {fmt!r} has no writer")
            row = Export(*row, writer=lambda campaign, fmt=fmt: protocol.export(campaign, fmt))
        table[fmt] = row
    return table


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    """The top-level numbers and words of a dict (what the generic pages show of progress and results)."""
    return {k: v for k, v in (values or {}).items() if isinstance(v, int | float | str) and not isinstance(v, bool)}


PROTOCOLS: dict[str, Protocol] = {}


def register(protocol: Protocol) -> Protocol:
    if not protocol.key:
        raise ValueError("a protocol needs a key")
    PROTOCOLS[protocol.key] = protocol
    ordered = sorted(PROTOCOLS.values(), key=lambda p: p.order)   # stable: equal orders keep their arrival
    PROTOCOLS.clear()
    PROTOCOLS.update((p.key, p) for p in ordered)
    return protocol


def default_protocol() -> Protocol:
    """The protocol the pages and the CLI offer first (the lowest :attr:`Protocol.order`)."""
    if not PROTOCOLS:
        raise LookupError("no protocol is registered yet (enface.campaigns.discovery.load_protocols() loads them)")
    return next(iter(PROTOCOLS.values()))


def protocol_of(campaign_or_key: Campaign | str) -> Protocol:
    key = campaign_or_key if isinstance(campaign_or_key, str) else campaign_or_key.protocol
    try:
        return PROTOCOLS[key]
    except KeyError:
        raise NotFound(f"protocol {key!r}") from None
