"""``enface campaign create --protocol mqm`` and ``enface campaign status`` of an MQM campaign."""

from __future__ import annotations

import json

import click

import mqm
from mqm.words import MODES as WORD_MODES
from scoring.human_ranking import DEFAULT_TEST
from scoring.human_ranking import TESTS as SIGNIFICANCE_TESTS

from ...campaigns import reading
from ...campaigns.options import CreateRequest, Option
from ...campaigns.services import bad
from .constants import ATTENTION_KINDS, SIGNIFICANCE_UNITS

#: the sample of documents (the reader study declares the same two, with its own defaults)
SAMPLE_OPTIONS = (
    Option("sample_docs", int, 5, "documents to sample", flag="--docs"),
    Option("sample_words", int, 2200, "source words to sample in all (0: whole documents)", flag="--words"),
)

OPTIONS = (
    Option("scheme", str, mqm.DEFAULT_SCHEME, "the MQM scheme (categories and weights)"),
    Option("references", str, (), "a human reference annotated and ranked with the systems (repeatable: "
           "--reference ref1 --reference ref2)", flag="--reference", multiple=True, metavar="ref1|ref2"),
    *SAMPLE_OPTIONS,
    Option("attention_share", float, 0.1, "share of items with an attention check", flag="--attention"),
    Option("attention_kind", str, "mixed", "", choices=ATTENTION_KINDS),
    Option("source_words", str, "auto", "", choices=WORD_MODES),
    Option("significance_unit", str, "segment", "", choices=SIGNIFICANCE_UNITS),
    Option("significance_test", str, DEFAULT_TEST, "paired test of the official human ranking: Wilcoxon "
           "signed-rank (WMT) or approximate randomisation", choices=tuple(SIGNIFICANCE_TESTS)),
    Option("words_per_second", float, float(reading.DEFAULT_WORDS_PER_SECOND),
           "minimum reading time: a segment counts as read after its source and translation at this speed"),
)
SETTINGS = ("scheme", "attention_share", "attention_kind", "source_words", "significance_unit",
            "significance_test", "words_per_second")


def references(given) -> list[int]:
    refs = []
    for ref in given:
        if ref not in ("ref1", "ref2", "1", "2"):
            raise bad("invalid_field", f"--reference {ref!r}: ref1 or ref2", field="references")
        refs.append(int(ref[-1]))
    return refs


def cli_create(protocol, testset, request: CreateRequest):
    from ...campaigns import services as svc

    opts = request.options or {}
    ids = list(request.systems) or [s.id for s in svc.eligible_submissions(testset) if svc.default_selected(s)]
    c = svc.create_campaign(None, testset, svc.CampaignInput(
        name=request.name, submission_ids=ids, references=references(opts["references"]), protocol=protocol.key,
        redundancy=request.redundancy, strategy=request.strategy, ranges="\n".join(request.ranges),
        sample_docs=opts["sample_docs"], sample_words=opts["sample_words"], instructions=request.instructions,
        seed=request.seed, settings={k: opts[k] for k in SETTINGS}, **request.document_choice()))
    with_refs = "".join(f", reference {v.reference}" for v in c.versions if v.is_reference)
    return c, f"campaign {c.id}: {len(c.systems)} systems{with_refs}, documents {', '.join(c.ranges)}"


def cli_status(campaign, as_json: bool) -> None:
    from ...campaigns.services import fmt_ms
    from . import services as mqm_svc

    c = campaign
    rows = mqm_svc.load_rows(c)
    prog = mqm_svc.progress(c, rows=rows)
    res = mqm_svc.compute_results(c, rows=rows) if c.state != "draft" else None
    if as_json:
        click.echo(json.dumps({
            "id": c.id, "name": c.name, "state": c.state, "scheme": c.setting("scheme"), "items": prog["total"],
            "finished": prog["finished"],
            "annotators": [{"rater": p["rater"], "email": p["user"].email, "items": p["items"],
                            "finished": p["finished"], "read": p["read"], "segments": p["segments"],
                            "marks": p["marks"], "time_ms": p["time_ms"], "attention_found": p["found"],
                            "attention_missed": p["missed"]} for p in prog["annotators"]],
            "scores": {s: r["score"] for s, r in (res or {}).get("systems", {}).items()}}, indent=1))
        return
    click.echo(f"{c.name} [{c.state}] {c.setting('scheme')}: {prog['finished']}/{prog['total']} items finished")
    for p in prog["annotators"]:
        click.echo(f"  {p['rater']:8} {p['user'].email:30} {p['finished']}/{p['items']} items, "
                   f"{p['read']}/{p['segments']} segments, {p['marks']} marks, {fmt_ms(p['time_ms'])}, "
                   f"attention {p['found']} found / {p['missed']} missed")
    ranking = (res or {}).get("ranking") or {"rows": []}
    for r in ranking["rows"]:
        click.echo(f"    {r['rank_range']:>5}  {r['score']:7.2f}  {r['system']}  ({r['kind']})")
