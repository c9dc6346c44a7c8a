"""The demo's crowd campaign: an ESA campaign that an annotator opens through an account-free link, with no login,
and that ends with a completion code. The link's secret is shown once by the platform, so the demo keeps it in
``<data_dir>/demo-links.json`` (mode 0600, like the demo's passwords) and prints it again on every run."""

from __future__ import annotations

import json
from pathlib import Path

DEMO_ESA_LINK = {"name": "Demo ESA (account-free link)", "ranges": "jade-lantern.1:1-4\nmountain-inn:1-4",
                 "label": "demo link", "pass_code": "DEMO-PASS", "fail_code": "DEMO-FAIL",
                 # two BAD copies of 4 segments: 8 pairs, enough for the one-sided Wilcoxon test at 0.05 (4 pairs
                 # cannot go below p = 1/16, so one copy would fail every annotator)
                 "settings": {"attention_share": 0.35}}
LINKS_FILE = "demo-links.json"


def _campaign():
    from sqlalchemy import select

    from ..campaigns.models import Campaign
    from ..extensions import db

    return db.session.scalars(select(Campaign).where(Campaign.name == DEMO_ESA_LINK["name"],
                                                     Campaign.protocol == "esa").order_by(Campaign.id)).first()


def _issue_link(campaign, *, make_account: bool) -> str:
    """A new link to ``campaign``; its path (``/crowd/l/<secret>``). ``make_account``: its account is made now, so
    that a draft campaign has an annotator to start with (opening the link later logs into that account)."""
    from ..crowd import links

    issued, = links.create_links(campaign, count=1, label=DEMO_ESA_LINK["label"])
    if make_account:
        links.account_of(issued.link)
    return f"/crowd/l/{issued.secret}"


def demo_esa_link_campaign(testset_id: int, organizer: str, data_dir: Path, url: str) -> list[str]:
    """Creates and starts the campaign and its link once; every run prints the link (kept in demo-links.json)."""
    from ..campaigns import services as svc
    from ..campaigns.protocol import PROTOCOLS
    from ..crowd.setup import check_codes, save_setup
    from ..extensions import db
    from ..models import Submission, TestSet
    from ..services import accounts

    if "esa" not in PROTOCOLS:
        return []
    store = data_dir / LINKS_FILE
    saved = json.loads(store.read_text()) if store.is_file() else {}
    campaign = _campaign()
    lines = []
    if campaign is None:
        ts = db.session.get(TestSet, testset_id)
        ids = [s.id for s in svc.eligible_submissions(ts) if db.session.get(Submission, s.id).label != "contrastive"]
        if not ids:
            return ["(no ESA campaign with a link created: the demo systems were not scored)"]
        campaign = svc.create_campaign(accounts.get_user_by_email(organizer), ts, svc.CampaignInput(
            name=DEMO_ESA_LINK["name"], submission_ids=ids, protocol="esa", redundancy=1,
            ranges=DEMO_ESA_LINK["ranges"], settings=DEMO_ESA_LINK["settings"], seed=1))
        save_setup(svc.get_campaign(campaign.id), codes=check_codes(
            DEMO_ESA_LINK["pass_code"], DEMO_ESA_LINK["fail_code"]))
        path = _issue_link(svc.get_campaign(campaign.id), make_account=True)
        svc.start_campaign(svc.get_campaign(campaign.id))
        saved["esa"] = {"campaign_id": campaign.id, "path": path}
        lines.append(f"ESA campaign {campaign.id} started for one account-free link (no login; it ends with a "
                     f"completion code, {DEMO_ESA_LINK['pass_code']} when the attention checks pass)")
    elif (saved.get("esa") or {}).get("campaign_id") != campaign.id:
        # the file was lost: the old secret cannot be shown again (only its hash is kept), so a new link is made
        saved["esa"] = {"campaign_id": campaign.id, "path": _issue_link(campaign, make_account=False)}
    if saved != (json.loads(store.read_text()) if store.is_file() else {}):
        store.write_text(json.dumps(saved, indent=2))
        store.chmod(0o600)
    lines.append(f"ESA campaign {campaign.id} through its account-free link (kept in {store}): "
                 f"{url}{saved['esa']['path']}")
    return lines
