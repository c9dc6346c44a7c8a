"""``enface campaign create --protocol bws``: the command's work (the options live in enface.commands)."""

from __future__ import annotations

import click

from ...campaigns import services as svc
from ...campaigns.protocol import protocol_of
from ...services import testsets


def create_bws_campaign(testset_id: int, name: str, systems, references: list[int], redundancy: int, strategy: str,
                        ranges, sample_docs: int, sample_words: int, seed: int | None, instructions: str,
                        **settings):
    """Creates the draft. Default versions: every primary and baseline system and every reference of the test set."""
    ts = testsets.get_testset(testset_id)
    ids = list(systems) or [s.id for s in svc.eligible_submissions(ts) if svc.default_selected(s)]
    refs = list(references) or list(range(1, min(ts.num_refs or 0, 2) + 1))
    data = protocol_of("bws").campaign_input(
        name=name, submission_ids=ids, references=refs, redundancy=redundancy, strategy=strategy,
        ranges="\n".join(ranges), sample_docs=sample_docs, sample_words=sample_words, seed=seed,
        instructions=instructions, **settings)
    campaign = svc.create_campaign(None, ts, data)
    refs_text = "".join(f", reference {v.reference}" for v in campaign.versions if v.is_reference)
    click.echo(f"campaign {campaign.id}: BWS, {len(campaign.systems)} systems{refs_text}, "
               f"documents {', '.join(campaign.ranges)}")
    click.echo(campaign.id)


def bws_status(campaign, as_json: bool) -> None:
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
