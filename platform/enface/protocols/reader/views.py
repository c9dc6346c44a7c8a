"""The reader study's own routes: its static files and templates, and the organizer's design preview as JSON."""

from __future__ import annotations

from flask import Blueprint, jsonify

from ...campaigns import services as core
from ...campaigns.protocol import protocol_of
from ...campaigns.views import organizer_required
from . import results

bp = Blueprint("reader", __name__, url_prefix="/protocols/reader", static_folder="static",
               template_folder="templates")


@bp.get("/campaigns/<int:campaign_id>/design.json")
@organizer_required
def design_json(campaign_id: int):
    """Who reads which document, starting with which version (the preview before the start; the plan after)."""
    campaign = core.get_campaign(campaign_id)
    if campaign.protocol != "reader":
        return jsonify({"error": {"code": "not_found", "message": "not a reader study", "details": {}}}), 404
    if campaign.state == "draft":
        return jsonify(results.plan_preview(campaign, protocol_of(campaign)))
    rows = results.design_table(campaign)
    return jsonify({"documents": [{"document": protocol_of(campaign).item_label(r["item"]),
                                   "readers": [{k: v for k, v in x.items() if k != "name"} for x in r["readers"]]}
                                  for r in rows]})
