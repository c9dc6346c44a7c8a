from flask import Response, abort, jsonify, render_template, request
from flask_login import current_user

from ..services import leaderboard as lb
from ..services import rankings
from ..services import testsets as testsets_svc
from . import bp


@bp.get("/")
def index():
    return render_template("leaderboard/index.html", testsets=testsets_svc.list_testsets())


@bp.get("/<int:testset_id>")
def show(testset_id: int):
    board = lb.visible_leaderboard(current_user, testset_id)
    return render_template("leaderboard/show.html", board=board, groups=lb.grouped(board),
                           panels=lb.cluster_panels(board))


@bp.get("/<int:testset_id>/head-to-head")
def head_to_head(testset_id: int):
    board = lb.visible_leaderboard(current_user, testset_id)
    choices = rankings.metric_choices(board)    # NotFound before release, except for organizers
    metric = request.args.get("metric") or (choices[0]["key"] if choices else "")
    matrix = rankings.head_to_head(board, metric) if metric else None
    return render_template("leaderboard/head_to_head.html", board=board, choices=choices, metric=metric,
                           matrix=matrix)


@bp.get("/<int:testset_id>/table-<which>.<fmt>")
def paper_table(testset_id: int, which: str, fmt: str):
    if which not in ("automatic", "human") or fmt not in ("tex", "csv"):
        abort(404)
    board = lb.visible_leaderboard(current_user, testset_id)
    text = rankings.table(board, which, fmt)
    mimetype = "text/csv" if fmt == "csv" else "application/x-tex"
    return Response(text, mimetype=mimetype, headers={
        "Content-Disposition": f'attachment; filename="table-{which}-{testset_id}.{fmt}"'})


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
