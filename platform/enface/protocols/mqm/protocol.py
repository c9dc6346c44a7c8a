"""MQM error annotation (WMT 2023 literary, Google's MQM) as a protocol of the campaign core."""

from __future__ import annotations

import random
from typing import Any

from markupsafe import Markup

import mqm
from mqm.words import MODES as WORD_MODES
from scoring.human_ranking import DEFAULT_TEST
from scoring.human_ranking import TESTS as SIGNIFICANCE_TESTS

from ...campaigns import reading, sampling
from ...campaigns.contract import Evidence, Export, LeaderboardColumn, LeaderboardPart
from ...campaigns.models import Assignment, Campaign, Item
from ...campaigns.protocol import ItemPlan, Protocol, register
from ...campaigns.services import CampaignInput, bad, default_selected, number, testset_docs
from ...campaigns.services.setup import parsed_ranges, version_labels
from ...extensions import db
from ...services import is_ascii_int
from . import attention, cli, tutorial
from . import services as svc
from .constants import ATTENTION_KINDS, SIGNIFICANCE_UNITS
from .models import AttentionCheck

DEFAULTS = {"scheme": mqm.DEFAULT_SCHEME, "attention_share": 0.1, "attention_kind": "mixed",
            "source_words": "auto", "significance_unit": "segment", "significance_test": DEFAULT_TEST,
            "words_per_second": reading.DEFAULT_WORDS_PER_SECOND}


class MQMProtocol(Protocol):
    key = "mqm"
    title = "MQM error annotation"
    description = ("Annotators mark error spans with a category and a severity (WMT 2023 literary, Google MQM); "
                   "scores feed the official human ranking.")
    order = 0      # the default protocol; its ranking (WMT's official one) orders the board first
    strategies = ("redundancy", "document")
    options = cli.OPTIONS
    leaderboard_column = LeaderboardColumn(
        name="MQM", choice="human", head="mqm/_lb_head.html", cell="mqm/_lb_cell.html",
        ranking="mqm/_lb_ranking.html", shown_without_ranking=True, api_row_field=True,
        precedence_note=Markup("MQM, WMT's official ranking, orders the board."))   # (our text: an apostrophe as is)
    item_template = "mqm/item.html"
    dashboard_template = "mqm/dashboard.html"
    results_template = "mqm/results.html"

    # -- settings -----------------------------------------------------------------------------------
    def clean_settings(self, data: dict[str, Any], testset) -> dict[str, Any]:
        out = {**DEFAULTS, **{k: v for k, v in data.items() if v is not None and v != ""}}
        schemes = mqm.available_schemes()
        if out["scheme"] not in schemes:
            raise bad("invalid_field", f"unknown scheme {out['scheme']!r} (known: {', '.join(schemes)})",
                      field="scheme")
        out["attention_share"] = number(out["attention_share"], "attention-check share", 0.0, 1.0)
        if out["attention_kind"] not in ATTENTION_KINDS:
            raise bad("invalid_field", f"attention kind must be one of {', '.join(ATTENTION_KINDS)}",
                      field="attention_kind")
        if out["source_words"] not in WORD_MODES:
            raise bad("invalid_field", f"source word counting must be one of {', '.join(WORD_MODES)}",
                      field="source_words")
        if out["significance_unit"] not in SIGNIFICANCE_UNITS:
            raise bad("invalid_field", f"significance unit must be one of {', '.join(SIGNIFICANCE_UNITS)}",
                      field="significance_unit")
        if out["significance_test"] not in SIGNIFICANCE_TESTS:
            raise bad("invalid_field", f"significance test must be one of {', '.join(SIGNIFICANCE_TESTS)}",
                      field="significance_test")
        out["words_per_second"] = number(out["words_per_second"], "reading speed (words per second)", 0.5, 1000)
        unknown = sorted(set(out) - set(DEFAULTS))
        if unknown:
            raise bad("invalid_field", f"unknown MQM setting(s): {', '.join(unknown)}", field=unknown[0])
        return out

    def word_counter(self, settings: dict[str, Any], testset):
        return mqm.WordCounter(settings.get("source_words", "auto"), lang=testset.src_lang)

    def settings_summary(self, campaign: Campaign) -> list[tuple[str, str]]:
        s = campaign.settings
        return [("Scheme", s.get("scheme", "")), ("Attention checks", f"{s.get('attention_share', 0):.0%} "
                f"({s.get('attention_kind', '')})"), ("Source words", s.get("source_words", "")),
                ("Significance unit", s.get("significance_unit", "")),
                ("Significance test", SIGNIFICANCE_TESTS.get(s.get("significance_test", DEFAULT_TEST), "")),
                ("Minimum reading time", f"{s.get('words_per_second', DEFAULTS['words_per_second']):g} words/s")]

    @property
    def blueprint(self):
        from .views import bp  # (Flask routes: imported when the app is built, not with the protocol)

        return bp

    # -- the organizer's pages ---------------------------------------------------------------------------
    new_template = "mqm/new.html"

    def form_defaults(self, testset, submissions: list, docs: list) -> dict[str, Any]:
        return {"name": f"{testset.name} MQM", "scheme": mqm.DEFAULT_SCHEME, "redundancy": "2",
                "strategy": "redundancy", "docs_mode": "sample", "sample_docs": str(min(5, len(docs))),
                "sample_words": "2200", "ranges": "", "attention_share": "10%", "attention_kind": "mixed",
                "source_words": "auto", "significance_unit": "segment", "significance_test": DEFAULT_TEST,
                "instructions": "", "seed": "",
                "words_per_second": str(DEFAULTS["words_per_second"]),
                "systems": [s.id for s in submissions if default_selected(s)], "references": []}

    def input_from_form(self, form: dict[str, Any], posted) -> CampaignInput:
        form.update({k: posted.get(k, "") for k in form if k not in ("systems", "references")})
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
            settings={k: form[k] for k in DEFAULTS}, instructions=form["instructions"],
            seed=seed or None)

    def form_context(self, testset, form: dict[str, Any]) -> dict[str, Any]:
        doc_rows, words_method = svc.document_words(testset, form["source_words"])
        return {"docs": doc_rows, "words_method": words_method,
                "schemes": [(name, svc.get_scheme(name).title) for name in mqm.available_schemes()],
                "attention_kinds": ATTENTION_KINDS, "word_modes": WORD_MODES, "units": SIGNIFICANCE_UNITS,
                "significance_tests": SIGNIFICANCE_TESTS}

    def dashboard_context(self, campaign: Campaign, args) -> dict[str, Any]:
        doc = args.get("doc") or None
        rows = svc.load_rows(campaign)    # read once for the progress and the results
        prog = svc.progress(campaign, rows=rows)
        results = svc.compute_results(campaign, doc=doc, rows=rows) if campaign.state != "draft" else None
        scheme = svc.get_scheme(svc.scheme_name(campaign))
        chart = svc.error_chart(results, scheme) if results and results["errors"] else None
        return {"prog": prog, "results": results, "chart": chart, "scheme": scheme, "labels": rows.labels,
                "doc": doc, "docs": sorted({i.document.name for i in rows.items})}

    def results_context(self, campaign: Campaign) -> dict[str, Any]:
        res = svc.results_for(campaign)
        chart = svc.error_chart(res, svc.get_scheme(svc.scheme_name(campaign))) if res and res.get("errors") else None
        return {"results": res, "chart": chart}

    def cli_create(self, testset, request):
        return cli.cli_create(self, testset, request)

    def cli_status(self, campaign: Campaign, as_json: bool) -> None:
        cli.cli_status(campaign, as_json)

    # -- the start ------------------------------------------------------------------------------------
    def build_items(self, campaign: Campaign) -> list[ItemPlan]:
        """Systems x ranges: one item per system and document range."""
        doc_infos = testset_docs(campaign.testset)
        ranges = parsed_ranges(campaign, doc_infos)
        docs = {d.name: d for d in campaign.testset.documents}
        counter = svc.word_counter(campaign)
        sources = {d.name: d.sources for d in doc_infos}
        plans = []
        for r in ranges:
            words = sum(counter(s) for s in sources[r.doc][r.start - 1:r.end])
            for v in campaign.versions:     # the human references chosen, then the systems
                if not svc.version_texts(v, docs[r.doc].id, r.start - 1, r.end):
                    what = (f"reference {v.reference} has a gap in" if v.is_reference
                            else f"submission {v.submission_id} has no output for")
                    raise bad("missing_output", f"{what} {r}", 409)
                team = v.submission.team_id if v.submission is not None else None
                plans.append(ItemPlan(document_id=docs[r.doc].id, seg_start=r.start - 1, seg_end=r.end,
                                      version_ids=[v.id], source_words=words, group=str(r),
                                      team_ids=frozenset({team}) if team else frozenset()))
        return plans

    def on_assigned(self, campaign: Campaign, assignments: list[Assignment]) -> dict[str, Any]:
        """Injects attention checks into a share of the assignments (corrupted targets to find)."""
        share = campaign.setting("attention_share", 0.0)
        kind = campaign.setting("attention_kind", "mixed")
        checked = sampling.pick_attention_items([a.id for a in assignments], share, campaign.seed + 2)
        rng = random.Random(campaign.seed + 3)
        n = 0
        for asg in sorted(assignments, key=lambda a: a.id):
            if asg.id not in checked:
                continue
            item = db.session.get(Item, asg.item_id)
            texts = svc.version_texts(item.version, item.document_id, item.seg_start, item.seg_end)
            found = attention.choose_attention(texts, kind, rng)
            if found is not None:
                seg, cor = found
                db.session.add(AttentionCheck(assignment_id=asg.id, seg=seg, kind=cor.kind, text=cor.text,
                                              start_pos=cor.start, end_pos=cor.end))
                n += 1
        return {"attention_checks": n}

    def list_options(self) -> list:
        from sqlalchemy.orm import selectinload

        return [selectinload(Assignment.marks)]

    def movable(self, asg: Assignment) -> bool:
        return not asg.marks

    # -- the annotator ----------------------------------------------------------------------------------
    def item_state(self, asg: Assignment, *, readonly: bool) -> dict[str, Any]:
        return svc.item_state(asg, readonly=readonly)

    def furthest_clipper(self, asg: Assignment):
        return svc.furthest_clipper(asg)

    def check_finish(self, asg: Assignment) -> None:
        svc.check_read(asg)

    def on_finish(self, asg: Assignment) -> None:
        found = svc.attention_found(asg)
        if found is not None:
            asg.attention.result = "found" if found else "missed"

    def on_reopen(self, asg: Assignment) -> None:
        if asg.attention is not None:
            asg.attention.result = None

    # -- results -------------------------------------------------------------------------------------------
    def results(self, campaign: Campaign, *, organizer: bool = False) -> dict[str, Any]:
        return svc.results_for(campaign, organizer)

    def release_snapshot(self, campaign: Campaign) -> dict[str, Any]:
        results = svc.compute_results(campaign, with_agreement=False)
        if not results["systems"]:
            raise bad("no_results", "no finished items yet: nothing to release", 409)
        results.pop("agreement", None)   # (not computed) kept live on the dashboard
        results["campaign"] = {"id": campaign.id, "name": campaign.name, "scheme": svc.scheme_name(campaign),
                               "ranges": campaign.ranges, "redundancy": campaign.redundancy}
        return results

    def exports(self) -> dict[str, Export]:
        return {"tsv": Export("text/tab-separated-values; charset=utf-8", "tsv", "TSV (Marot/Anthea)", svc.export_tsv),
                "json": Export("application/json", "json", "JSON", svc.export_json)}

    def ranking_judgments(self, campaign: Campaign):
        from .services.stability import ranking_judgments

        return ranking_judgments(campaign)

    def progress(self, campaign: Campaign) -> dict[str, Any]:
        return svc.progress(campaign)

    def leaderboard(self, campaign: Campaign) -> LeaderboardPart | None:
        return LeaderboardPart.from_dict(svc.leaderboard_mqm(campaign))

    def meta_sources(self, campaign: Campaign) -> list[Any]:
        from .services.meta import meta_sources

        return meta_sources(campaign)

    def evidence(self, campaign: Campaign, *, document_id: int | None = None) -> list[Evidence]:
        from .services.evidence import evidence

        return evidence(campaign, document_id=document_id)

    # -- tutorials and completion codes -------------------------------------------------------------------
    def tutorial_fields(self, campaign: Campaign) -> list[dict[str, Any]]:
        return tutorial.fields(campaign)

    def check_tutorial_expected(self, campaign: Campaign, expected: Any, translation: str) -> dict[str, Any]:
        return tutorial.check_expected(campaign, expected, translation)

    def grade_tutorial(self, campaign: Campaign, expected: dict[str, Any], answer: dict[str, Any]) -> bool:
        return tutorial.grade(campaign, expected, answer)

    def attention_results(self, campaign: Campaign, annotator_id: int) -> tuple[int, int]:
        from sqlalchemy import select

        results = list(db.session.scalars(
            select(AttentionCheck.result).join(Assignment, AttentionCheck.assignment_id == Assignment.id)
            .where(Assignment.annotator_id == annotator_id, AttentionCheck.result.is_not(None))))
        return sum(r == "found" for r in results), len(results)

    def item_label(self, item: Item) -> str:
        labels = version_labels(item.campaign)
        return f"{labels.get(item.versions[0].version_id, '?')} · {super().item_label(item)}"




PROTOCOL = register(MQMProtocol())
