"""Contrastive ESA (cESA, as Pearmut's): one document range with its versions side by side.

An annotator sees each source segment of a document range (the range is the document context) with
every version's translation next to each other, in an order shuffled once per assignment and stored
(``Assignment.plan["order"]``), unnamed (translation A, B, ...). Each translation gets its own ESA
error spans (minor/major, ``[missing]``) and its own 0-100 slider with ESA's anchors; a score below
:data:`enface.protocols.cesa.answers.LOW_SCORE` with no span gets a visible warning. Each translation's answer is an ESA
answer, so the results are ESA's (:mod:`humaneval.esa` through :mod:`enface.protocols.esa.results`), per version.

It reuses ESA's modules (answer record and its checks, settings, results, leaderboard column, CLI
options); what differs is here: the items (all versions of a range in one item), the stored order,
the page, the keys of the answers. BAD attention checks are not built (``attention_share`` is 0).
Its exports and meta-evaluation source are ESA's, over the rows of :mod:`.column_rows`.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from ...campaigns.contract import Evidence, LeaderboardColumn
from ...campaigns.models import Assignment, Campaign, Item
from ...campaigns.protocol import ItemPlan, register
from ...campaigns.services import bad, parsed_ranges, testset_docs, version_labels
from ..esa import exports as esa_exports
from ..esa import stability as esa_stability
from ..esa.protocol import ESAProtocol
from ..esa.responses import KIND, check_answer
from ..esa.settings import clean_settings
from ..esa.texts import version_texts
from . import cli, column_rows, page, results
from .answers import column_order, live_answers, parse_key


class ContrastiveESAProtocol(ESAProtocol):
    key = "cesa"
    title = "Contrastive ESA (versions side by side)"
    description = ("ESA with every version of a segment side by side, in a shuffled order kept per annotator: "
                   "error spans and a 0-100 score per translation (Pearmut's cESA).")
    order = 6
    strategies = ("redundancy",)
    options = cli.OPTIONS
    leaderboard_column = LeaderboardColumn(
        name="cESA", choice="human-cesa", head="cesa/_lb_head.html", cell="cesa/_lb_cell.html",
        ranking="cesa/_lb_ranking.html", api_row_field=True,
        precedence_note=Markup("Contrastive ESA (versions side by side) orders the board."))
    item_template = "cesa/item.html"
    dashboard_template = "cesa/dashboard.html"
    new_template = "cesa/new.html"
    results_template = "esa/results.html"

    @property
    def blueprint(self):
        from .views import bp

        return bp

    def clean_settings(self, data: dict[str, Any], testset) -> dict[str, Any]:
        if float(data.get("attention_share") or 0) > 0:
            raise bad("invalid_field", "contrastive ESA builds no BAD attention checks: attention_share must be 0",
                      field="attention_share")
        return {**clean_settings(data, testset), "attention_share": 0.0, "exclude_failing": False}

    def settings_summary(self, campaign: Campaign) -> list[tuple[str, str]]:
        return [x for x in super().settings_summary(campaign) if x[0] not in ("Attention checks",
                                                                                "Annotator quality",
                                                                                "Failing annotators",
                                                                                "Minimum reading time")]

    def form_defaults(self, testset, submissions: list, docs: list) -> dict[str, Any]:
        return {**super().form_defaults(testset, submissions, docs), "name": f"{testset.name} cESA",
                "strategy": "redundancy", "attention_share": "0", "exclude_failing": "0"}

    def dashboard_context(self, campaign: Campaign, args) -> dict[str, Any]:
        ctx: dict[str, Any] = {"summary": self.settings_summary(campaign)}
        if campaign.state != "draft":
            ctx["prog"] = results.progress(campaign)
            ctx["results"] = results.compute_results(campaign)
        return ctx

    def results_context(self, campaign: Campaign) -> dict[str, Any]:
        return {"results": self.results(campaign), "summary": self.settings_summary(campaign), "ai": None}

    def cli_create(self, testset, request):
        return cli.cli_create(self, testset, request)

    def cli_status(self, campaign: Campaign, as_json: bool) -> None:
        cli.cli_status(campaign, as_json)

    # -- the start ------------------------------------------------------------------------------
    def build_items(self, campaign: Campaign) -> list[ItemPlan]:
        """One item per document range holding every version (systems and references)."""
        docs = {d.name: d for d in campaign.testset.documents}
        if len(campaign.versions) < 2:
            raise bad("too_few_versions", "contrastive ESA compares at least two versions", 409)
        plans = []
        for r in parsed_ranges(campaign, testset_docs(campaign.testset)):
            doc = docs[r.doc]
            for v in campaign.versions:
                if version_texts(v, doc.id, r.start - 1, r.end) is None:
                    raise bad("missing_output", f"{version_labels(campaign)[v.id]} has no text for all of {r}", 409)
            teams = frozenset(v.submission.team_id for v in campaign.versions if v.submission is not None)
            plans.append(ItemPlan(document_id=doc.id, seg_start=r.start - 1, seg_end=r.end,
                                  version_ids=[v.id for v in campaign.versions], group=str(r), team_ids=teams))
        return plans

    def on_assigned(self, campaign: Campaign, assignments: list[Assignment]) -> dict[str, Any]:
        return page.shuffle_orders(campaign, assignments)

    def movable(self, asg: Assignment) -> bool:
        return not live_answers(asg)

    # -- the annotator ----------------------------------------------------------------------------
    def item_state(self, asg: Assignment, *, readonly: bool) -> dict[str, Any]:
        return page.item_state(asg, readonly=readonly)

    def check_response(self, asg: Assignment, kind: str, key: str, data: Any) -> dict[str, Any]:
        if kind != KIND:
            raise bad("unknown_kind", f"a cESA item takes {KIND!r} answers, not {kind!r}", field="kind")
        segs = page.segment_texts(asg)
        seg, col = parse_key(key, len(segs), len(column_order(asg)))
        return check_answer(seg, data, segs[seg]["targets"][col], read=True).to_json()

    def furthest_clipper(self, asg: Assignment):
        return lambda furthest, times: furthest

    def check_finish(self, asg: Assignment) -> None:
        page.check_finish(asg)

    # -- results ----------------------------------------------------------------------------------
    def results(self, campaign: Campaign, *, organizer: bool = False) -> dict[str, Any]:
        return results.results_for(campaign, organizer)

    def release_snapshot(self, campaign: Campaign) -> dict[str, Any]:
        return results.release_snapshot(campaign)

    def exports(self) -> dict[str, tuple[str, str, str]]:
        return super().exports()     # ESA's three formats, one row per column's answer

    def export(self, campaign: Campaign, fmt: str) -> str:
        writers = {"jsonl": esa_exports.export_jsonl, "csv": esa_exports.export_csv,
                   "appraise": esa_exports.export_appraise}
        if fmt in writers:
            return writers[fmt](campaign, column_rows.answer_rows)
        return super(ESAProtocol, self).export(campaign, fmt)

    def ranking_judgments(self, campaign: Campaign):
        return esa_stability.ranking_judgments(campaign, column_rows.answer_rows)

    def progress(self, campaign: Campaign) -> dict[str, Any]:
        return results.progress(campaign)

    def meta_sources(self, campaign: Campaign) -> list[Any]:
        from ..esa.meta import meta_sources

        return meta_sources(campaign, column_rows.answer_rows, title="Contrastive ESA")

    def evidence(self, campaign: Campaign, *, document_id: int | None = None) -> list[Evidence]:
        return []

    def item_label(self, item: Item) -> str:
        return super(ESAProtocol, self).item_label(item)


PROTOCOL = register(ContrastiveESAProtocol())
