"""``enface campaign create --protocol bws``: its options (declared as data) and the draft it creates;
``enface campaign status`` of a BWS campaign."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from scoring.human_ranking import TESTS

from ...campaigns import services as svc
from ...campaigns.options import CreateRequest, Option
from ...campaigns.services import bad
from .selection import SELECTIONS
from .settings import DEFAULTS

OPTIONS = (
    Option("references", str, (), "a human reference judged and ranked with the systems (repeatable: "
           "--reference ref1 --reference ref2; default: every reference)", flag="--reference", multiple=True,
           metavar="ref1|ref2"),
    Option("sample_docs", int, 5, "documents to sample", flag="--docs"),
    Option("sample_words", int, 1000, "source words to sample in all (0: whole documents)", flag="--words"),
    Option("passage_segments", int, DEFAULTS["passage_segments"], "consecutive segments of a passage"),
    Option("tuple_size", int, DEFAULTS["tuple_size"], "translations shown together"),
    Option("tuples_per_passage", int, DEFAULTS["tuples_per_passage"],
           "0: the fewest in which every version appears equally often"),
    Option("splits", int, DEFAULTS["splits"], "random splits of the split-half reliability"),
    Option("significance_test", str, DEFAULTS["significance_test"], "paired test of the official human ranking: "
           "Wilcoxon signed-rank (WMT) or approximate randomisation", choices=tuple(TESTS)),
    Option("passage_budget", int, DEFAULTS["passage_budget"], "passages to evaluate (0: every passage)"),
    Option("selection", str, DEFAULTS["selection"], "how a budget's passages are chosen: uniformly, or by "
           "subset2evaluate from the segment scores of --selection-metric", choices=SELECTIONS),
    Option("selection_metric", str, DEFAULTS["selection_metric"], "the metric whose segment scores "
           "subset2evaluate reads"),
    Option("guidelines", "file", None, "a text file shown to annotators"),
)
SETTINGS = ("passage_segments", "tuple_size", "tuples_per_passage", "splits", "significance_test",
            "passage_budget", "selection", "selection_metric")


def _references(given) -> list[int]:
    refs = []
    for ref in given:
        if ref not in ("ref1", "ref2", "1", "2"):
            raise bad("invalid_field", f"--reference {ref!r}: ref1 or ref2", field="references")
        refs.append(int(ref[-1]))
    return refs


def cli_create(protocol, testset, request: CreateRequest):
    """The draft. Default versions: every primary and baseline system and every reference of the test set."""
    opts = request.options or {}
    ids = list(request.systems) or [s.id for s in svc.eligible_submissions(testset) if svc.default_selected(s)]
    refs = _references(opts["references"]) or list(range(1, min(testset.num_refs or 0, 2) + 1))
    guidelines = Path(opts["guidelines"]).read_text(encoding="utf-8") if opts.get("guidelines") else ""
    data = protocol.campaign_input(
        name=request.name, submission_ids=ids, references=refs, redundancy=request.redundancy,
        strategy=request.strategy, ranges="\n".join(request.ranges), sample_docs=opts["sample_docs"],
        sample_words=opts["sample_words"], seed=request.seed, instructions=request.instructions,
        guidelines=guidelines, **{k: opts[k] for k in SETTINGS})
    campaign = svc.create_campaign(None, testset, replace(data, **request.document_choice()))
    refs_text = "".join(f", reference {v.reference}" for v in campaign.versions if v.is_reference)
    return campaign, (f"campaign {campaign.id}: BWS, {len(campaign.systems)} systems{refs_text}, "
                      f"documents {', '.join(campaign.ranges)}")


def cli_status(campaign, as_json: bool) -> None:
    """``enface campaign status`` of a BWS campaign: tuples judged per annotator, the scores and the reliability."""
    import json

    from .results import progress, results

    prog = progress(campaign)
    per: dict[str, dict] = {}
    for r in prog["rows"]:
        p = per.setdefault(r["rater"], {"rater": r["rater"], "email": r["user"].email, "items": 0, "finished": 0})
        p["items"] += 1
        p["finished"] += r["state"] == "finished"
    res = results(campaign) if campaign.state != "draft" else None
    scores = {v["version"]: v["score"] for v in (res or {}).get("versions", []) if v["score"] is not None}
    split = (res or {}).get("split_half") or {}
    if as_json:
        click.echo(json.dumps({"id": campaign.id, "name": campaign.name, "state": campaign.state, "protocol": "bws",
                               "items": prog["total"], "finished": prog["counts"]["finished"],
                               "annotators": list(per.values()), "scores": scores,
                               "split_half": {"value": split.get("value"), "splits": split.get("splits")}}, indent=1))
        return
    click.echo(f"{campaign.name} [{campaign.state}] bws: {prog['counts']['finished']}/{prog['total']} tuples judged")
    for p in per.values():
        click.echo(f"  {p['rater']:8} {p['email']:30} {p['finished']}/{p['items']} tuples")
    for version, score in scores.items():
        click.echo(f"    {score:+.3f}  {version}")
    if split.get("value") is not None:
        click.echo(f"  split-half reliability {split['value']:.3f} ({split['splits']} random splits)")
