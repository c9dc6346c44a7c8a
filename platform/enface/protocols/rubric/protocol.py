"""Rubric evaluation of phenomenon-tagged segments (DITING) as a protocol of the campaign core.

Items are (tagged segment × system): the annotator sees the source, its context, one system's
translation, the reference and what to check for each phenomenon tagged on the segment, and gives
each phenomenon three 0/1/2 scores (one Specific criterion, two General) on the campaign's rubric
(DITING's six dimensions by default). The scores are the core's autosaved responses; the rubric's
rules are checked on every save and before an item can be finished.
"""

from __future__ import annotations

from typing import Any

from humaneval.rubric import available_rubrics
from scoring.human_ranking import TESTS

from ...campaigns.contract import Export, JudgeTask, LeaderboardColumn
from ...campaigns.models import Assignment, Campaign, Item
from ...campaigns.protocol import ItemPlan, Protocol, register
from ...campaigns.services import (
    CampaignInput,
    bad,
    default_selected,
    parsed_ranges,
    system_labels,
    testset_docs,
)
from ...campaigns.services.ranking import significance_test
from ...services import is_ascii_int
from ...services.phenomena import testset_phenomena
from . import cli, page, responses, results, tutorial
from .inputs import KEY, campaign_input, phenomenon_documents
from .settings import DEFAULTS, campaign_rubric, clean_settings
from .texts import output_text


class RubricProtocol(Protocol):
    key = KEY
    title = "Rubric (DITING phenomena)"
    description = ("Annotators score tagged phenomena (idioms, ambiguity, terminology, tense, zero pronouns, "
                   "cultural safety) with a rubric: one Specific and two General criteria, each 0, 1 or 2.")
    order = 20
    strategies = ("redundancy", "document")
    options = cli.OPTIONS
    leaderboard_column = LeaderboardColumn(name="Rubric Σ", choice="human-rubric", head="rubric/_lb_head.html",
                                           cell="rubric/_lb_cell.html", ranking="rubric/_lb_ranking.html")
    item_template = "rubric/item.html"
    list_template = "rubric/_list.html"
    dashboard_template = "rubric/dashboard.html"
    results_template = "rubric/results.html"
    new_template = "rubric/new.html"
    uses_phenomena = True

    @property
    def blueprint(self):
        from .views import bp  # (Flask routes: imported when the app is built)

        return bp

    # -- settings -----------------------------------------------------------------------------------
    def clean_settings(self, data: dict[str, Any], testset) -> dict[str, Any]:
        return clean_settings(data, testset)

    def settings_summary(self, campaign: Campaign) -> list[tuple[str, str]]:
        rubric = campaign_rubric(campaign)
        return [("Rubric", f"{rubric.name}: {rubric.title}"),
                ("Dimensions", ", ".join(d.name for d in rubric.dimensions)),
                ("Reference shown", "yes" if campaign.setting("show_reference", True) else "no"),
                ("Significance test", TESTS[significance_test(campaign)]),
                ("Annotators per item", str(campaign.redundancy))]

    # -- the organizer's pages ----------------------------------------------------------------------
    def form_defaults(self, testset, submissions: list, docs: list) -> dict[str, Any]:
        return {"name": f"{testset.name} rubric", "redundancy": "2", "strategy": "redundancy", "ranges": "",
                "rubric": DEFAULTS["rubric"], "rubric_json": "", "show_reference": "1", "guidelines": "",
                "significance_test": DEFAULTS["significance_test"],
                "instructions": "", "seed": "", "systems": [s.id for s in submissions if default_selected(s)]}

    def input_from_form(self, form: dict[str, Any], posted) -> CampaignInput:
        form.update({k: posted.get(k, "") for k in form if k != "systems"})
        form["systems"] = [int(x) for x in posted.getlist("systems") if is_ascii_int(x)]
        seed = form["seed"].strip()
        return campaign_input(
            name=form["name"], submission_ids=form["systems"], redundancy=form["redundancy"],
            strategy=form["strategy"], ranges=form["ranges"], instructions=form["instructions"],
            rubric=form["rubric_json"].strip() or form["rubric"], show_reference=bool(form["show_reference"]),
            guidelines=form["guidelines"], seed=int(seed) if is_ascii_int(seed) else None,
            significance_test=form["significance_test"])

    def form_context(self, testset, form: dict[str, Any]) -> dict[str, Any]:
        phenomena = testset_phenomena(testset)
        counts: dict[str, int] = {}
        for p in phenomena:
            counts[p.dimension] = counts.get(p.dimension, 0) + 1
        if not form.get("ranges"):
            form["ranges"] = "\n".join(phenomenon_documents(testset))
        return {"rubrics": available_rubrics(), "significance_tests": TESTS, "phenomena_count": len(phenomena),
                "dimension_counts": counts}

    def dashboard_context(self, campaign: Campaign, args) -> dict[str, Any]:
        ctx: dict[str, Any] = {"summary": self.settings_summary(campaign), "rubric": campaign_rubric(campaign)}
        if campaign.state == "draft":
            ctx["phenomena"] = [p for p in testset_phenomena(campaign.testset)]
        else:
            assignments = results._assignments(campaign)
            ctx["prog"] = results.progress(campaign, assignments)
            ctx["results"] = results.results(campaign, assignments)
        return ctx

    def results_context(self, campaign: Campaign) -> dict[str, Any]:
        return {"results": self.results(campaign), "rubric": campaign_rubric(campaign)}

    def cli_create(self, testset, request):
        return cli.cli_create(self, testset, request)

    def cli_status(self, campaign: Campaign, as_json: bool) -> None:
        cli.rubric_status(campaign, as_json)

    # -- the start ----------------------------------------------------------------------------------
    def build_items(self, campaign: Campaign) -> list[ItemPlan]:
        """One item per tagged segment (within the campaign's ranges) and system."""
        rubric = campaign_rubric(campaign)
        ranges = parsed_ranges(campaign, testset_docs(campaign.testset))
        segments: dict[tuple[int, int], str] = {}
        for p in testset_phenomena(campaign.testset):
            if p.dimension in rubric.keys and any(r.doc == p.document.name and r.start <= p.position + 1 <= r.end
                                                  for r in ranges):
                segments.setdefault((p.document_id, p.position), p.document.name)
        if not segments:
            raise bad("no_phenomena", "no tagged segment lies in the campaign's documents and ranges", 409)
        plans = []
        for (doc_id, position), doc_name in segments.items():
            for v in campaign.systems:
                if output_text(v.submission_id, doc_id, position) is None:
                    raise bad("missing_output", f"submission {v.submission_id} has no output for "
                              f"{doc_name}:{position + 1}", 409)
                team = v.submission.team_id
                plans.append(ItemPlan(document_id=doc_id, seg_start=position, seg_end=position + 1,
                                      version_ids=[v.id], group=doc_name,
                                      team_ids=frozenset({team}) if team else frozenset()))
        return plans

    def movable(self, asg: Assignment) -> bool:
        return not responses.live_scores(asg)

    # -- the annotator --------------------------------------------------------------------------------
    def item_state(self, asg: Assignment, *, readonly: bool) -> dict[str, Any]:
        return page.item_state(asg, readonly=readonly)

    def check_response(self, asg: Assignment, kind: str, key: str, data: Any) -> dict[str, Any]:
        return responses.check_response(asg, kind, key, data)

    def check_finish(self, asg: Assignment) -> None:
        responses.check_finish(asg)

    # -- tutorials (enface.crowd) --------------------------------------------------------------------------
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

    def meta_sources(self, campaign: Campaign) -> list[Any]:
        from .meta import meta_sources

        return meta_sources(campaign)

    def release_snapshot(self, campaign: Campaign) -> dict[str, Any]:
        res = results.results(campaign, with_ranking=True)
        if res["empty"]:
            raise bad("no_results", "no finished items yet: nothing to release", 409)
        return res

    def exports(self) -> dict[str, Export]:
        return {"json": Export("application/json", "json", "JSON (results and scores)", results.export_json),
                "csv": Export("text/csv; charset=utf-8", "csv", "CSV (one row per score)", results.export_csv)}

    def progress(self, campaign: Campaign) -> dict[str, Any]:
        return results.progress(campaign)

    def leaderboard(self, campaign: Campaign) -> dict[str, Any] | None:
        return results.leaderboard_part(campaign)

    def metric_providers(self):
        from .meta import judge_metrics  # (LLM judges against the humans, like metrics)

        return [judge_metrics]

    def judge_tasks(self, item: Item) -> list[JudgeTask]:
        from .judging import judge_tasks  # (LLM judges, enface.judges: one task per phenomenon)

        return judge_tasks(item)

    def item_label(self, item: Item) -> str:
        labels = system_labels(item.campaign)
        return f"{labels.get(item.submission_id, '?')} · {item.document.name}:{item.seg_start + 1}"


PROTOCOL = register(RubricProtocol())
