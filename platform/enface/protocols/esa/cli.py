"""``enface campaign create --protocol esa`` (its options, declared once: :attr:`ESAProtocol.options`) and
``enface campaign status`` of an ESA campaign."""

from __future__ import annotations

import json

import click

from humaneval.esa.attention import DEFAULT_ALPHA, DEFAULT_TEST
from humaneval.esa.attention import TESTS as ATTENTION_TESTS
from scoring.human_ranking import ALL_TESTS

from ...campaigns import reading
from ...campaigns.options import CreateRequest, Option
from ...campaigns.services import bad
from .settings import DEFAULT_RANKING_TEST, RANKING_BY

OPTIONS = (
    Option("references", str, (), "a human reference annotated and ranked with the systems (repeatable: "
           "--reference ref1 --reference ref2)", flag="--reference", multiple=True, metavar="ref1|ref2"),
    Option("sample_docs", int, 5, "documents to sample", flag="--docs"),
    Option("sample_words", int, 2200, "source words to sample in all (0: whole documents)", flag="--words"),
    Option("attention_share", float, 0.1, "share of each annotator's items that get a BAD copy (at least one when "
           "above 0)", flag="--attention"),
    Option("attention_test", str, DEFAULT_TEST, "the annotators' quality test, one-sided (BAD below the originals)",
           choices=tuple(ATTENTION_TESTS)),
    Option("attention_alpha", float, DEFAULT_ALPHA, "an annotator passes when the attention test's p is below it"),
    Option("count_failing", bool, False, "count annotators who fail the attention checks (WMT leaves them out)"),
    Option("ranking_test", str, DEFAULT_RANKING_TEST, "the official ranking's test (the ESA analyses: the "
           "unpaired rank-sum test)", choices=tuple(ALL_TESTS)),
    Option("ranking_by", str, "score", "rank on the mean score or on the mean z-score", choices=tuple(RANKING_BY)),
    Option("words_per_second", float, float(reading.DEFAULT_WORDS_PER_SECOND),
           "minimum reading time: a segment counts as read after its source and translation at this speed"),
    Option("esa_guidelines", "file", None, "a text file of more guidelines shown to annotators", metavar="FILE"),
)


def references(given) -> list[int]:
    refs = []
    for ref in given:
        if ref not in ("ref1", "ref2", "1", "2"):
            raise bad("invalid_field", f"--reference {ref!r}: ref1 or ref2", field="references")
        refs.append(int(ref[-1]))
    return refs


def settings_from(opts: dict) -> dict:
    """The campaign settings from the command line's options."""
    guidelines = ""
    if opts.get("esa_guidelines"):
        with open(opts["esa_guidelines"], encoding="utf-8") as fh:
            guidelines = fh.read()
    return {"attention_share": opts["attention_share"], "attention_test": opts["attention_test"],
            "attention_alpha": opts["attention_alpha"], "exclude_failing": not opts["count_failing"],
            "significance_test": opts["ranking_test"], "ranking_by": opts["ranking_by"],
            "words_per_second": opts["words_per_second"], "guidelines": guidelines}


def cli_create(protocol, testset, request: CreateRequest):
    from ...campaigns import services as svc

    opts = request.options or {}
    ids = list(request.systems) or [s.id for s in svc.eligible_submissions(testset) if svc.default_selected(s)]
    c = svc.create_campaign(None, testset, svc.CampaignInput(
        name=request.name, submission_ids=ids, references=references(opts["references"]), protocol=protocol.key,
        redundancy=request.redundancy, strategy=request.strategy, ranges="\n".join(request.ranges),
        sample_docs=opts["sample_docs"], sample_words=opts["sample_words"], instructions=request.instructions,
        seed=request.seed, settings=settings_from(opts), **request.document_choice()))
    with_refs = "".join(f", reference {v.reference}" for v in c.versions if v.is_reference)
    return c, (f"campaign {c.id}: ESA, {len(c.systems)} systems{with_refs}, {c.strategy} strategy, "
               f"documents {', '.join(c.ranges)}")


def cli_status(campaign, as_json: bool) -> None:
    from .results import compute_results, progress

    prog = progress(campaign)
    res = compute_results(campaign) if campaign.state != "draft" else {"systems": []}
    systems = {s["system"]: {"score": s["score"], "z": s["z"], "items": s["items"], "spans": s["spans"]}
               for s in res.get("systems", [])}
    if as_json:
        click.echo(json.dumps({"id": campaign.id, "name": campaign.name, "state": campaign.state, "protocol": "esa",
                               "items": prog["total"], "finished": prog["counts"]["finished"], "systems": systems,
                               "excluded": res.get("excluded", []),
                               "attention": [{k: c[k] for k in ("annotator", "pairs", "p_value", "passed")}
                                             for c in res.get("attention", [])]}, indent=1))
        return
    click.echo(f"{campaign.name} [{campaign.state}] ESA: {prog['counts']['finished']}/{prog['total']} items finished")
    for c in res.get("attention", []):
        verdict = "no check" if c["passed"] is None else "pass" if c["passed"] else "FAIL"
        click.echo(f"  {c['annotator']:8} attention: {verdict} ({c['pairs']} pairs, p {c['p_value']})")
    for name, s in systems.items():
        click.echo(f"  {name:24} {s['score']:6.2f}  z {s['z']:+.3f}  {s['items']} segments")
