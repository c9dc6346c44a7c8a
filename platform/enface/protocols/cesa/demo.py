"""``enface demo``'s contrastive ESA campaign: every scored demo system and reference 1 side by side on the
first four segments of one document, open for the demo annotator."""

from __future__ import annotations

DEMO_CESA = {"name": "Demo contrastive ESA", "annotators": ["annotator@demo.enface.org"],
             "ranges": "jade-lantern.1:1-4", "seed": 1}


def demo_cesa_campaign(org, ts, submission_ids: list[int]) -> list[str]:
    """Creates and starts the campaign; returns what to tell the user."""
    from ...campaigns import services as svc
    from ...services import accounts

    camp = svc.create_campaign(org, ts, svc.CampaignInput(
        name=DEMO_CESA["name"], submission_ids=submission_ids, references=[1] if ts.num_refs else [],
        protocol="cesa", strategy="redundancy", redundancy=len(DEMO_CESA["annotators"]),
        ranges=DEMO_CESA["ranges"], seed=DEMO_CESA["seed"]))
    for email in DEMO_CESA["annotators"]:
        svc.add_annotator(camp, accounts.get_user_by_email(email))
    svc.start_campaign(svc.get_campaign(camp.id))
    versions = len(submission_ids) + (1 if ts.num_refs else 0)
    return [f"contrastive ESA campaign {camp.id} started for {DEMO_CESA['annotators'][0]} "
            f"({versions} translations side by side)"]
