"""Error Span Annotation (ESA; Kocmi et al., WMT 2024), the protocol of WMT's General task, on the campaign core.

An annotator sees a whole document range of one (unnamed) translation, source and translation
segment by segment on facing pages; per segment they mark error spans, minor or major (no
categories), with a ``[missing]`` marker for omissions, then give a 0-100 score on a slider with
ESA's anchors, once the segment has been read. Items are one version of one document range (as
MQM's); the "document" strategy gives every system of a document to the same annotators.
Attention checks are BAD copies (:mod:`enface.protocols.esa.checks`); results come from :mod:`humaneval.esa`
(:mod:`enface.protocols.esa.results`).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from ...campaigns.contract import Evidence, LeaderboardColumn, LeaderboardPart
from ...campaigns.models import Assignment, Campaign, Item
from ...campaigns.protocol import ItemPlan, Protocol, register
from ...campaigns.services import (
    CampaignInput,
    bad,
    default_selected,
    parsed_ranges,
    testset_docs,
    version_labels,
)
from ...services import is_ascii_int
from . import checks, cli, exports, page, responses, results, stability, tutorial
from .settings import DEFAULTS, RANKING_BY, clean_settings, summary
from .suggestions.budget import filter_plans
from .suggestions.page import check_suggested
from .suggestions.report import ai_panel
from .texts import segment_texts, version_texts


class ESAProtocol(Protocol):
    key = "esa"
    title = "Error Span Annotation (ESA)"
    description = ("Annotators mark minor and major error spans (and [missing] content) in a whole document, then "
                   "score each segment 0-100 (WMT 2024-25's General task); BAD attention checks built in.")
    order = 5      # after MQM (WMT's literary ranking); ESA's ranking orders the board when MQM's is not released
    strategies = ("document", "redundancy")
    options = cli.OPTIONS
    leaderboard_column = LeaderboardColumn(
        name="ESA", choice="human-esa", head="esa/_lb_head.html", cell="esa/_lb_cell.html",
        ranking="esa/_lb_ranking.html", api_row_field=True,
        precedence_note=Markup("ESA, WMT's General-task protocol, orders the board."))
    item_template = "esa/item.html"
    dashboard_template = "esa/dashboard.html"
    results_template = "esa/results.html"
    new_template = "esa/new.html"

    @property
    def blueprint(self):
        from .views import bp  # (Flask routes: imported when the app is built)

        return bp

    # -- settings -------------------------------------------------------------------------------
    def clean_settings(self, data: dict[str, Any], testset) -> dict[str, Any]:
        return clean_settings(data, testset)

    def settings_summary(self, campaign: Campaign) -> list[tuple[str, str]]:
        return summary(campaign)

    # -- the organizer's pages ------------------------------------------------------------------
    def form_defaults(self, testset, submissions: list, docs: list) -> dict[str, Any]:
        return {"name": f"{testset.name} ESA", "redundancy": "1", "strategy": "document",
                "docs_mode": "sample", "sample_docs": str(min(5, len(docs))), "sample_words": "2200",
                "ranges": "", "instructions": "", "seed": "",
                "attention_share": "10%", "exclude_failing": "1", "attention_test": DEFAULTS["attention_test"],
                "attention_alpha": str(DEFAULTS["attention_alpha"]),
                "significance_test": DEFAULTS["significance_test"], "ranking_by": "score",
                "words_per_second": str(DEFAULTS["words_per_second"]), "guidelines": "",
                "systems": [s.id for s in submissions if default_selected(s)], "references": []}

    def input_from_form(self, form: dict[str, Any], posted) -> CampaignInput:
        form.update({k: posted.get(k, "") for k in form if k not in ("systems", "references")})
        form["exclude_failing"] = "1" if posted.get("exclude_failing") else "0"
        form["systems"] = [int(x) for x in posted.getlist("systems") if is_ascii_int(x)]
        form["references"] = [int(x) for x in posted.getlist("references") if x in ("1", "2")]
        if form["docs_mode"] == "ranges" and not form["ranges"].strip():
            raise bad("invalid_ranges", "Write at least one document or range (or choose a sample).", field="ranges")
        seed = form["seed"].strip()
        return CampaignInput(
            name=form["name"], submission_ids=form["systems"], references=form["references"], protocol=self.key,
            redundancy=form["redundancy"], strategy=form["strategy"],
            ranges=form["ranges"] if form["docs_mode"] == "ranges" else "",
            sample_docs=form["sample_docs"], sample_words=form["sample_words"],
            settings={k: form[k] for k in DEFAULTS}, instructions=form["instructions"], seed=seed or None)

    def form_context(self, testset, form: dict[str, Any]) -> dict[str, Any]:
        from humaneval.esa.attention import TESTS as ATTENTION_TESTS
        from scoring.human_ranking import ALL_TESTS

        return {"docs": [{"name": d.name, "segments": d.num_segments} for d in testset.documents],
                "attention_tests": ATTENTION_TESTS, "significance_tests": ALL_TESTS, "ranking_by": RANKING_BY}

    def dashboard_context(self, campaign: Campaign, args) -> dict[str, Any]:
        ctx: dict[str, Any] = {"summary": self.settings_summary(campaign)}
        if campaign.state != "draft":
            ctx["prog"] = results.progress(campaign)
            ctx["results"] = results.compute_results(campaign)
        ctx["ai"] = ai_panel(campaign)
        return ctx

    def results_context(self, campaign: Campaign) -> dict[str, Any]:
        return {"results": self.results(campaign), "summary": self.settings_summary(campaign),
                "ai": ai_panel(campaign)}

    def cli_create(self, testset, request):
        return cli.cli_create(self, testset, request)

    def cli_status(self, campaign: Campaign, as_json: bool) -> None:
        cli.cli_status(campaign, as_json)

    # -- the start ------------------------------------------------------------------------------
    def build_items(self, campaign: Campaign) -> list[ItemPlan]:
        """The plan less what ESA^AI's budget filter leaves out (nothing without a suggester's threshold)."""
        return filter_plans(campaign, self.planned_items(campaign))

    def planned_items(self, campaign: Campaign) -> list[ItemPlan]:
        """Versions x ranges: one item per version (system or reference) and document range."""
        docs = {d.name: d for d in campaign.testset.documents}
        plans = []
        for r in parsed_ranges(campaign, testset_docs(campaign.testset)):
            doc = docs[r.doc]
            for v in campaign.versions:
                if version_texts(v, doc.id, r.start - 1, r.end) is None:
                    raise bad("missing_output", f"{version_labels(campaign)[v.id]} has no text for all of {r}", 409)
                team = v.submission.team_id if v.submission is not None else None
                plans.append(ItemPlan(document_id=doc.id, seg_start=r.start - 1, seg_end=r.end, version_ids=[v.id],
                                      group=str(r), team_ids=frozenset({team}) if team else frozenset()))
        return plans

    def on_assigned(self, campaign: Campaign, assignments: list[Assignment]) -> dict[str, Any]:
        return checks.add_attention_checks(campaign, assignments)

    def movable(self, asg: Assignment) -> bool:
        plan = asg.plan or {}   # an attention check and its original stay with one annotator (they are a pair)
        return not plan.get("bad") and not plan.get("checked_by_copy") and not responses.live_answers(asg)

    # -- the annotator ----------------------------------------------------------------------------
    def item_state(self, asg: Assignment, *, readonly: bool) -> dict[str, Any]:
        return page.item_state(asg, readonly=readonly)

    def check_response(self, asg: Assignment, kind: str, key: str, data: Any) -> dict[str, Any]:
        if kind != responses.KIND:
            raise bad("unknown_kind", f"an ESA item takes {responses.KIND!r} answers, not {kind!r}", field="kind")
        segs = segment_texts(asg)
        seg = responses.segment_key(key, len(segs))
        answer = responses.check_answer(seg, data, segs[seg]["target"], read=seg <= asg.furthest)
        check_suggested(asg, seg, answer.spans)   # ESA^AI: a span claims only a suggestion that was made
        return answer.to_json()

    def furthest_clipper(self, asg: Assignment):
        return page.furthest_clipper(asg)

    def check_finish(self, asg: Assignment) -> None:
        page.check_finish(asg)

    # -- results ----------------------------------------------------------------------------------
    def results(self, campaign: Campaign, *, organizer: bool = False) -> dict[str, Any]:
        return results.results_for(campaign, organizer)

    def release_snapshot(self, campaign: Campaign) -> dict[str, Any]:
        return results.release_snapshot(campaign)

    def exports(self) -> dict[str, tuple[str, str, str]]:
        return {"jsonl": ("application/x-ndjson; charset=utf-8", "jsonl", "JSON Lines (every answer)"),
                "csv": ("text/csv; charset=utf-8", "csv", "CSV (every answer)"),
                "appraise": ("text/csv; charset=utf-8", "scores.csv", "Appraise score export (CSV)")}

    def export(self, campaign: Campaign, fmt: str) -> str:
        if fmt == "jsonl":
            return exports.export_jsonl(campaign)
        if fmt == "csv":
            return exports.export_csv(campaign)
        if fmt == "appraise":
            return exports.export_appraise(campaign)
        return super().export(campaign, fmt)

    def ranking_judgments(self, campaign: Campaign):
        return stability.ranking_judgments(campaign)

    def progress(self, campaign: Campaign) -> dict[str, Any]:
        return results.progress(campaign)

    def leaderboard(self, campaign: Campaign) -> LeaderboardPart | None:
        return LeaderboardPart.from_dict(results.leaderboard_part(campaign))

    def meta_sources(self, campaign: Campaign) -> list[Any]:
        from .meta import meta_sources

        return meta_sources(campaign)

    def evidence(self, campaign: Campaign, *, document_id: int | None = None) -> list[Evidence]:
        from .meta import evidence

        return evidence(campaign, document_id=document_id)

    # -- tutorials and completion codes (enface.crowd) -------------------------------------------------------
    tutorial_hooks = tutorial

    def attention_results(self, campaign: Campaign, annotator_id: int) -> tuple[int, int]:
        return tutorial.attention_results(campaign, annotator_id)

    def item_label(self, item: Item) -> str:
        labels = version_labels(item.campaign)
        return f"{labels.get(item.versions[0].version_id, '?')} · {super().item_label(item)}"



PROTOCOL = register(ESAProtocol())
