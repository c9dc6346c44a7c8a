"""Best–Worst Scaling (BWS) as a protocol of the campaign core.

An item is one tuple of one source passage: the annotator sees the passage and N translations of it
(systems and human references alike, default 4, in an order shuffled per annotator and stored in the
assignment's plan) and picks the best and the worst. The tuples come from a balanced design
(:mod:`~enface.protocols.bws.design`), shown on the dashboard before the start. The choice is the core's
autosaved response; scores, reliability and the ranking are :mod:`humaneval.bws`'s.
"""

from __future__ import annotations

import random
from typing import Any

from humaneval.bws import counting_scores
from scoring.human_ranking import TESTS

from ...campaigns.contract import LeaderboardColumn, LeaderboardPart, RankingJudgments
from ...campaigns.models import Assignment, Campaign, Item
from ...campaigns.protocol import ItemPlan, Protocol, register
from ...campaigns.services import CampaignInput, bad, default_selected, version_labels
from ...campaigns.services.ranking import significance_test
from ...campaigns.texts import version_texts
from ...services import ServiceError, is_ascii_int
from . import cli, exports, page, responses, results, tutorial
from .design import campaign_design, design_table, stored_design
from .settings import DEFAULTS, clean_settings, splits, tuple_size, tuples_per_passage

SETTING_FIELDS = ("tuple_size", "tuples_per_passage", "passage_segments", "splits", "significance_test", "guidelines",
                  "passage_budget", "selection", "selection_metric")


SELECTION_TITLES = [("uniform", "a uniform random sample"),
                    ("metric_var", "subset2evaluate: where the metric varies most across systems"),
                    ("metric_cons", "subset2evaluate: where the systems' order agrees best with the metric's"),
                    ("metric_avg", "subset2evaluate: the hardest passages (lowest average metric score)")]


def _selection_summary(campaign: Campaign) -> str:
    budget = int(campaign.setting("passage_budget", 0) or 0)
    if not budget:
        return "every passage of the documents"
    how = campaign.setting("selection", "uniform")
    return (f"at most {budget}, a uniform sample" if how == "uniform" else
            f"at most {budget}, chosen by subset2evaluate ({how}) from the {campaign.setting('selection_metric')} "
            "segment scores")


class BwsProtocol(Protocol):
    key = "bws"
    title = "Best–Worst Scaling"
    description = ("Annotators see a source passage and several translations of it (systems and human references "
                   "alike) and pick the best and the worst; counting scores, split-half reliability.")
    order = 30
    strategies = ("redundancy", "document")
    options = cli.OPTIONS
    leaderboard_column = LeaderboardColumn(name="BWS", choice="human-bws", head="bws/_lb_head.html",
                                           cell="bws/_lb_cell.html", ranking="bws/_lb_ranking.html")
    item_template = "bws/item.html"
    list_template = "bws/_list.html"
    dashboard_template = "bws/dashboard.html"
    results_template = "bws/results.html"
    new_template = "bws/new.html"

    @property
    def blueprint(self):
        from .views import bp  # (Flask routes: imported when the app is built)

        return bp

    # -- settings -----------------------------------------------------------------------------------
    def clean_settings(self, data: dict[str, Any], testset) -> dict[str, Any]:
        return clean_settings(data, testset)

    def settings_summary(self, campaign: Campaign) -> list[tuple[str, str]]:
        size = tuple_size(campaign)
        chosen = int(campaign.setting("tuple_size", DEFAULTS["tuple_size"]))
        return [("Translations per tuple", str(size) + (f" (asked {chosen}; the campaign has {len(campaign.versions)}"
                                                         " versions)" if size != chosen else "")),
                ("Tuples per passage", str(tuples_per_passage(campaign))
                 + ("" if campaign.setting("tuples_per_passage") else " (automatic: each version equally often)")),
                ("Segments per passage", str(campaign.setting("passage_segments", 1))),
                ("Annotators per tuple", str(campaign.redundancy)),
                ("Passages", _selection_summary(campaign)),
                ("Split-half reliability", f"{splits(campaign)} random splits"),
                ("Significance test", TESTS[significance_test(campaign)])]

    # -- the command line ---------------------------------------------------------------------------
    def cli_create(self, testset, request):
        return cli.cli_create(self, testset, request)

    def cli_status(self, campaign: Campaign, as_json: bool) -> None:
        cli.cli_status(campaign, as_json)

    # -- the organizer's pages ----------------------------------------------------------------------
    def form_defaults(self, testset, submissions: list, docs: list) -> dict[str, Any]:
        return {"name": f"{testset.name} BWS", "redundancy": "1", "strategy": "redundancy",
                "docs_mode": "ranges" if len(docs) <= 8 else "sample",
                "ranges": "\n".join(d.name for d in docs[:8]), "sample_docs": str(min(4, len(docs))),
                "sample_words": "1000", "instructions": "", "seed": "",
                **{k: str(v) for k, v in DEFAULTS.items()},
                "systems": [s.id for s in submissions if default_selected(s)],
                "references": [str(r) for r in range(1, (testset.num_refs or 0) + 1)]}

    def input_from_form(self, form: dict[str, Any], posted) -> CampaignInput:
        form.update({k: posted.get(k, "") for k in form if k not in ("systems", "references")})
        form["systems"] = [int(x) for x in posted.getlist("systems") if is_ascii_int(x)]
        form["references"] = [x for x in posted.getlist("references") if x in ("1", "2")]
        if form["docs_mode"] == "ranges" and not form["ranges"].strip():
            raise bad("invalid_ranges", "Write at least one document or range (or choose a sample).", field="ranges")
        seed = form["seed"].strip()
        return self.campaign_input(
            name=form["name"], submission_ids=form["systems"], references=[int(r) for r in form["references"]],
            redundancy=form["redundancy"], strategy=form["strategy"],
            ranges=form["ranges"] if form["docs_mode"] == "ranges" else "", sample_docs=form["sample_docs"],
            sample_words=form["sample_words"], instructions=form["instructions"],
            seed=int(seed) if is_ascii_int(seed) else (seed or None),
            **{k: form[k] for k in SETTING_FIELDS})

    def campaign_input(self, *, name: str, submission_ids: list[int], references: list[int] = (),
                       redundancy: Any = 1, strategy: str = "", ranges: str = "", sample_docs: Any = 5,
                       sample_words: Any = 1000, instructions: str = "", seed: Any = None,
                       **settings: Any) -> CampaignInput:
        """What the web form and ``enface campaign create --protocol bws`` ask for."""
        return CampaignInput(name=name, submission_ids=list(submission_ids), references=list(references),
                             protocol=self.key, redundancy=redundancy, strategy=strategy, ranges=ranges,
                             sample_docs=sample_docs, sample_words=sample_words, instructions=instructions,
                             seed=seed, settings=settings)

    def form_context(self, testset, form: dict[str, Any]) -> dict[str, Any]:
        return {"significance_tests": TESTS, "num_refs": testset.num_refs or 0, "selections": SELECTION_TITLES}

    def dashboard_context(self, campaign: Campaign, args) -> dict[str, Any]:
        ctx: dict[str, Any] = {"summary": self.settings_summary(campaign), "design_error": None}
        if campaign.state == "draft":
            try:
                planned = campaign_design(campaign)
            except ServiceError as exc:   # too few versions, no passage: said on the page
                ctx.update(design=None, design_error=exc.message)
            else:
                ctx.update(design=design_table(campaign, planned.overall), passages=len(planned.passages),
                           per_passage=planned.per_passage, passage_labels=[p.label for p in planned.passages])
        else:
            found = results.assignments(campaign)
            ctx["design"] = design_table(campaign, stored_design(campaign))
            ctx["passage_labels"] = list(dict.fromkeys(results.passage_label(i) for i in campaign.items))
            ctx["passages"] = len(ctx["passage_labels"])
            ctx["per_passage"] = tuples_per_passage(campaign)
            ctx["prog"] = results.progress(campaign, found)
            ctx["results"] = results.results(campaign, found)
        return ctx

    def results_context(self, campaign: Campaign) -> dict[str, Any]:
        return {"results": self.results(campaign), "summary": self.settings_summary(campaign)}

    # -- the start ----------------------------------------------------------------------------------
    def build_items(self, campaign: Campaign) -> list[ItemPlan]:
        """One item per tuple of each passage, its versions in the design's (random) order."""
        planned = campaign_design(campaign)
        versions = {str(v.id): v for v in campaign.versions}
        labels = version_labels(campaign)
        plans = []
        for p in planned.passages:
            for v in versions.values():
                if version_texts(v, p.document_id, p.start, p.end) is None:
                    raise bad("missing_output", f"{labels[v.id]} has no text for {p.label}", 409)
            for tup in planned.tuples[p.label]:
                teams = frozenset(versions[k].submission.team_id for k in tup
                                  if versions[k].submission is not None and versions[k].submission.team_id)
                plans.append(ItemPlan(document_id=p.document_id, seg_start=p.start, seg_end=p.end,
                                      version_ids=[int(k) for k in tup], group=p.label, team_ids=teams))
        return plans

    def on_assigned(self, campaign: Campaign, assignments: list[Assignment]) -> dict[str, Any]:
        """Each annotator's display order of each tuple: shuffled (from the campaign's seed) and stored."""
        for asg in assignments:
            slots = list(range(1, len(asg.item.versions) + 1))
            random.Random(f"bws:{campaign.seed}:{asg.item_id}:{asg.annotator_id}").shuffle(slots)
            asg.plan = {**(asg.plan or {}), "order": slots}
        return {"orders": len(assignments)}

    def movable(self, asg: Assignment) -> bool:
        return responses.live_choice(asg) is None

    # -- the annotator --------------------------------------------------------------------------------
    def item_state(self, asg: Assignment, *, readonly: bool) -> dict[str, Any]:
        return page.item_state(asg, readonly=readonly)

    def check_response(self, asg: Assignment, kind: str, key: str, data: Any) -> dict[str, Any]:
        return responses.check_response(asg, kind, key, data)

    def check_finish(self, asg: Assignment) -> None:
        responses.check_finish(asg)

    # -- tutorials (enface.crowd) ---------------------------------------------------------------------
    def tutorial_fields(self, campaign: Campaign) -> list[dict[str, Any]]:
        return tutorial.fields(campaign)

    def check_tutorial_expected(self, campaign: Campaign, expected: Any, translation: str) -> dict[str, Any]:
        return tutorial.check_expected(campaign, expected, translation)

    def grade_tutorial(self, campaign: Campaign, expected: dict[str, Any], answer: dict[str, Any]) -> bool:
        return tutorial.grade(campaign, expected, answer)

    # -- results --------------------------------------------------------------------------------------
    def results(self, campaign: Campaign, *, organizer: bool = False) -> dict[str, Any]:
        if campaign.state == "released" and campaign.results and not organizer:
            return campaign.results
        return results.results(campaign)

    def release_snapshot(self, campaign: Campaign) -> dict[str, Any]:
        res = results.results(campaign)
        if res["empty"]:
            raise bad("no_results", "no finished judgment yet: nothing to release", 409)
        return res

    def exports(self) -> dict[str, tuple[str, str, str]]:
        return {"jsonl": ("application/x-ndjson; charset=utf-8", "jsonl", "JSON Lines (one judgment a line)"),
                "csv": ("text/csv; charset=utf-8", "csv", "CSV (one judgment a row)"),
                "judgments": ("text/csv; charset=utf-8", "csv", "JUDGMENTS.csv (python -m humaneval bws)")}

    def export(self, campaign: Campaign, fmt: str) -> str:
        if fmt == "jsonl":
            return exports.export_jsonl(campaign)
        if fmt == "csv":
            return exports.export_csv(campaign)
        if fmt == "judgments":
            return exports.export_judgments(campaign)
        return super().export(campaign, fmt)

    def ranking_judgments(self, campaign: Campaign) -> RankingJudgments:
        """Every finished judgment, in the order they were finished; versions by their counting scores."""
        return RankingJudgments(results.judgments(campaign), counting_scores, "judgments")

    def progress(self, campaign: Campaign) -> dict[str, Any]:
        return results.progress(campaign)

    def leaderboard(self, campaign: Campaign) -> LeaderboardPart | None:
        return LeaderboardPart.from_dict(results.leaderboard_part(campaign))

    def meta_sources(self, campaign: Campaign) -> list[Any]:
        from .meta import meta_sources

        return meta_sources(campaign)

    def item_label(self, item: Item) -> str:
        labels = version_labels(item.campaign)
        return f"{results.passage_label(item)} · " + ", ".join(labels.get(iv.version_id, "?") for iv in item.versions)


PROTOCOL = register(BwsProtocol())
