"""The organizer's ESA^AI page, ``/protocols/esa/campaigns/<id>/suggestions``: the source, its run, its spans.

Organizers only (others get the 404 every campaign page gives). The API key is write-only:
no page or message carries it back. The blueprint is nested in the ESA protocol's own.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from ....campaigns import services as core
from ....campaigns.views import organizer_required
from ....judges.setup import allowed_key_envs, prompts_root
from ....services import NotFound, ServiceError
from . import report
from .budget import budget_saved
from .models import Suggestion
from .running import queue_run
from .source import (
    MAX_FILE_BYTES,
    LlmInput,
    SuggestionsRefused,
    get_suggester,
    remove_source,
    replace_refusal,
    set_llm_source,
    set_threshold,
    upload_file,
)
from .targets import campaign_targets, planned_items

bp = Blueprint("esa_ai", __name__, template_folder="templates")
FIELDS = ("name", "base_url", "model", "api_key_env", "temperature", "concurrency", "requests_per_minute",
          "timeout", "price_prompt_per_1k", "price_completion_per_1k", "prompts_dir", "skip_threshold")


def _campaign(campaign_id: int):
    campaign = core.get_campaign(campaign_id)
    if campaign.protocol != "esa":
        raise NotFound("ESA campaign")
    return campaign


def _page(campaign, form=None, problems=None, filename=None, status=200):
    suggester = get_suggester(campaign)
    labels = {(t.version_id, t.document_id, t.position): t for t in campaign_targets(campaign)} if suggester else {}
    return render_template("esa_ai/index.html", campaign=campaign, suggester=suggester, form=form or {},
                           prog=report.progress(suggester) if suggester else None,
                           rows=report.suggestion_rows(suggester) if suggester else [], labels=labels,
                           budget=budget_saved(campaign, planned_items(campaign)) if suggester else None,
                           refusal=replace_refusal(campaign), key_envs=allowed_key_envs(),
                           prompts_root=prompts_root(), problems=problems, filename=filename,
                           max_mb=MAX_FILE_BYTES // (1024 * 1024)), status


@bp.get("/campaigns/<int:campaign_id>/suggestions")
@organizer_required
def index(campaign_id: int):
    return _page(_campaign(campaign_id))


@bp.post("/campaigns/<int:campaign_id>/suggestions/llm")
@organizer_required
def set_llm(campaign_id: int):
    campaign = _campaign(campaign_id)
    form = {k: request.form.get(k, "") for k in FIELDS}
    key_source = request.form.get("key_source", "env")
    secret = request.form.get("api_key", "") if key_source == "secret" else ""
    if key_source != "env":
        form["api_key_env"] = ""
    try:
        given = {k: v for k, v in form.items() if v.strip()}      # an empty field keeps its default
        suggester = set_llm_source(campaign, LlmInput(base_url=given.pop("base_url", ""),
                                                      model=given.pop("model", ""), **given, api_key=secret))
    except ServiceError as exc:
        flash(exc.message, "error")
        form["key_source"] = key_source     # the secret itself never goes back into the form
        return _page(campaign, form, status=exc.status if exc.status in (400, 409) else 400)
    flash(f"Suggestions will come from {suggester.name}. Its key is {suggester.key_source}; it is never shown "
          "again. Run it to fetch the spans.", "success")
    return redirect(url_for(".index", campaign_id=campaign.id))


@bp.post("/campaigns/<int:campaign_id>/suggestions/file")
@organizer_required
def upload(campaign_id: int):
    campaign = _campaign(campaign_id)
    sent = request.files.get("file")
    if sent is None or not sent.filename:
        flash("Choose a JSON Lines file of suggestions to upload.", "error")
        return _page(campaign, status=400)
    content = sent.read(MAX_FILE_BYTES + 1)
    try:
        _suggester, n = upload_file(campaign, sent.filename, content, request.form.get("skip_threshold", ""))
    except SuggestionsRefused as exc:
        flash(f"{exc.filename} was not stored: {len(exc.problems)} problem(s), listed below. Nothing changed.",
              "error")
        return _page(campaign, problems=exc.problems, filename=exc.filename, status=400)
    except ServiceError as exc:
        flash(exc.message, "error")
        return _page(campaign, status=exc.status)
    flash(f"Stored the suggestions of {n} segment(s) from {sent.filename}.", "success")
    return redirect(url_for(".index", campaign_id=campaign.id))


@bp.post("/campaigns/<int:campaign_id>/suggestions/run")
@organizer_required
def run(campaign_id: int):
    campaign = _campaign(campaign_id)
    suggester = get_suggester(campaign)
    if suggester is None:
        raise NotFound("suggestion source")
    try:
        queue_run(suggester)
        flash("The suggester is queued on the llm queue; segments already suggested are skipped.", "success")
    except ServiceError as exc:
        flash(exc.message, "error")
    return redirect(url_for(".index", campaign_id=campaign.id))


@bp.post("/campaigns/<int:campaign_id>/suggestions/threshold")
@organizer_required
def threshold(campaign_id: int):
    campaign = _campaign(campaign_id)
    try:
        s = set_threshold(campaign, request.form.get("skip_threshold", ""))
        flash("The budget filter is off." if s.skip_threshold is None else
              f"Items the suggester found flawless and scored at least {s.skip_threshold:g} will be left out "
              "at the start.", "success")
    except ServiceError as exc:
        flash(exc.message, "error")
    return redirect(url_for(".index", campaign_id=campaign.id))


@bp.post("/campaigns/<int:campaign_id>/suggestions/remove")
@organizer_required
def remove(campaign_id: int):
    campaign = _campaign(campaign_id)
    try:
        remove_source(campaign)
        flash("The suggestion source and its suggestions are removed: this is a plain ESA campaign again.", "success")
    except ServiceError as exc:
        flash(exc.message, "error")
    return redirect(url_for(".index", campaign_id=campaign.id))


@bp.get("/campaigns/<int:campaign_id>/suggestions/<int:record_id>")
@organizer_required
def transcript(campaign_id: int, record_id: int):
    campaign = _campaign(campaign_id)
    suggester = get_suggester(campaign)
    from ....extensions import db

    row = db.session.get(Suggestion, record_id)
    if suggester is None or row is None or row.suggester_id != suggester.id:
        raise NotFound("suggestion")
    target = next((t for t in campaign_targets(campaign) if t.key == (row.version_id, row.document_id, row.position)),
                  None)
    return render_template("esa_ai/transcript.html", campaign=campaign, suggester=suggester, row=row, target=target)
