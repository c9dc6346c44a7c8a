"""Organizer pages for campaigns of every protocol (``/campaigns/``), and the public results of a released one.

The protocol of a campaign supplies its creation form, its dashboard panels, its
results page and its exports (:class:`enface.campaigns.protocol.Protocol`).

Every page but the released results is for organizers only (others get a 404:
the pages are not advertised). State changes are POST forms with the CSRF token.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import wraps

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user

from ..confirm import ask, confirmed
from ..extensions import login_manager
from ..services import ServiceError, accounts, is_ascii_int
from ..services import testsets as testsets_svc
from . import selection
from . import services as svc
from .exports import campaign_exports, core_exports
from .protocol import PROTOCOLS, default_protocol, protocol_of
from .stability import campaign_stability

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
    raw_testset = request.values.get("testset", "")
    testset_id = int(raw_testset) if is_ascii_int(raw_testset) else None   # an id, or the picker
    protocol_key = request.values.get("protocol") or default_protocol().key
    if testset_id is None or protocol_key not in PROTOCOLS:
        return render_template("campaigns/pick_testset.html", testsets=testsets_svc.list_testsets(),
                               protocols=PROTOCOLS.values(), chosen=protocol_key)
    protocol = protocol_of(protocol_key)
    ts = testsets_svc.get_testset(testset_id)
    subs = svc.eligible_submissions(ts)
    docs = svc.testset_docs(ts)
    form = protocol.form_defaults(ts, subs, docs)
    # how sampled documents are chosen: the core's fields, on every protocol's form (campaigns/_macros.html)
    choice = {"doc_selection": request.form.get("doc_selection", selection.UNIFORM),
              "doc_selection_metric": request.form.get("doc_selection_metric", "")}
    if request.method == "POST":
        try:
            data = protocol.input_from_form(form, request.form)
            if isinstance(data, svc.CampaignInput):
                data = replace(data, **choice)
            campaign = svc.create_campaign(_user(), ts, data, docs=docs)
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            flash(f"Campaign created with {len(campaign.versions)} versions and {len(campaign.ranges)} document "
                  "ranges. Next: invite annotators, then start it.", "success")
            return redirect(url_for("campaigns.show", campaign_id=campaign.id))
    status = 400 if request.method == "POST" else 200
    return render_template(protocol.new_template, ts=ts, subs=subs, form=form, protocol=protocol,
                           doc_choice=choice, doc_selections=selection.TITLES,
                           segment_metrics=selection.segment_metrics(ts, subs),
                           **protocol.form_context(ts, form)), status


# --------------------------------------------------------------------------- the dashboard


@bp.get("/<int:campaign_id>")
@organizer_required
def show(campaign_id: int):
    campaign = svc.dashboard_campaign(campaign_id)
    protocol = protocol_of(campaign)
    context = protocol.dashboard_context(campaign, request.args)
    return render_template(protocol.dashboard_template, campaign=campaign, protocol=protocol, fmt_ms=svc.fmt_ms,
                           finished_work=svc.finished_work(campaign),
                           eligible=svc.eligible_submissions(campaign.testset) if campaign.state == "draft" else [],
                           waiting=svc.annotators_without_items(campaign) if campaign.state != "draft" else [],
                           new_links=None, campaign_exports=[(fmt, e.title) for fmt, e
                                                             in campaign_exports(campaign, public=False).items()],
                           documents_chosen=selection.describe(campaign.doc_selection),
                           stability=campaign_stability(campaign), **context)


# --------------------------------------------------------------------------- setup: systems, annotators, invites


@bp.post("/<int:campaign_id>/systems")
@campaign_action("setup")
def systems(campaign):
    svc.update_systems(campaign, [int(x) for x in request.form.getlist("systems") if is_ascii_int(x)])
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
                                 days=request.form.get("days") or 30)
    links = [url_for("annotate.join", secret=secret, _external=True) for _inv, secret in created]
    return render_template("campaigns/invites.html", campaign=campaign, links=links)


@bp.post("/<int:campaign_id>/invites/<int:invite_id>/revoke")
@campaign_action("annotators")
def revoke_invite(campaign, invite_id: int):
    svc.revoke_invite(campaign, invite_id)
    flash("Invite link revoked.", "success")
    return _back(campaign.id, "annotators")


# --------------------------------------------------------------------------- life cycle


@bp.route("/<int:campaign_id>/start", methods=["GET", "POST"])
@campaign_action()
def start(campaign):
    if not confirmed():
        people = len(campaign.annotators)
        return ask(title=f"Start {campaign.name}?", button="Yes, start and assign the items",
                   cancel=url_for("campaigns.show", campaign_id=campaign.id),
                   message="Starting hands out the items; the systems, documents and design are fixed from then on.",
                   details=[f"{len(campaign.versions)} version(s) of {campaign.testset.title} go to "
                            f"{people} annotator{'s' if people != 1 else ''}, {campaign.redundancy} per item.",
                            "Annotators who join later get a share of the items nobody has opened yet.",
                            "A started campaign cannot go back to draft (it can be deleted while unreleased)."],
                   disabled=("Choose at least one system first." if not campaign.versions else
                             "Add annotators first: invite them or add existing accounts." if not people else None))
    out = svc.start_campaign(campaign)
    extra = "".join(f", {n} {k.replace('_', ' ')}" for k, n in out.items() if k not in ("items", "assignments"))
    flash(f"Started: {out['items']} items, {out['assignments']} assignments{extra}.", "success")
    return _back(campaign.id)


@bp.post("/<int:campaign_id>/rebalance")
@campaign_action("items")
def rebalance(campaign):
    out = svc.rebalance(campaign)
    flash(f"Rebalanced: {out['moved']} unstarted item(s) moved to the least loaded annotators.", "success")
    return _back(campaign.id, "items")


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


@bp.route("/<int:campaign_id>/release", methods=["GET", "POST"])
@campaign_action()
def release(campaign):
    if not confirmed():
        done, total = svc.finished_work(campaign)
        return ask(title=f"Release {campaign.name}?", button="Yes, release the results",
                   cancel=url_for("campaigns.show", campaign_id=campaign.id),
                   message="Releasing freezes the results as they are now and publishes them.",
                   details=[f"{done} of {total} assignments have finished work; unfinished work is left out.",
                            f"The results page becomes public and {campaign.testset.title}'s leaderboard shows "
                            "them (once that leaderboard is released).",
                            "You can withdraw the release later; annotators can no longer change anything."],
                   disabled=None if done else "Nothing to release yet: no item is finished.")
    svc.release(campaign)
    if svc.results_public(campaign):
        flash("Released: the results are public and on the leaderboard.", "success")
    else:
        flash(f"Released: the results are frozen. They become public (results page, exports and the leaderboard's "
              f"column) when the test set {campaign.testset.name} is released; until then only organizers see "
              "them.", "success")
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


def is_organizer() -> bool:
    return current_user.is_authenticated and current_user.is_organizer


def readable(campaign_id: int):
    """Organizers always; everyone else only once the campaign is released *and* its test set is: a campaign's
    results name systems and teams and quote their outputs, which stay private until the test set's release.
    An annotator still judging the test set's outputs blind in another campaign waits for that one too (403,
    as in the output browser)."""
    campaign = svc.get_campaign(campaign_id)
    if is_organizer():
        return campaign
    if not svc.results_public(campaign):
        abort(404)
    if svc.annotating_blind(current_user, campaign.testset_id):
        raise ServiceError("blind", "you annotate in a human evaluation of this test set that is still running: "
                           "its results open to you once that evaluation is released", 403)
    return campaign


@bp.get("/<int:campaign_id>/export.<fmt>")
def export(campaign_id: int, fmt: str):
    campaign = readable(campaign_id)
    protocol = protocol_of(campaign)
    table = campaign_exports(campaign, public=not is_organizer())   # the public's: what the release holds
    if fmt not in table:
        abort(404)
    export = table[fmt]
    return Response(export.writer(campaign), mimetype=export.mimetype, headers={
        "Content-Disposition": f'attachment; filename="{protocol.key}-campaign-{campaign.id}.{export.extension}"'})


@bp.get("/<int:campaign_id>/results")
def results(campaign_id: int):
    campaign = readable(campaign_id)
    protocol = protocol_of(campaign)
    # the public page: the snapshot once released, organizers included
    return render_template(protocol.results_template, campaign=campaign, protocol=protocol,
                           core_exports=[(fmt, e.title) for fmt, e in
                                         core_exports(campaign, public=not is_organizer()).items()],
                           **protocol.results_context(campaign))


@bp.get("/<int:campaign_id>/results/data.json")
def results_public_json(campaign_id: int):
    campaign = readable(campaign_id)
    res = protocol_of(campaign).results(campaign)
    return Response(json.dumps(res, ensure_ascii=False, default=str), mimetype="application/json")
