"""``enface demo``'s BWS campaigns: one open for the demo annotator, one finished from data/demo/bws/judgments.csv.

Both show every scored demo system (no contrastive one) and both references, on the first eight segments of
two documents in passages of two segments: 8 passages × 5 tuples of 4 translations. The finished one's
judgments are those of two scripted raters (see data/demo/README.md); it is released, so that its scores,
split-half reliability and ranking can be seen at once.
"""

from __future__ import annotations

from pathlib import Path

DEMO_BWS = {"name": "Demo BWS", "annotators": ["annotator@demo.enface.org"],
            "ranges": "jade-lantern.1:1-8\nmountain-inn:1-8", "settings": {"passage_segments": 2}, "seed": 1}
DEMO_BWS_FINISHED = {**DEMO_BWS, "name": "Demo BWS (finished)",
                     "annotators": ["mqm-rater1@demo.enface.org", "mqm-rater2@demo.enface.org"],
                     "judgments": Path("bws") / "judgments.csv"}


def _campaign(org, ts, submission_ids: list[int], spec: dict):
    from ...campaigns import services as svc
    from ...campaigns.protocol import protocol_of
    from ...services import accounts

    data = protocol_of("bws").campaign_input(
        name=spec["name"], submission_ids=submission_ids, references=list(range(1, min(ts.num_refs, 2) + 1)),
        redundancy=len(spec["annotators"]), ranges=spec["ranges"], seed=spec["seed"], **spec["settings"])
    camp = svc.create_campaign(org, ts, data)
    for email in spec["annotators"]:
        svc.add_annotator(camp, accounts.get_user_by_email(email))
    svc.start_campaign(svc.get_campaign(camp.id))
    return svc.get_campaign(camp.id)


def demo_bws_campaigns(org, ts, submission_ids: list[int], demo_dir: Path) -> list[str]:
    """Creates both campaigns; returns what to tell the user (the finished one's split-half reliability too)."""
    from ...campaigns import services as svc
    from .imports import import_judgments
    from .results import results

    open_ = _campaign(org, ts, submission_ids, DEMO_BWS)
    done = _campaign(org, ts, submission_ids, DEMO_BWS_FINISHED)
    path = demo_dir / DEMO_BWS_FINISHED["judgments"]
    counts = import_judgments(done, path)
    svc.release(svc.get_campaign(done.id))
    res = results(svc.get_campaign(done.id), with_ranking=False)
    sh = res["split_half"]
    reliability = "undefined" if sh["value"] is None else f"{sh['value']:.3f}"
    return [f"BWS campaign {open_.id} started for annotator@demo.enface.org ({len(open_.items)} tuples of 4 of "
            f"{len(open_.versions)} versions, both references among them)",
            f"finished BWS campaign {done.id} released: {counts['judgments']} judgments by two scripted raters "
            f"({path}); split-half reliability {reliability} over {sh['splits']} random splits"]
