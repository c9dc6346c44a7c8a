"""``enface campaign create --protocol rubric``: the command's work (the options live in enface.commands)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click

from humaneval.errors import HumanEvalInputError
from humaneval.rubric import load_rubric
from scoring.human_ranking import TESTS

from ...campaigns import services as svc
from ...campaigns.options import CreateRequest, Option
from ...campaigns.services import bad
from .inputs import campaign_input
from .settings import DEFAULTS

OPTIONS = (
    Option("rubric", str, DEFAULTS["rubric"], "a shipped rubric's name or a rubric JSON file"),
    Option("hide_reference", bool, False, "do not show annotators the reference"),
    Option("significance_test", str, DEFAULTS["significance_test"], "paired test of the official human ranking: "
           "Wilcoxon signed-rank (WMT) or approximate randomisation", choices=tuple(TESTS)),
)


def cli_create(protocol, ts, request: CreateRequest):
    """The draft; ``--rubric`` is a shipped rubric's name or a rubric file (read here, checked by the protocol)."""
    opts = request.options or {}
    rubric = opts["rubric"]
    if rubric.endswith(".json") or Path(rubric).is_file():
        try:
            rubric = load_rubric(Path(rubric)).to_dict()   # errors name the file and the field
        except HumanEvalInputError as exc:
            raise bad("invalid_field", f"rubric: {exc}", field="rubric") from None
    ids = list(request.systems) or [s.id for s in svc.eligible_submissions(ts) if svc.default_selected(s)]
    data = campaign_input(
        name=request.name, submission_ids=ids, redundancy=request.redundancy, strategy=request.strategy,
        ranges="\n".join(request.ranges), instructions=request.instructions, rubric=rubric,
        show_reference=not opts["hide_reference"], seed=request.seed,
        significance_test=opts["significance_test"], testset=ts)
    # (--doc-selection: the core refuses a subset2evaluate choice, the documents being the tagged ones, not a sample)
    campaign = svc.create_campaign(None, ts, replace(data, **request.document_choice()))
    return campaign, (f"campaign {campaign.id}: {protocol.key}, {len(campaign.systems)} systems, documents "
                      f"{', '.join(campaign.ranges)}")


def rubric_status(campaign, as_json: bool) -> None:
    """``enface campaign status`` of a rubric campaign: items per annotator, and the average Σ per system."""
    from . import results

    prog = results.progress(campaign)
    res = results.results(campaign) if campaign.state != "draft" else None
    per_rater: dict[str, dict] = {}
    for r in prog["rows"]:
        row = per_rater.setdefault(r["rater"], {"rater": r["rater"], "email": r["user"].email, "items": 0,
                                                "finished": 0})
        row["items"] += 1
        row["finished"] += r["state"] == "finished"
    systems = {s["system"]: s["overall"] for s in (res or {}).get("systems", [])}
    if as_json:
        click.echo(json.dumps({"id": campaign.id, "name": campaign.name, "state": campaign.state,
                               "protocol": "rubric", "items": prog["total"], "finished": prog["counts"]["finished"],
                               "annotators": list(per_rater.values()), "overall": systems}, indent=1))
        return
    click.echo(f"{campaign.name} [{campaign.state}] rubric: {prog['counts']['finished']}/{prog['total']} items finished")
    for row in per_rater.values():
        click.echo(f"  {row['rater']:8} {row['email']:30} {row['finished']}/{row['items']} items")
    for name, overall in systems.items():
        click.echo(f"  {name:24} average Σ {overall:.2f}")
