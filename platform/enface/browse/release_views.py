"""The release page: downloads for everyone after release; freeze, licence and release state for organizers."""

from __future__ import annotations

import re

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from ..services import ServiceError
from ..services import freeze as freeze_svc
from ..services.testsets import get_testset
from . import bp
from .access import check_browse, is_organizer
from .bundle import bundle_files, bundle_zip, get_file


def _organizer_only():
    if not is_organizer(current_user):
        abort(403)


@bp.get("/<int:testset_id>/downloads")
def downloads(testset_id: int):
    ts = get_testset(testset_id)
    check_browse(current_user, ts)
    files = bundle_files(ts)
    groups = {"texts": [f for f in files if f.path.startswith(("testset/source/", "testset/ref"))],
              "outputs": [f for f in files if f.path.startswith("outputs/")]}
    groups["main"] = [f for f in files if f not in groups["texts"] and f not in groups["outputs"]]
    return render_template("browse/downloads.html", ts=ts, groups=groups, organizer=is_organizer(current_user))


@bp.get("/<int:testset_id>/downloads/release.zip")
def download_zip(testset_id: int):
    ts = get_testset(testset_id)
    check_browse(current_user, ts)
    name, data = bundle_zip(ts)
    return Response(data, mimetype="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/<int:testset_id>/downloads/<path:path>")
def download_file(testset_id: int, path: str):
    ts = get_testset(testset_id)
    check_browse(current_user, ts)
    f = get_file(ts, path)
    charset = "" if f.mimetype == "application/zip" else "; charset=utf-8"
    filename = re.sub(r"[^A-Za-z0-9._-]+", "_", path)   # (document names may hold quotes or spaces)
    return Response(f.make(), mimetype=f.mimetype + charset,
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@bp.post("/<int:testset_id>/freeze")
@login_required
def freeze(testset_id: int):
    _organizer_only()
    ts = get_testset(testset_id)
    action = request.form.get("action")
    if action not in ("freeze", "unfreeze"):
        raise ServiceError("invalid_form", "say what to do: action=freeze or action=unfreeze (nothing was changed)",
                           400)
    if action == "unfreeze":
        freeze_svc.unfreeze(ts)
        flash("The freeze is lifted: everyone sees the live standings again.", "success")
    else:
        ts = freeze_svc.freeze(ts)
        flash(f"Leaderboard frozen at {ts.frozen_at:%Y-%m-%d %H:%M} UTC: the public sees these standings; "
              "organizers keep seeing the live ones.", "success")
    return redirect(url_for("browse.downloads", testset_id=testset_id))


@bp.post("/<int:testset_id>/licence")
@login_required
def licence(testset_id: int):
    _organizer_only()
    if "licence" not in request.form:     # a post without the field would erase the terms
        raise ServiceError("invalid_form", "the form has no licence field: nothing was changed", 400)
    freeze_svc.set_licence(get_testset(testset_id), request.form["licence"])
    flash("Licence terms saved: the release README quotes them.", "success")
    return redirect(url_for("browse.downloads", testset_id=testset_id))
