"""Annotator pages (``/annotate/``) and the core's annotation API (``/annotate/api/items/<id>``).

Every protocol's item page is served here (the protocol's template, the protocol's
state); answers are saved through ``.../responses/<uuid>`` (the autosave queue),
reading times through ``.../progress``, and a stage is finished through ``.../finish``.
A protocol may add endpoints of its own (MQM's marks) in its own blueprint.

The API speaks JSON only, errors included (``{"error": {"code", "message", "details"}}``
with a 4xx status), authenticates with the session cookie and so requires the CSRF
token in the ``X-CSRFToken`` header on every change.
"""

from __future__ import annotations

from flask import current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user

from .. import safejson
from ..auth.forms import RegisterForm
from ..auth.views import _register_limit
from ..campaigns import services as svc
from ..campaigns.gates import pending_gate
from ..campaigns.protocol import protocol_of
from ..extensions import limiter
from ..services import ServiceError, accounts
from . import bp

MAX_JSON_BYTES = 64 * 1024


# Errors, JSON under /annotate/api/ and pages elsewhere, are the app's handlers (enface/__init__.py).


def api_user():
    if not current_user.is_authenticated:
        raise ServiceError("unauthorized", "log in to annotate", 401)
    return current_user._get_current_object()


def json_body(required: bool = True):
    if request.content_length is not None and request.content_length > MAX_JSON_BYTES:
        raise ServiceError("too_large", f"the request body is larger than {MAX_JSON_BYTES} bytes", 413)
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON_BYTES:
        raise ServiceError("too_large", f"the request body is larger than {MAX_JSON_BYTES} bytes", 413)
    if not raw.strip():
        if required:
            raise ServiceError("invalid_json", "the request needs a JSON body", 400)
        return {}
    try:
        return safejson.loads(raw)
    except safejson.JSONInputError as exc:
        raise ServiceError("invalid_json", exc.message, 400, {"field": exc.field} if exc.field else {}) from None


# --------------------------------------------------------------------------- pages


@bp.get("/")
@login_required
def index():
    assignments = svc.annotator_assignments(current_user)
    campaigns = {}
    for a in assignments:
        campaigns.setdefault(a.campaign_id, {"campaign": a.item.campaign, "items": [],
                                             "protocol": protocol_of(a.item.campaign)})["items"].append(a)
    # Joined, without items: a draft assigns them at its start; a started campaign never will.
    without_items = [c for c in svc.annotator_campaigns(current_user) if c.id not in campaigns]
    return render_template("annotate/index.html", groups=list(campaigns.values()), waiting=without_items)


@bp.get("/item/<public_id>")
@login_required
def item(public_id: str):
    asg = svc.get_assignment(current_user, public_id)
    own = asg.annotator.user_id == current_user.id
    gate = pending_gate(asg) if own else None
    if gate is not None:          # a consent form or a tutorial first
        return redirect(gate.url)
    opens_at = svc.stage_opens_at(asg) if own else None
    protocol = protocol_of(asg.item.campaign)
    if opens_at is not None:
        # a protocol may say it in its own words (its template gets the read-only state too)
        if protocol.locked_template:
            state = protocol.item_state(asg, readonly=True)
            return render_template(protocol.locked_template, asg=asg, opens_at=opens_at, state=state, own=own), 423
        return render_template("annotate/locked.html", asg=asg, opens_at=opens_at), 423
    state = protocol.item_state(asg, readonly=not own)
    resp = current_app.make_response(render_template(protocol.item_template, state=state, own=own))
    resp.headers["Cache-Control"] = "no-store"
    return resp


# --------------------------------------------------------------------------- invites


@bp.route("/join/<secret>", methods=["GET", "POST"])
@limiter.limit(_register_limit, methods=["POST"])     # it creates accounts: the registration's limit
def join(secret: str):
    inv, campaign = svc.invite_with_campaign(secret)
    if current_user.is_authenticated:
        if request.method == "POST":
            svc.accept_invite(inv, campaign, current_user._get_current_object())
            flash(f"You are an annotator in “{campaign.name}”.", "success")
            return redirect(url_for("annotate.index"))
        return render_template("annotate/join.html", campaign=campaign, form=None)
    form = RegisterForm()    # the registration page's form; the account is an annotator's
    if form.validate_on_submit():
        try:
            user = accounts.create_user(form.email.data, form.password.data, role="annotator",
                                        name=form.name.data or "")
        except ServiceError as exc:
            field = exc.details.get("field", "email") if isinstance(exc.details, dict) else "email"
            (form[field] if field in form else form.email).errors.append(exc.message)
        else:
            login_user(user)
            svc.accept_invite(inv, campaign, user)
            flash(f"Welcome! You are an annotator in “{campaign.name}”.", "success")
            return redirect(url_for("annotate.index"))
    status = 400 if form.errors else 200
    return render_template("annotate/join.html", campaign=campaign, form=form), status


# --------------------------------------------------------------------------- the JSON API


@bp.get("/api/items/<public_id>")
def api_item(public_id: str):
    user = api_user()
    asg = svc.get_assignment(user, public_id)
    resp = jsonify(protocol_of(asg.item.campaign).item_state(asg, readonly=asg.annotator.user_id != user.id))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.put("/api/items/<public_id>/responses/<uuid>")
def api_put_response(public_id: str, uuid: str):
    user = api_user()
    response, changed = svc.save_response(user, public_id, uuid, json_body())
    return jsonify({"response": response, "changed": changed}), 200


@bp.delete("/api/items/<public_id>/responses/<uuid>")
def api_delete_response(public_id: str, uuid: str):
    user = api_user()
    return jsonify({"response": svc.delete_response(user, public_id, uuid, json_body(required=False))})


@bp.post("/api/items/<public_id>/progress")
def api_progress(public_id: str):
    user = api_user()
    return jsonify(svc.save_progress(user, public_id, json_body()))


@bp.post("/api/items/<public_id>/finish")
def api_finish(public_id: str):
    user = api_user()
    return jsonify(svc.finish(user, public_id))


# --------------------------------------------------------------------------- the site's navigation


@bp.app_context_processor
def _navigation():
    """``campaign_nav()`` for base.html: which MQM links the current user gets (one query, once per request)."""
    from flask import g

    def campaign_nav() -> dict:
        if "_campaign_nav" not in g:
            nav = {"annotate": False, "campaigns": False}
            if current_user.is_authenticated:
                nav["campaigns"] = current_user.is_organizer
                nav["annotate"] = current_user.role == "annotator" or svc.is_annotator(current_user)
            g._campaign_nav = nav
        return g._campaign_nav

    return {"campaign_nav": campaign_nav}
