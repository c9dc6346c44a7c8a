"""The crowd's pages: the link entry, the welcome form, the tutorial, the completion code (annotators), and the
crowd page of a campaign (organizers: links, forms, codes, results).

A link's account is fenced in (:func:`_fence`): it reaches its campaign's pages (this blueprint's annotator
pages, its items and their API, static files, log out) and nothing else; other pages answer 404.
"""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_limiter.util import get_remote_address
from flask_login import current_user, login_required, login_user

from ..campaigns import services as camp
from ..campaigns.exports import register_exports
from ..campaigns.gates import register_after_work, register_gate
from ..campaigns.protocol import protocol_of
from ..campaigns.views import organizer_required
from ..extensions import limiter
from ..services import NotFound, ServiceError
from . import exports, flow, links, reports, welcome
from . import tutorial as tut
from .setup import check_codes, save_setup, setup_of

bp = Blueprint("crowd", __name__)


@bp.record_once
def _register(_state) -> None:
    register_gate(flow.gate)
    register_after_work(flow.after_work)
    register_exports(exports.provider)     # crowd.csv and crowd.json beside every protocol's exports


def _link_limit() -> str:
    return current_app.config["CROWD_LINK_RATE_LIMIT"]


def _passphrase_limit() -> str:
    return current_app.config["CROWD_PASSPHRASE_RATE_LIMIT"]


def _passphrase_key() -> str:
    return f"crowd-passphrase:{get_remote_address()}:{(request.view_args or {}).get('token', '')[:16]}"


# --------------------------------------------------------------------------- the fence around link accounts

_OPEN_ENDPOINTS = {"auth.logout", "annotate.item", "static"}
# open to everyone, asked before the session's user is loaded: the health check must stay one query
_PUBLIC_ENDPOINTS = {"healthz"}


@bp.before_app_request
def _fence():
    endpoint = request.endpoint or ""
    if endpoint in _PUBLIC_ENDPOINTS or endpoint == "static" or endpoint.endswith(".static"):
        return None
    if not current_user.is_authenticated or not links.is_link_account(current_user):
        return None
    allowed = (endpoint in _OPEN_ENDPOINTS or request.path.startswith("/annotate/api/items/")
               or (endpoint.startswith("crowd.") and endpoint not in _ORGANIZER_ENDPOINTS))
    if allowed:
        return None
    link = links.link_of_user(current_user.id)
    if link is not None and endpoint in ("annotate.index", "index", "submissions.index"):
        return redirect(url_for("crowd.home", campaign_id=link.campaign_id))
    raise NotFound("page")


@bp.app_context_processor
def _templates():
    return {"crowd_link_account": lambda: current_user.is_authenticated and links.is_link_account(current_user)}


# --------------------------------------------------------------------------- annotators: the link


@bp.route("/crowd/l/<token>", methods=["GET", "POST"])
@limiter.limit(_link_limit)
@limiter.limit(_passphrase_limit, methods=["POST"], key_func=_passphrase_key,
               deduct_when=lambda resp: resp.status_code == 403)
def enter(token: str):
    """GET: the link's landing page (no side effect: a mail scanner that fetches links uses up nothing);
    POST (Start, with the passphrase if the link has one): the link's account is made or found, and logged in."""
    link = links.link_from_secret(token)
    if current_user.is_authenticated:
        if current_user.id == link.user_id:
            return redirect(url_for("crowd.home", campaign_id=link.campaign_id))
        # someone else's session in this browser: never swap accounts behind their back
        return render_template("crowd/landing.html", campaign=link.campaign, link=link, error=None,
                               other_account=True), 409 if request.method == "POST" else 200
    if request.method != "POST":
        return render_template("crowd/landing.html", campaign=link.campaign, link=link, error=None)
    try:
        links.check_passphrase(link, request.form.get("passphrase", ""))
    except ServiceError as exc:
        return render_template("crowd/landing.html", campaign=link.campaign, link=link, error=exc.message), exc.status
    user = links.account_of(link)
    session.clear()
    login_user(user, remember=False)
    return redirect(url_for("crowd.home", campaign_id=link.campaign_id))


def _mine(campaign_id: int):
    campaign = camp.get_campaign(campaign_id)
    annotator = flow.annotator_in(campaign.id, current_user)
    return campaign, annotator


@bp.get("/crowd/c/<int:campaign_id>")
@login_required
def home(campaign_id: int):
    campaign, annotator = _mine(campaign_id)
    return redirect(flow.next_step(campaign, annotator))


@bp.route("/crowd/c/<int:campaign_id>/welcome", endpoint="welcome", methods=["GET", "POST"])
@login_required
def welcome_page(campaign_id: int):
    campaign, annotator = _mine(campaign_id)
    setup = setup_of(campaign.id)
    if not (setup and setup.welcome):
        raise NotFound("welcome form")
    form = welcome.form_from_json(setup.welcome)
    if flow.welcome_done(annotator.id, setup):
        return redirect(flow.next_step(campaign, annotator))
    error, field = None, None
    if request.method == "POST":
        try:
            flow.save_welcome(campaign, annotator, request.form)
        except ServiceError as exc:
            error, field = exc.message, (exc.details or {}).get("field")
        else:
            return redirect(flow.next_step(campaign, annotator))
    return render_template("crowd/welcome.html", campaign=campaign, form=form, posted=request.form, error=error,
                           error_field=field, other=welcome.OTHER), 400 if error else 200


@bp.route("/crowd/c/<int:campaign_id>/tutorial", methods=["GET", "POST"])
@login_required
def tutorial(campaign_id: int):
    campaign, annotator = _mine(campaign_id)
    setup = setup_of(campaign.id)
    if not (setup and setup.tutorial):
        raise NotFound("tutorial")
    if not flow.welcome_done(annotator.id, setup):
        return redirect(url_for("crowd.welcome", campaign_id=campaign.id))
    t = setup.tutorial
    fields = protocol_of(campaign).tutorial_fields(campaign)
    outcome, error = None, None
    if request.method == "POST":
        try:
            outcome = tut.answer(campaign, annotator, t, request.form.get("item", ""), request.form)
        except ServiceError as exc:
            if exc.code == "tutorial_moved_on":
                return redirect(url_for("crowd.tutorial", campaign_id=campaign.id))
            error = exc.message
        else:
            if not outcome.retry:     # (a loud item answered right says so on the next one)
                return redirect(url_for("crowd.tutorial", campaign_id=campaign.id,
                                        last="right" if outcome.correct and outcome.explanation else None))
    nxt = tut.next_item(t, annotator.id)
    if nxt is None:
        return redirect(flow.next_step(campaign, annotator))
    n, item = nxt
    return render_template("crowd/tutorial.html", campaign=campaign, tutorial=t, n=n, item=tut.public_item(item),
                           fields=fields, outcome=outcome, error=error,
                           last_right=request.method == "GET" and request.args.get("last") == "right"), \
        400 if error else 200


@bp.get("/crowd/c/<int:campaign_id>/waiting")
@login_required
def waiting(campaign_id: int):
    campaign, annotator = _mine(campaign_id)
    step = flow.next_step(campaign, annotator)
    if step != request.path:
        return redirect(step)
    return render_template("crowd/waiting.html", campaign=campaign)


@bp.get("/crowd/c/<int:campaign_id>/done")
@login_required
def done(campaign_id: int):
    campaign, annotator = _mine(campaign_id)
    result = flow.completion(campaign, annotator)
    if result is None:
        return redirect(flow.next_step(campaign, annotator))
    return render_template("crowd/done.html", campaign=campaign, result=result)


# --------------------------------------------------------------------------- organizers: the crowd page


def _page(campaign, new_links=None, status: int = 200):
    setup = setup_of(campaign.id)
    base = request.host_url.rstrip("/")
    return render_template(
        "crowd/manage.html", campaign=campaign, setup=setup, links=links.list_links(campaign),
        rows=reports.annotator_rows(campaign), new_links=new_links, base=base, ready_forms=sorted(welcome.READY_FORMS),
        has_tutorials=bool(protocol_of(campaign).tutorial_fields(campaign)),
        form=welcome.form_from_json(setup.welcome) if setup and setup.welcome else None), status


@bp.get("/campaigns/<int:campaign_id>/crowd")
@organizer_required
def manage(campaign_id: int):
    return _page(camp.get_campaign(campaign_id))


def _refused(campaign, exc: ServiceError):
    flash(exc.message, "error")
    return _page(campaign, status=exc.status)


@bp.post("/campaigns/<int:campaign_id>/crowd/links")
@organizer_required
def create_links(campaign_id: int):
    campaign = camp.get_campaign(campaign_id)
    try:
        made = links.create_links(campaign, count=request.form.get("count") or None,
                                  panel_ids_text=request.form.get("panel_ids", ""), label=request.form.get("label", ""),
                                  passphrase=request.form.get("passphrase") or None)
    except ServiceError as exc:
        return _refused(campaign, exc)
    shown = [(m.link.label, url_for("crowd.enter", token=m.secret, _external=True)) for m in made]
    return _page(campaign, new_links=shown)


@bp.post("/campaigns/<int:campaign_id>/crowd/links/<int:link_id>/revoke")
@organizer_required
def revoke_link(campaign_id: int, link_id: int):
    campaign = camp.get_campaign(campaign_id)
    links.revoke_link(campaign, link_id)
    flash("Link revoked: it opens nothing now, and its sessions are ended.", "success")
    return redirect(url_for("crowd.manage", campaign_id=campaign.id))


@bp.post("/campaigns/<int:campaign_id>/crowd/setup")
@organizer_required
def save(campaign_id: int):
    campaign = camp.get_campaign(campaign_id)
    try:
        welcome_text = _upload("welcome_file") or (request.form.get("welcome_ready") or None)
        tutorial_text = _upload("tutorial_file")
        codes = check_codes(request.form.get("pass_code"), request.form.get("fail_code"),
                            request.form.get("threshold"), request.form.get("redirect"))
        save_setup(campaign, welcome_text=welcome_text, tutorial_text=tutorial_text, codes=codes,
                   clear=tuple(request.form.getlist("clear")))
    except ServiceError as exc:
        return _refused(campaign, exc)
    flash("Crowd setup saved.", "success")
    return redirect(url_for("crowd.manage", campaign_id=campaign.id))


def _upload(name: str) -> str | None:
    f = request.files.get(name)
    if f is None or not f.filename:
        return None
    data = f.read(1024 * 1024 + 1)
    if len(data) > 1024 * 1024:
        raise ServiceError("too_large", f"{name.replace('_', ' ')}: at most 1 MiB", 400, {"field": name})
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ServiceError("invalid_field", f"{name.replace('_', ' ')}: the file is not UTF-8 text", 400,
                           {"field": name}) from None


def _download(text: str, name: str, mimetype: str) -> Response:
    return Response(text, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/campaigns/<int:campaign_id>/crowd/codes.csv")
@organizer_required
def codes_csv(campaign_id: int):
    campaign = camp.get_campaign(campaign_id)
    return _download(reports.codes_csv(campaign), f"campaign-{campaign.id}-codes.csv", "text/csv")


@bp.get("/campaigns/<int:campaign_id>/crowd/welcome.csv")
@organizer_required
def welcome_csv(campaign_id: int):
    campaign = camp.get_campaign(campaign_id)
    return _download(reports.welcome_csv(campaign), f"campaign-{campaign.id}-welcome.csv", "text/csv")


@bp.get("/campaigns/<int:campaign_id>/crowd/answers.jsonl")
@organizer_required
def answers_jsonl(campaign_id: int):
    campaign = camp.get_campaign(campaign_id)
    return _download(reports.answers_jsonl(campaign), f"campaign-{campaign.id}-crowd.jsonl", "application/jsonl")


_ORGANIZER_ENDPOINTS = {"crowd.manage", "crowd.create_links", "crowd.revoke_link", "crowd.save", "crowd.codes_csv",
                        "crowd.welcome_csv", "crowd.answers_jsonl"}
