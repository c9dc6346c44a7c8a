"""``enface campaign create --protocol rubric``: the command's work (the options live in enface.commands)."""

from __future__ import annotations

from pathlib import Path

import click

from humaneval.errors import HumanEvalInputError
from humaneval.rubric import load_rubric

from ...campaigns import services as svc
from ...campaigns.protocol import protocol_of
from ...campaigns.services import bad
from ...services import testsets


def create_rubric_campaign(testset_id: int, name: str, systems, redundancy: int, strategy: str, ranges,
                           seed: int | None, instructions: str, rubric: str, show_reference: bool):
    """Creates the draft; ``rubric`` is a shipped rubric's name or a rubric file (read here, checked by the protocol)."""
    ts = testsets.get_testset(testset_id)
    if rubric.endswith(".json") or Path(rubric).is_file():
        try:
            rubric = load_rubric(Path(rubric)).to_dict()   # errors name the file and the field
        except HumanEvalInputError as exc:
            raise bad("invalid_field", f"rubric: {exc}", field="rubric") from None
    ids = list(systems) or [s.id for s in svc.eligible_submissions(ts) if svc.default_selected(s)]
    data = protocol_of("rubric").campaign_input(
        name=name, submission_ids=ids, redundancy=redundancy, strategy=strategy, ranges="\n".join(ranges),
        instructions=instructions, rubric=rubric, show_reference=show_reference, seed=seed, testset=ts)
    campaign = svc.create_campaign(None, ts, data)
    click.echo(f"campaign {campaign.id}: rubric, {len(campaign.systems)} systems, documents {', '.join(campaign.ranges)}")
    click.echo(campaign.id)
