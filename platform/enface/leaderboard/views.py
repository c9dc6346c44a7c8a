from flask import Response, abort, jsonify, render_template, request
from flask_login import current_user
from markupsafe import Markup

from ..services import leaderboard as lb
from ..services import rankings
from ..services import testsets as testsets_svc
from . import bp


@bp.app_template_global("can_see_leaderboard")
def can_see_leaderboard(ts) -> bool:
    return lb.can_see(current_user, ts)


def _fragment(board: dict, template: str, context, extra: tuple = ()) -> Markup:
    """``template`` rendered with ``board`` and ``context()`` (called only when not cached).

    The pages' content is rendered once per cached board (one per board version) and view, and
    kept in the board (CTFd caches its scoreboard the same way); the frame around it (base.html:
    the user's menu) is rendered per request.
    """
    key = (template, board["scope"], board.get("viewer"), board["released"], extra,
           tuple(r["submission_id"] for r in board["rows"]) if board["scope"] == "team" else ())
    kept = board.get("fragments")
    html = kept.get(key) if kept is not None else None
    if html is None:
        # Markup: the output of an autoescaped template (every value in it escaped), kept to embed as is
        html = Markup(render_template(template, board=board, **context()))
        if kept is not None:
            kept[key] = html
    return html


@bp.get("/")
def index():
    return render_template("leaderboard/index.html", testsets=testsets_svc.list_testsets())


@bp.get("/<int:testset_id>")
def show(testset_id: int):
    board = lb.visible_leaderboard(current_user, testset_id)
    body = _fragment(board, "leaderboard/_board.html",
                     lambda: {"groups": lb.grouped(board), "panels": lb.cluster_panels(board)})
    return render_template("leaderboard/show.html", board=board, body=body)


@bp.get("/<int:testset_id>/head-to-head")
def head_to_head(testset_id: int):
    board = lb.visible_leaderboard(current_user, testset_id)
    choices = rankings.metric_choices(board)    # NotFound before release, except for organizers
    metric = request.args.get("metric") or (choices[0]["key"] if choices else "")
    if metric and metric not in {c["key"] for c in choices}:
        abort(404)
    body = _fragment(board, "leaderboard/_head_to_head.html",
                     lambda: {"choices": choices, "metric": metric,
                              "matrix": rankings.head_to_head(board, metric) if metric else None}, (metric,))
    return render_template("leaderboard/head_to_head.html", board=board, body=body)


@bp.get("/<int:testset_id>/table-<which>.<fmt>")
def paper_table(testset_id: int, which: str, fmt: str):
    if fmt not in ("tex", "csv"):
        abort(404)
    board = lb.visible_leaderboard(current_user, testset_id)   # (an unknown ``which``: NotFound, a 404)
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
