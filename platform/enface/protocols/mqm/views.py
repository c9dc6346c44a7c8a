"""MQM's own routes: the marks API of the annotation page, the error chart, the live results JSON, its static files."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template, request

from ...annotate.views import api_user, json_body
from ...campaigns import services as core
from ...campaigns.views import is_organizer, organizer_required, readable
from . import services as svc

# Its routes keep the core's URLs (the marks API under /annotate/api/, the results under /campaigns/); its
# static files (mqm.js, mqm.css) are served under /protocols/mqm/static/ (its templates, mqm/..., the app's
# loader finds in its templates/ folder).
bp = Blueprint("mqm", __name__, static_folder="static", static_url_path="/protocols/mqm/static")


@bp.put("/annotate/api/items/<public_id>/marks/<uuid>")
def api_put_mark(public_id: str, uuid: str):
    mark, changed = svc.save_mark(api_user(), public_id, uuid, json_body())
    return jsonify({"mark": mark, "changed": changed}), 200


@bp.delete("/annotate/api/items/<public_id>/marks/<uuid>")
def api_delete_mark(public_id: str, uuid: str):
    return jsonify({"mark": svc.delete_mark(api_user(), public_id, uuid, json_body(required=False))})


@bp.get("/campaigns/<int:campaign_id>/results.json")
@organizer_required
def results_json(campaign_id: int):
    campaign = core.get_campaign(campaign_id)
    return jsonify(svc.compute_results(campaign, doc=request.args.get("doc") or None))


@bp.get("/campaigns/<int:campaign_id>/errors.svg")
def errors_svg(campaign_id: int):
    campaign = readable(campaign_id)
    results = svc.results_for(campaign, is_organizer(), errors_only=True)   # organizers: live, as on the dashboard
    chart = svc.error_chart(results, svc.get_scheme(svc.scheme_name(campaign)))
    svg = render_template("mqm/errors.svg", chart=chart, standalone=True)
    return Response(svg, mimetype="image/svg+xml")
