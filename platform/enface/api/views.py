from functools import wraps
from pathlib import Path

from flask import g, jsonify, request, send_from_directory, url_for

from ..extensions import db
from ..models import Submission
from ..services import NotFound, ServiceError, accounts
from ..services import leaderboard as lb
from ..services import submissions as subs
from ..services import testsets as testsets_svc
from ..services.uploads import receive
from . import bp


class Unauthorized(ServiceError):
    def __init__(self, message: str):
        super().__init__("unauthorized", message, 401)


@bp.before_request
def _authenticate():
    g.api_user = None
    header = request.headers.get("Authorization", "")
    if not header:
        return
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise Unauthorized("use 'Authorization: Bearer <token>'; create a token on the API tokens page")
    user = accounts.user_from_token(secret.strip())
    if user is None:
        raise Unauthorized("the API token is unknown or revoked")
    g.api_user = user


@bp.after_request
def _no_store(response):
    response.headers.setdefault("Cache-Control", "no-store")
    if response.status_code == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="enface"'
    return response


def token_required(view):
    @wraps(view)
    def wrapped(*args, **kwargs):
        if g.api_user is None:
            raise Unauthorized("this endpoint needs 'Authorization: Bearer <token>'")
        return view(*args, **kwargs)

    return wrapped


def _testset_dict(ts, *, documents: bool = False) -> dict:
    out = {"id": ts.id, "name": ts.name, "task": ts.task.name, "src_lang": ts.src_lang, "tgt_lang": ts.tgt_lang,
           "description": ts.description, "num_documents": ts.num_documents, "num_segments": ts.num_segments,
           "num_references": ts.num_refs, "open": ts.is_open(),
           "opens_at": ts.opens_at.isoformat() if ts.opens_at else None,
           "deadline": ts.deadline.isoformat() if ts.deadline else None,
           "quota_per_day": ts.quota_per_day, "quota_total": ts.quota_total,
           "document_level_allowed": ts.document_level_allowed, "released": ts.released,
           "url": url_for("api.get_testset", testset_id=ts.id, _external=True),
           "submissions_url": url_for("api.create_submission", testset_id=ts.id, _external=True),
           "leaderboard_url": url_for("api.leaderboard", testset_id=ts.id, _external=True)}
    if documents:
        out["documents"] = testsets_svc.document_counts(ts)
    return out


@bp.get("/me")
@token_required
def me():
    u = g.api_user
    return jsonify({"id": u.id, "email": u.email, "name": u.name, "role": u.role,
                    "team": {"id": u.team.id, "name": u.team.name} if u.team else None})


@bp.get("/testsets")
def list_testsets():
    return jsonify({"testsets": [_testset_dict(ts) for ts in testsets_svc.list_testsets()]})


@bp.get("/testsets/<int:testset_id>")
def get_testset(testset_id: int):
    return jsonify(_testset_dict(testsets_svc.get_testset(testset_id), documents=True))


@bp.post("/testsets/<int:testset_id>/submissions")
@token_required
def create_submission(testset_id: int):
    ts = testsets_svc.get_testset(testset_id)
    form = request.form
    data = subs.check_input(g.api_user, form.get("label", ""), form.get("constrained"), form.get("system_name", ""),
                            form.get("description", ""))
    files = receive(request.files.getlist("files"))
    sub = subs.create_submission(g.api_user, ts, data, files)
    duplicate_of = getattr(sub, "duplicate_of", None)
    db.session.refresh(sub)
    body = {"id": sub.id, "state": sub.state,
            "url": url_for("api.get_submission", submission_id=sub.id, _external=True),
            "page": url_for("submissions.detail", submission_id=sub.id, _external=True),
            "warnings": [] if duplicate_of is None else [
                {"code": "duplicate_upload", "duplicate_of": duplicate_of,
                 "message": f"the files are byte-identical to your team's submission #{duplicate_of}: it takes a "
                            "slot and a place in the quota and will score the same"}]}
    resp = jsonify(body)
    resp.status_code = 202
    resp.headers["Location"] = body["url"]
    return resp


@bp.get("/testsets/<int:testset_id>/submissions")
@token_required
def team_submissions(testset_id: int):
    testsets_svc.get_testset(testset_id)
    return jsonify({"submissions": [subs.submission_dict(s, with_report=False, operator=g.api_user.is_organizer)
                                    for s in subs.team_submissions(g.api_user, testset_id)]})


@bp.get("/submissions/<int:submission_id>")
def get_submission(submission_id: int):
    sub = subs.get_visible(g.api_user, submission_id)
    mine = g.api_user is not None and (subs.can_manage(g.api_user, sub) or g.api_user.is_organizer)
    return jsonify(subs.submission_dict(sub, with_report=mine, private=mine,
                                        operator=g.api_user is not None and g.api_user.is_organizer))


def _change(submission_id: int, fn):
    sub = db.session.get(Submission, submission_id)
    if sub is None:
        raise NotFound("submission")
    fn(g.api_user, sub)
    db.session.refresh(sub)
    return jsonify(subs.submission_dict(sub))


@bp.post("/submissions/<int:submission_id>/withdraw")
@token_required
def withdraw(submission_id: int):
    return _change(submission_id, subs.withdraw)


@bp.post("/submissions/<int:submission_id>/primary")
@token_required
def make_primary(submission_id: int):
    return _change(submission_id, subs.make_primary)


@bp.get("/testsets/<int:testset_id>/leaderboard")
def leaderboard(testset_id: int):
    board = lb.visible_leaderboard(g.api_user, testset_id)
    return jsonify(lb.api_payload(board))



@bp.get("/openapi.json")
def openapi():
    """The OpenAPI 3.0 description of this API (a static file: the fuzz tests check the app against it)."""
    return send_from_directory(Path(__file__).parent / "static", "openapi.json", mimetype="application/json",
                               max_age=300)
