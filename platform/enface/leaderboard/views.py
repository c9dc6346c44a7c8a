from flask import Response, jsonify, render_template
from flask_login import current_user

from ..services import leaderboard as lb
from ..services import testsets as testsets_svc
from . import bp


@bp.app_template_global("can_see_leaderboard")
def can_see_leaderboard(ts) -> bool:
    return lb.can_see(current_user, ts)


@bp.get("/")
def index():
    return render_template("leaderboard/index.html", testsets=testsets_svc.list_testsets())


@bp.get("/<int:testset_id>")
def show(testset_id: int):
    board = lb.visible_leaderboard(current_user, testset_id)
    ts = testsets_svc.get_testset(testset_id)
    return render_template("leaderboard/show.html", ts=ts, board=board, groups=lb.grouped(board))


@bp.get("/<int:testset_id>.csv")
def csv(testset_id: int):
    board = lb.visible_leaderboard(current_user, testset_id)
    return Response(lb.to_csv(board), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="leaderboard-{testset_id}.csv"'})


@bp.get("/<int:testset_id>.signatures.csv")
def signatures_csv(testset_id: int):
    board = lb.visible_leaderboard(current_user, testset_id)
    return Response(lb.signatures_csv(board), mimetype="text/csv",
                    headers={"Content-Disposition":
                             f'attachment; filename="leaderboard-{testset_id}.signatures.csv"'})


@bp.get("/<int:testset_id>.json")
def json(testset_id: int):
    board = lb.visible_leaderboard(current_user, testset_id)
    resp = jsonify(lb.api_payload(board))
    resp.headers["Content-Disposition"] = f'attachment; filename="leaderboard-{testset_id}.json"'
    return resp
