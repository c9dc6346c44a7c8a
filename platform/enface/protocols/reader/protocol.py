"""The reader-centred study of LAIT as a protocol of the campaign core.

Readers read two versions of a book excerpt one after the other (immersive reading,
questionnaires after each and a comparison), wait (24 hours by default), then compare them
side by side in chunks of about 300 words with good/poor highlights, a preference, a
justification and how difficult the choice was; after their last book come four open
questions. Counterbalanced: each document is read by two readers, one starting with each
version, and each reader starts with version 1 for one book and version 2 for the other
(:func:`humaneval.reader_design.counterbalance`).

Stages per assignment: "immersive", "close" (time-locked), "post" (the final questions, asked
on the reader's last book; on the others it passes at once).
"""

from __future__ import annotations

from typing import Any

from ...campaigns.contract import Evidence, Export
from ...campaigns.models import Assignment, Campaign, Item
from ...campaigns.protocol import ItemPlan, Protocol, register
from ...campaigns.services import (
    CampaignInput,
    bad,
    number,
    parsed_ranges,
    testset_docs,
    version_labels,
    whole_number,
)
from ...services import is_ascii_int
from ...services.accounts import check_text
from . import cli, exports, page, responses, results, stages, texts, tutorial
from .design import DEFAULTS, STAGES, blind_words_in, chunk_plan, default_guidelines, make_plan


class ReaderProtocol(Protocol):
    key = "reader"
    title = "Reader study (LAIT)"
    description = ("Readers read two versions of a book excerpt, answer questionnaires, then compare ~300-word "
                   "chunks side by side with good/poor highlights (counterbalanced, time-locked second part).")
    order = 10
    strategies = ("pairs",)
    options = cli.OPTIONS
    item_template = "reader/item.html"
    locked_template = "reader/item.html"
    list_template = "reader/_list.html"
    dashboard_template = "reader/dashboard.html"
    results_template = "reader/results.html"
    new_template = "reader/new.html"
    stages = STAGES

    @property
    def blueprint(self):
        from .views import bp  # (Flask routes: imported when the app is built)

        return bp

    def cli_create(self, testset, request):
        return cli.cli_create(self, testset, request)

    def cli_status(self, campaign: Campaign, as_json: bool) -> None:
        cli.cli_status(self, campaign, as_json)

    # -- settings ---------------------------------------------------------------------------------------
    def clean_settings(self, data: dict[str, Any], testset) -> dict[str, Any]:
        given = {k: v for k, v in data.items() if v is not None and v != ""}
        unknown = sorted(set(given) - set(DEFAULTS))
        if unknown:
            raise bad("invalid_field", f"unknown reader-study setting(s): {', '.join(unknown)}", field=unknown[0])
        out = {**DEFAULTS, **given}
        out["readers_per_document"] = whole_number(out["readers_per_document"], "readers per document", 1, 20)
        out["documents_per_reader"] = whole_number(out["documents_per_reader"], "documents per reader", 1, 100)
        out["lock_hours"] = number(out["lock_hours"], "hours between the two parts", 0, 24 * 30)
        out["chunk_words"] = whole_number(out["chunk_words"], "words per chunk", 30, 5000)
        out["fast_words_per_second"] = number(out["fast_words_per_second"], "fast reading (words per second)",
                                              1, 100)
        out["passphrase"] = check_text(str(out["passphrase"]).strip(), "passphrase", max_len=200, required=False)
        guidelines = str(out["guidelines"]).strip()
        out["guidelines"] = check_text(guidelines, "guidelines", max_len=20000, required=False, multiline=True) \
            if guidelines else default_guidelines(out["lock_hours"], out["chunk_words"])
        names = _names_of(testset)
        unblinding = blind_words_in(out["guidelines"], names)
        if unblinding:
            raise bad("invalid_field", "the guidelines are shown to readers, who must not learn which version is "
                      f"which: remove {', '.join(repr(w) for w in unblinding)}", field="guidelines")
        if out["passphrase"] and blind_words_in(out["passphrase"], names):
            raise bad("invalid_field", "the passphrase must not name a system, a team or a kind of translation",
                      field="passphrase")
        return out

    def settings_summary(self, campaign: Campaign) -> list[tuple[str, str]]:
        s = campaign.settings
        labels = version_labels(campaign)
        vs = list(campaign.versions)
        return [("Versions", " vs ".join(f"{i}: {labels[v.id]}" for i, v in enumerate(vs, 1)) or "none yet"),
                ("Readers per document", str(s.get("readers_per_document"))),
                ("Documents per reader", str(s.get("documents_per_reader"))),
                ("Break before Part 2", f"{s.get('lock_hours', 0):g} hours"),
                ("Chunk size", f"about {s.get('chunk_words')} words"),
                ("Passphrase", "set" if s.get("passphrase") else "none"),
                ("Fast reading flag", f"over {s.get('fast_words_per_second'):g} words per second")]

    # -- the organizer's pages ----------------------------------------------------------------------------
    def form_defaults(self, testset, submissions: list, docs: list) -> dict[str, Any]:
        return {"name": f"{testset.name} reader study", "version1": "ref1",
                "version2": f"sub{submissions[0].id}" if submissions else "ref2",
                "docs_mode": "ranges" if len(docs) <= 8 else "sample",
                "ranges": "\n".join(d.name for d in docs[:8]), "sample_docs": str(min(4, len(docs))),
                "sample_words": "0", "seed": "",
                **{k: str(v) for k, v in DEFAULTS.items()},
                "guidelines": default_guidelines(DEFAULTS["lock_hours"], DEFAULTS["chunk_words"])}

    def input_from_form(self, form: dict[str, Any], posted) -> CampaignInput:
        form.update({k: posted.get(k, "") for k in form})
        refs, subs = [], []
        if form["version1"] == form["version2"]:
            raise bad("invalid_field", "choose two different versions", field="version2")
        for field in ("version1", "version2"):
            value = form[field]
            if value in ("ref1", "ref2"):
                refs.append(int(value[-1]))
            elif value.startswith("sub") and is_ascii_int(value[3:]):
                subs.append(int(value[3:]))
            else:
                raise bad("invalid_field", f"choose {field.replace('version', 'version ')}", field=field)
        if form["docs_mode"] == "ranges" and not form["ranges"].strip():
            raise bad("invalid_ranges", "Write at least one document or range (or choose a sample).", field="ranges")
        seed = form["seed"].strip()
        settings = {k: form[k] for k in DEFAULTS}
        if settings["guidelines"].split() == default_guidelines(DEFAULTS["lock_hours"], DEFAULTS["chunk_words"]).split():
            settings["guidelines"] = ""    # untouched: written again for the break and chunk size chosen
        return CampaignInput(
            name=form["name"], submission_ids=subs, references=refs, protocol=self.key, strategy="pairs",
            version_order=[form["version1"], form["version2"]],
            redundancy=form["readers_per_document"] or 2,
            ranges=form["ranges"] if form["docs_mode"] == "ranges" else "", sample_docs=form["sample_docs"],
            sample_words=form["sample_words"], settings=settings,
            seed=seed or None)

    def form_context(self, testset, form: dict[str, Any]) -> dict[str, Any]:
        return {"docs": [{"name": d.name, "segments": d.num_segments} for d in testset.documents]}

    def dashboard_context(self, campaign: Campaign, args) -> dict[str, Any]:
        ctx: dict[str, Any] = {"summary": self.settings_summary(campaign)}
        if campaign.state == "draft":
            ctx["preview"] = results.plan_preview(campaign, self)
        else:
            ctx["prog"] = results.progress(campaign)
            ctx["design"] = results.design_table(campaign)
            ctx["results"] = results.results(campaign)
        return ctx

    def results_context(self, campaign: Campaign) -> dict[str, Any]:
        from ...campaigns.services import fmt_ms

        return {"results": self.results(campaign), "summary": self.settings_summary(campaign), "fmt_ms": fmt_ms}

    # -- the start ------------------------------------------------------------------------------------------
    def build_items(self, campaign: Campaign) -> list[ItemPlan]:
        """One item per document range, holding both versions (slots 1 and 2)."""
        vs = texts.campaign_versions(campaign)
        docs = {d.name: d for d in campaign.testset.documents}
        plans = []
        for r in parsed_ranges(campaign, testset_docs(campaign.testset)):
            doc = docs[r.doc]
            for k, v in vs.items():
                if texts.version_texts(v, doc.id, r.start - 1, r.end) is None:
                    raise bad("missing_output", f"version {k} ({version_labels(campaign)[v.id]}) has no text for "
                              f"{r}", 409)
            teams = frozenset(v.submission.team_id for v in vs.values()
                              if v.submission is not None and v.submission.team_id)
            plans.append(ItemPlan(document_id=doc.id, seg_start=r.start - 1, seg_end=r.end,
                                  version_ids=[vs["1"].id, vs["2"].id], group=str(r), team_ids=teams))
        return plans

    def plan_assignments(self, campaign: Campaign, items: list[ItemPlan],
                         annotators: list[Any]) -> list[tuple[int, int, dict[str, Any]]]:
        slots = results.design_slots(campaign, items, annotators)
        chunks = {}
        tgt = campaign.testset.tgt_lang
        vs = texts.campaign_versions(campaign)
        out = []
        for reader, doc, first in slots:
            i, a = int(doc), int(reader)
            if i not in chunks:
                p = items[i]
                whole = {k: texts.version_texts(v, p.document_id, p.seg_start, p.seg_end)
                         or [""] * (p.seg_end - p.seg_start) for k, v in vs.items()}
                chunks[i] = chunk_plan(whole, int(campaign.setting("chunk_words", 300)), tgt)
            out.append((i, a, make_plan(first, chunks[i], f"{campaign.seed}:{a}:{i}")))
        return out

    def on_assigned(self, campaign: Campaign, assignments: list[Assignment]) -> dict[str, Any]:
        """The final questions go with each reader's last book."""
        last: dict[int, Assignment] = {}
        for asg in assignments:
            if asg.annotator_id not in last or asg.number > last[asg.annotator_id].number:
                last[asg.annotator_id] = asg
        for asg in last.values():
            asg.plan = {**asg.plan, "post": True}
        return {"readers": len(last)}

    def movable(self, asg: Assignment) -> bool:
        return False   # the design is counterbalanced per reader: moving one book would unbalance it

    # -- the reader -----------------------------------------------------------------------------------------
    def list_status(self, asg: Assignment) -> dict[str, Any]:
        """Where the reader is in one book, for their list of books."""
        return page.list_status(asg)

    def item_state(self, asg: Assignment, *, readonly: bool) -> dict[str, Any]:
        return page.item_state(asg, readonly=readonly)

    def check_response(self, asg: Assignment, kind: str, key: str, data: Any) -> dict[str, Any]:
        return responses.check_response(asg, kind, key, data)

    def check_finish(self, asg: Assignment) -> None:
        stages.check_finish(asg)

    def on_stage_finish(self, asg: Assignment) -> None:
        stages.record_flags(asg)

    def stage_lock_hours(self, campaign: Campaign, stage: int) -> float:
        return float(campaign.setting("lock_hours", 24.0)) if stage == 1 else 0.0

    # -- results ----------------------------------------------------------------------------------------------
    def results(self, campaign: Campaign, *, organizer: bool = False) -> dict[str, Any]:
        if campaign.state == "released" and campaign.results and not organizer:
            return campaign.results
        return results.results(campaign)

    def release_snapshot(self, campaign: Campaign) -> dict[str, Any]:
        res = results.results(campaign)
        if res.get("empty"):
            raise bad("no_results", "no reader has finished Part 1 of a book yet: nothing to release", 409)
        return res

    def exports(self) -> dict[str, Export]:
        return {"jsonl": Export("application/x-ndjson; charset=utf-8", "jsonl", "JSON Lines", exports.export_jsonl),
                "csv": Export("text/csv; charset=utf-8", "csv", "CSV", exports.export_csv)}

    def progress(self, campaign: Campaign) -> dict[str, Any]:
        return results.progress(campaign)

    def meta_sources(self, campaign: Campaign) -> list[Any]:
        from .meta import meta_sources

        return meta_sources(campaign)

    tutorial_hooks = tutorial      # tutorials (enface.crowd)

    def item_label(self, item: Item) -> str:
        return f"{item.document.name}:{item.seg_start + 1}-{item.seg_end}"

    def evidence(self, campaign: Campaign, *, document_id: int | None = None) -> list[Evidence]:
        from .evidence import evidence

        return evidence(campaign, document_id=document_id)


def _names_of(testset) -> list[str]:
    """System and team names of a test set (what the guidelines must not mention)."""
    from sqlalchemy import select

    from ...extensions import db
    from ...models import Submission, Team

    subs = db.session.execute(select(Submission.system_name, Team.name).outerjoin(Team, Submission.team_id == Team.id)
                              .where(Submission.testset_id == testset.id)).all()
    return sorted({n for row in subs for n in row if n})


PROTOCOL = register(ReaderProtocol())
