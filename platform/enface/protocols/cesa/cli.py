"""``enface campaign create --protocol cesa`` (ESA's options less the attention checks and reading time)
and ``enface campaign status`` of a cESA campaign."""

from __future__ import annotations

import json
from dataclasses import replace

import click

from ...campaigns.options import CreateRequest
from ..esa import cli as esa_cli
from .answers import LOW_SCORE

#: ESA's options that cESA has (no BAD copies, no minimum reading time)
OPTIONS = tuple(o for o in esa_cli.OPTIONS if o.name not in (
    "attention_share", "attention_test", "attention_alpha", "count_failing", "words_per_second"))


def cli_create(protocol, testset, request: CreateRequest):
    opts = dict(request.options or {})
    opts.update({"attention_share": 0.0, "attention_test": None, "attention_alpha": None, "count_failing": True,
                 "words_per_second": None})
    request = replace(request, options=opts, strategy=request.strategy or "redundancy")
    campaign, _line = esa_cli.cli_create(protocol, testset, request)
    with_refs = "".join(f", reference {v.reference}" for v in campaign.versions if v.is_reference)
    return campaign, (f"campaign {campaign.id}: contrastive ESA, {len(campaign.systems)} systems{with_refs} side by "
                      f"side, documents {', '.join(campaign.ranges)}")


def cli_status(campaign, as_json: bool) -> None:
    from .results import compute_results, progress

    prog = progress(campaign)
    res = compute_results(campaign) if campaign.state != "draft" else {"systems": []}
    systems = {s["system"]: {"score": s["score"], "z": s["z"], "items": s["items"], "spans": s["spans"]}
               for s in res.get("systems", [])}
    low = sum(r["low_no_span"] for r in prog["rows"])
    if as_json:
        click.echo(json.dumps({"id": campaign.id, "name": campaign.name, "state": campaign.state, "protocol": "cesa",
                               "items": prog["total"], "finished": prog["counts"]["finished"], "systems": systems,
                               "low_scores_without_span": low}, indent=1))
        return
    click.echo(f"{campaign.name} [{campaign.state}] contrastive ESA: {prog['counts']['finished']}/{prog['total']} "
               f"items finished; {low} scores below {LOW_SCORE} with no error span")
    for name, s in systems.items():
        click.echo(f"  {name:24} {s['score']:6.2f}  z {s['z']:+.3f}  {s['items']} segments")
