from flask import jsonify, render_template
from flask_login import current_user

from ..services import testsets as testsets_svc
from . import bp
from . import service as svc


@bp.get("/<int:testset_id>/meta")
def show(testset_id: int):
    page = svc.visible_meta(current_user, testset_id)
    return render_template("metaeval/show.html", ts=testsets_svc.get_testset(testset_id), page=page,
                           few_systems=svc.FEW_SYSTEMS)


@bp.get("/<int:testset_id>/meta.json")
def show_json(testset_id: int):
    return jsonify(svc.api_payload(svc.visible_meta(current_user, testset_id)))
