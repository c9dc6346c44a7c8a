"""The organizer's judge pages under ``/campaigns/<id>/judges``: add, run, progress, transcripts, side by side.

Organizers only (others get a 404, as on every campaign page). The API key is
write-only: no page, JSON or flash message ever carries it back.
"""

from __future__ import annotations

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for

from ..campaigns import services as campaign_svc
from ..campaigns.views import organizer_required
from ..confirm import ask, confirmed
from ..services import ServiceError
from . import manage, reports
from .running import queue_run
from .setup import (
    JudgeInput,
    add_judge,
    allowed_key_envs,
    campaign_judges,
    get_judge,
    prompts_root,
    run_refusal,
    takes_judges,
)

bp = Blueprint("judges", __name__)
FIELDS = ("name", "base_url", "model", "mode", "api_key_env", "temperature", "max_rounds", "concurrency",
          "requests_per_minute", "timeout", "price_prompt_per_1k", "price_completion_per_1k", "prompts_dir")


@bp.app_template_global()
def judges_panel(campaign) -> list[tuple]:
    """(judge, progress) of a campaign's judges: the protocol dashboards' judges panel (judges/_panel.html)."""
    return [(j, reports.progress(j)) for j in campaign_judges(campaign.id)]


def _index(campaign, form=None, status=200):
    judges = campaign_judges(campaign.id)
    return render_template("judges/index.html", campaign=campaign, judges=judges, form=form or {},
                           takes_judges=takes_judges(campaign), key_envs=allowed_key_envs(),
                           prompts_root=prompts_root(),
                           progress={j.id: reports.progress(j) for j in judges}), status


@bp.get("/<int:campaign_id>/judges")
@organizer_required
def index(campaign_id: int):
    return _index(campaign_svc.get_campaign(campaign_id))


@bp.post("/<int:campaign_id>/judges")
@organizer_required
def add(campaign_id: int):
    campaign = campaign_svc.get_campaign(campaign_id)
    form = {k: request.form.get(k, "") for k in FIELDS}
    key_source = request.form.get("key_source", "env")
    secret = request.form.get("api_key", "") if key_source == "secret" else ""
    if key_source != "env":
        form["api_key_env"] = ""
    try:
        judge = add_judge(campaign, JudgeInput(**form, api_key=secret))
    except ServiceError as exc:
        flash(exc.message, "error")
        form["key_source"] = key_source   # the secret itself is never sent back into the form
        return _index(campaign, form, 400)
    flash(f"Judge {judge.name} added. Its key is {judge.key_source}; it is never shown again.", "success")
    return redirect(url_for("judges.show", campaign_id=campaign.id, judge_id=judge.id))


@bp.post("/<int:campaign_id>/judges/<int:judge_id>/run")
@organizer_required
def run(campaign_id: int, judge_id: int):
    judge = get_judge(campaign_id, judge_id)
    try:
        queue_run(judge)
        flash("The judge is queued on the llm queue; items already judged are skipped.", "success")
    except ServiceError as exc:
        flash(exc.message, "error")
    return redirect(url_for("judges.show", campaign_id=campaign_id, judge_id=judge_id))


@bp.get("/<int:campaign_id>/judges/<int:judge_id>")
@organizer_required
def show(campaign_id: int, judge_id: int):
    judge = get_judge(campaign_id, judge_id)
    return render_template("judges/show.html", campaign=judge.campaign, judge=judge,
                           prog=reports.progress(judge), records=reports.judge_items(judge),
                           run_refusal=run_refusal(judge),
                           results=reports.judge_results(judge), labels=reports.item_labels(judge))


@bp.post("/<int:campaign_id>/judges/<int:judge_id>/test")
@organizer_required
def test(campaign_id: int, judge_id: int):
    """One small call to the judge's endpoint; the page says whether it answered, or why not."""
    judge = get_judge(campaign_id, judge_id)
    check = manage.test_endpoint(judge)
    if check.ok:
        flash(f"Endpoint test passed: {check.message} in {check.seconds:.2f} s"
              f"{f' ({check.answer!r})' if check.answer else ''}.", "success")
    else:
        flash(f"Endpoint test failed: {check.message}", "error")
    return redirect(url_for("judges.show", campaign_id=campaign_id, judge_id=judge_id))


@bp.route("/<int:campaign_id>/judges/<int:judge_id>/edit", methods=["GET", "POST"])
@organizer_required
def edit(campaign_id: int, judge_id: int):
    judge = get_judge(campaign_id, judge_id)
    if request.method == "GET":
        form = {k: getattr(manage.judge_input(judge), k) for k in FIELDS}
        return render_template("judges/edit.html", campaign=judge.campaign, judge=judge, form=form,
                               scored=manage.scored_items(judge), key_envs=allowed_key_envs(),
                               prompts_root=prompts_root())
    form = {k: request.form.get(k, "") for k in FIELDS}
    key_source = request.form.get("key_source", "keep")
    secret = request.form.get("api_key", "") if key_source == "secret" else ""
    if key_source != "env":
        form["api_key_env"] = ""
    try:
        manage.update_judge(judge, JudgeInput(**form, api_key=secret), key_source=key_source)
    except ServiceError as exc:
        flash(exc.message, "error")
        form["key_source"] = key_source   # the secret itself is never sent back into the form
        return render_template("judges/edit.html", campaign=judge.campaign, judge=judge, form=form,
                               scored=manage.scored_items(judge), key_envs=allowed_key_envs(),
                               prompts_root=prompts_root()), exc.status
    flash(f"Judge {judge.name} saved.", "success")
    return redirect(url_for("judges.show", campaign_id=campaign_id, judge_id=judge_id))


@bp.route("/<int:campaign_id>/judges/<int:judge_id>/delete", methods=["GET", "POST"])
@organizer_required
def delete(campaign_id: int, judge_id: int):
    judge = get_judge(campaign_id, judge_id)
    back = url_for("judges.show", campaign_id=campaign_id, judge_id=judge_id)
    if not confirmed():
        scored = manage.scored_items(judge)
        refusal = None
        try:
            manage.check_deletable(judge)
        except ServiceError as exc:
            refusal = exc.message
        return ask(title=f"Delete the judge {judge.name}?", button="Yes, delete the judge", cancel=back, danger=True,
                   message="The judge leaves the campaign's raters: its scores no longer count in the results, "
                           "the exports or the agreement figures.",
                   details=[f"Its {scored} scored item(s), their transcripts and its machine account are deleted.",
                            "The humans' work is untouched.", "This cannot be undone: add a new judge to judge "
                            "again."], disabled=refusal)
    try:
        scored = manage.delete_judge(judge)
    except ServiceError as exc:
        flash(exc.message, "error")
        return redirect(back)
    flash(f"Judge deleted with its {scored} scored item(s).", "success")
    return redirect(url_for("judges.index", campaign_id=campaign_id))


@bp.get("/<int:campaign_id>/judges/<int:judge_id>/progress.json")
@organizer_required
def progress_json(campaign_id: int, judge_id: int):
    return jsonify(reports.progress(get_judge(campaign_id, judge_id)))


@bp.get("/<int:campaign_id>/judges/<int:judge_id>/items/<int:record_id>")
@organizer_required
def transcript(campaign_id: int, judge_id: int, record_id: int):
    judge = get_judge(campaign_id, judge_id)
    record = reports.judge_item(judge, record_id)
    label = reports.item_labels(judge).get((record.item_id, record.key), f"item {record.item_id}")
    return render_template("judges/transcript.html", campaign=judge.campaign, judge=judge, record=record,
                           label=label)


@bp.get("/<int:campaign_id>/judges/<int:judge_id>/compare")
@organizer_required
def compare(campaign_id: int, judge_id: int):
    judge = get_judge(campaign_id, judge_id)
    data = reports.side_by_side(judge)
    only_humans = request.args.get("only") == "humans"
    if only_humans:   # the agreement figures stay those of every item
        data["rows"] = [r for r in data["rows"] if r["humans"]]
    return render_template("judges/compare.html", campaign=judge.campaign, judge=judge, only_humans=only_humans,
                           labels=reports.item_labels(judge), **data)
