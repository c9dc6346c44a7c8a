"""Organizer pages for MQM campaigns (``/campaigns/``), and the public results of a released one.

Every page but the released results is for organizers only (others get a 404:
the pages are not advertised). State changes are POST forms with the CSRF token.
"""

from __future__ import annotations

import json
from functools import wraps

from flask import Blueprint, Response, abort, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user

import mqm

from ..extensions import login_manager
from ..services import ServiceError, accounts
from ..services import testsets as testsets_svc
from . import services as svc
from .constants import ATTENTION_KINDS, SIGNIFICANCE_UNITS

bp = Blueprint("campaigns", __name__)


def organizer_required(view):
    @wraps(view)
    def wrapped(*args, **kwargs):
        if not current_user.is_authenticated:
            return login_manager.unauthorized()
        if not current_user.is_organizer:
            abort(404)
        return view(*args, **kwargs)
    return wrapped


def _user():
    return current_user._get_current_object()


def _back(campaign_id: int, anchor: str = ""):
    return redirect(url_for("campaigns.show", campaign_id=campaign_id) + (f"#{anchor}" if anchor else ""))


def _refused(exc: ServiceError, campaign_id: int, anchor: str = ""):
    flash(exc.message, "error")
    return _back(campaign_id, anchor)


def campaign_action(anchor: str = ""):
    """An organizer's POST on one campaign: the view gets the campaign (404 when there is none)
    instead of its id; a refusal (a :class:`ServiceError` from the view) is flashed and the
    dashboard shown again, at ``anchor``."""
    def decorate(view):
        @wraps(view)
        def wrapped(campaign_id: int, **kwargs):
            campaign = svc.get_campaign(campaign_id)
            try:
                return view(campaign, **kwargs)
            except ServiceError as exc:
                return _refused(exc, campaign_id, anchor)
        return organizer_required(wrapped)
    return decorate


# --------------------------------------------------------------------------- list and create


@bp.get("/")
@organizer_required
def index():
    return render_template("campaigns/index.html", campaigns=svc.list_campaigns(),
                           testsets=testsets_svc.list_testsets())


@bp.route("/new", methods=["GET", "POST"])
@organizer_required
def new():
    testset_id = request.values.get("testset", type=int)
    if testset_id is None:
        return render_template("campaigns/pick_testset.html", testsets=testsets_svc.list_testsets())
    ts = testsets_svc.get_testset(testset_id)
    subs = svc.eligible_submissions(ts)
    docs = svc.testset_docs(ts)
    form = {"name": f"{ts.name} MQM", "scheme": mqm.DEFAULT_SCHEME, "redundancy": "2", "docs_mode": "sample",
            "sample_docs": str(min(5, len(docs))), "sample_words": "2200", "ranges": "", "attention_share": "10%",
            "attention_kind": "mixed", "source_words": "auto", "significance_unit": "segment", "instructions": "",
            "seed": "", "systems": [s.id for s in subs if svc.default_selected(s)]}
    if request.method == "POST":
        form.update({k: request.form.get(k, "") for k in form if k != "systems"})
        form["systems"] = [int(x) for x in request.form.getlist("systems") if x.isdigit()]
        seed = form["seed"].strip()
        data = svc.CampaignInput(
            name=form["name"], submission_ids=form["systems"], scheme=form["scheme"], redundancy=form["redundancy"],
            ranges=form["ranges"] if form["docs_mode"] == "ranges" else "",
            sample_docs=form["sample_docs"], sample_words=form["sample_words"],
            attention_share=form["attention_share"], attention_kind=form["attention_kind"],
            source_words=form["source_words"], significance_unit=form["significance_unit"],
            instructions=form["instructions"], seed=int(seed) if seed.isdigit() else None)
        if form["docs_mode"] == "ranges" and not form["ranges"].strip():
            flash("Write at least one document or range (or choose a sample).", "error")
        else:
            try:
                campaign = svc.create_campaign(_user(), ts, data, docs=docs)
            except ServiceError as exc:
                flash(exc.message, "error")
            else:
                flash(f"Campaign created with {len(campaign.systems)} systems and {len(campaign.ranges)} document "
                      "ranges. Next: invite annotators, then start it.", "success")
                return redirect(url_for("campaigns.show", campaign_id=campaign.id))
    doc_rows, words_method = svc.document_words(ts, form["source_words"])
    schemes = [(name, svc.get_scheme(name).title) for name in mqm.available_schemes()]
    status = 400 if request.method == "POST" else 200
    return render_template("campaigns/new.html", ts=ts, subs=subs, docs=doc_rows, form=form, schemes=schemes,
                           attention_kinds=ATTENTION_KINDS, word_modes=svc.WORD_MODES,
                           units=SIGNIFICANCE_UNITS, words_method=words_method), status


# --------------------------------------------------------------------------- the dashboard


@bp.get("/<int:campaign_id>")
@organizer_required
def show(campaign_id: int):
    campaign = svc.dashboard_campaign(campaign_id)
    doc = request.args.get("doc") or None
    rows = svc.load_rows(campaign)    # read once for the progress and the results
    prog = svc.progress(campaign, rows=rows)
    results = svc.compute_results(campaign, doc=doc, rows=rows) if campaign.state != "draft" else None
    scheme = svc.get_scheme(campaign.scheme)
    chart = svc.error_chart(results, scheme) if results and results["errors"] else None
    return render_template("campaigns/show.html", campaign=campaign, prog=prog, results=results, chart=chart,
                           scheme=scheme, labels=rows.labels, doc=doc, fmt_ms=svc.fmt_ms,
                           docs=sorted({i.document.name for i in rows.items}),
                           eligible=svc.eligible_submissions(campaign.testset) if campaign.state == "draft" else [],
                           new_links=None)


@bp.get("/<int:campaign_id>/results.json")
@organizer_required
def results_json(campaign_id: int):
    campaign = svc.get_campaign(campaign_id)
    return jsonify(svc.compute_results(campaign, doc=request.args.get("doc") or None))


@bp.get("/<int:campaign_id>/errors.svg")
def errors_svg(campaign_id: int):
    campaign = _readable(campaign_id)
    results = svc.results_for(campaign, _is_organizer(), errors_only=True)   # organizers: live, as on the dashboard
    chart = svc.error_chart(results, svc.get_scheme(campaign.scheme))
    svg = render_template("campaigns/errors.svg", chart=chart, standalone=True)
    return Response(svg, mimetype="image/svg+xml")


# --------------------------------------------------------------------------- setup: systems, annotators, invites


@bp.post("/<int:campaign_id>/systems")
@campaign_action("setup")
def systems(campaign):
    svc.update_systems(campaign, [int(x) for x in request.form.getlist("systems") if x.isdigit()])
    flash("Systems updated.", "success")
    return _back(campaign.id, "setup")


@bp.post("/<int:campaign_id>/annotators")
@campaign_action("annotators")
def add_annotator(campaign):
    email = request.form.get("email", "")
    user = accounts.get_user_by_email(email)
    if user is None:
        flash(f"No account with the e-mail {email!r}: send an invite link instead.", "error")
        return _back(campaign.id, "annotators")
    ann = svc.add_annotator(campaign, user)
    flash(f"{user.display_name} is annotator {ann.rater}.", "success")
    return _back(campaign.id, "annotators")


@bp.post("/<int:campaign_id>/annotators/<int:annotator_id>/remove")
@campaign_action("annotators")
def remove_annotator(campaign, annotator_id: int):
    svc.remove_annotator(campaign, annotator_id)
    flash("Annotator removed.", "success")
    return _back(campaign.id, "annotators")


@bp.post("/<int:campaign_id>/invites")
@campaign_action("annotators")
def invites(campaign):
    created = svc.create_invites(campaign, count=request.form.get("count", "1"),
                                 label=request.form.get("label", ""),
                                 max_uses=request.form.get("max_uses", "1"),
                                 days=request.form.get("days", type=int) or 30)
    links = [url_for("annotate.join", secret=secret, _external=True) for _inv, secret in created]
    return render_template("campaigns/invites.html", campaign=campaign, links=links)


@bp.post("/<int:campaign_id>/invites/<int:invite_id>/revoke")
@campaign_action("annotators")
def revoke_invite(campaign, invite_id: int):
    svc.revoke_invite(campaign, invite_id)
    flash("Invite link revoked.", "success")
    return _back(campaign.id, "annotators")


# --------------------------------------------------------------------------- life cycle


@bp.post("/<int:campaign_id>/start")
@campaign_action()
def start(campaign):
    out = svc.start_campaign(campaign)
    flash(f"Started: {out['items']} items, {out['assignments']} assignments, "
          f"{out['attention_checks']} attention checks.", "success")
    return _back(campaign.id)


@bp.post("/<int:campaign_id>/state")
@campaign_action()
def state(campaign):
    svc.set_state(campaign, request.form.get("state", ""))
    flash(f"The campaign is {request.form.get('state')}.", "success")
    return _back(campaign.id)


@bp.post("/<int:campaign_id>/assignments/<int:assignment_id>/reopen")
@campaign_action("items")
def reopen(campaign, assignment_id: int):
    svc.reopen_assignment(campaign, assignment_id)
    flash("Item reopened for its annotator.", "success")
    return _back(campaign.id, "items")


@bp.post("/<int:campaign_id>/release")
@campaign_action()
def release(campaign):
    svc.release(campaign)
    flash("Released: the MQM scores and the human ranking are on the leaderboard.", "success")
    return _back(campaign.id)


@bp.post("/<int:campaign_id>/withdraw")
@campaign_action()
def withdraw(campaign):
    svc.withdraw_release(campaign)
    flash("Release withdrawn: the leaderboard no longer shows this campaign.", "success")
    return _back(campaign.id)


@bp.post("/<int:campaign_id>/delete")
@campaign_action()
def delete(campaign):
    if request.form.get("confirm") != campaign.name:
        flash("Type the campaign's name to confirm the deletion.", "error")
        return _back(campaign.id)
    svc.delete_campaign(campaign)
    flash("Campaign deleted.", "success")
    return redirect(url_for("campaigns.index"))


# --------------------------------------------------------------------------- exports and public results


def _is_organizer() -> bool:
    return current_user.is_authenticated and current_user.is_organizer


def _readable(campaign_id: int):
    """Organizers always; everyone else only once the campaign is released."""
    campaign = svc.get_campaign(campaign_id)
    if not _is_organizer() and campaign.state != "released":
        abort(404)
    return campaign


@bp.get("/<int:campaign_id>/export.tsv")
def export_tsv(campaign_id: int):
    campaign = _readable(campaign_id)
    return Response(svc.export_tsv(campaign), mimetype="text/tab-separated-values",
                    headers={"Content-Disposition": f'attachment; filename="mqm-campaign-{campaign.id}.tsv"'})


@bp.get("/<int:campaign_id>/export.json")
def export_json(campaign_id: int):
    campaign = _readable(campaign_id)
    return Response(svc.export_json(campaign), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="mqm-campaign-{campaign.id}.json"'})


@bp.get("/<int:campaign_id>/results")
def results(campaign_id: int):
    campaign = _readable(campaign_id)
    res = svc.results_for(campaign)   # the public page: the snapshot once released, organizers included
    chart = svc.error_chart(res, svc.get_scheme(campaign.scheme)) if res and res.get("errors") else None
    return render_template("campaigns/results.html", campaign=campaign, results=res, chart=chart)


@bp.get("/<int:campaign_id>/results/data.json")
def results_public_json(campaign_id: int):
    campaign = _readable(campaign_id)
    res = svc.results_for(campaign)
    return Response(json.dumps(res, ensure_ascii=False, default=str), mimetype="application/json")
