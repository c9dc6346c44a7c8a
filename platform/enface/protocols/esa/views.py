"""ESA's own routes: its static files and templates, and the organizer's Appraise import."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, request, url_for

from ...campaigns import services as core
from ...campaigns.views import organizer_required
from ...services import ServiceError
from .suggestions.views import bp as suggestions_bp

bp = Blueprint("esa", __name__, url_prefix="/protocols/esa", static_folder="static", template_folder="templates")
bp.register_blueprint(suggestions_bp)   # ESA^AI's pages: /protocols/esa/campaigns/<id>/suggestions

MAX_IMPORT_BYTES = 50 * 1024 * 1024


@bp.post("/campaigns/<int:campaign_id>/import")
@organizer_required
def import_appraise(campaign_id: int):
    """An Appraise score export (CSV) into this open ESA campaign (see :mod:`enface.protocols.esa.imports`)."""
    from .imports import import_scores

    campaign = core.get_campaign(campaign_id)
    if campaign.protocol != "esa":
        raise ServiceError("not_found", "no such ESA campaign", 404)
    upload = request.files.get("file")
    back = redirect(url_for("campaigns.show", campaign_id=campaign.id) + "#import")
    if upload is None or not upload.filename:
        flash("Choose an Appraise score export (CSV) to import.", "error")
        return back
    raw = upload.read(MAX_IMPORT_BYTES + 1)
    try:
        if len(raw) > MAX_IMPORT_BYTES:
            raise ServiceError("too_large", f"the file is larger than {MAX_IMPORT_BYTES // 2**20} MiB", 413)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ServiceError("invalid_scores", f"{upload.filename}: not UTF-8 text") from None
        counts = import_scores(campaign, text, path=upload.filename)
    except ServiceError as exc:
        flash(exc.message, "error")
        return back
    flash(f"Imported {counts['answers']} answers into {counts['assignments']} items "
          f"({counts['skipped']['bad_rows']} BAD rows without a copy here and "
          f"{counts['skipped']['undecided_spans']} undecided spans skipped).", "success")
    return back
