"""Organizer pages that rename a test set or delete one nothing was submitted to (confirmation page first)."""

from __future__ import annotations

from flask import flash, redirect, request, url_for

from ..confirm import ask, confirmed
from ..services import ServiceError
from ..services import testsets as testsets_svc
from ..services.testset_changes import delete_testset, deletion_refusal, rename_testset
from . import bp


@bp.post("/testsets/<int:testset_id>/rename")
def rename_testset_view(testset_id: int):
    ts = testsets_svc.get_testset(testset_id)
    old = ts.name
    try:
        rename_testset(ts, request.form.get("name", ""))
    except ServiceError as exc:
        flash(exc.message, "error")
    else:
        flash(f"Test set {old!r} is now called {ts.name!r}.", "success")
    return redirect(url_for("admin.testset", testset_id=testset_id) + "#rename")


@bp.route("/testsets/<int:testset_id>/delete", methods=["GET", "POST"])
def delete_testset_view(testset_id: int):
    ts = testsets_svc.get_testset(testset_id)
    if not confirmed():
        return ask(title=f"Delete {ts.title}?", button="Yes, delete the test set", danger=True,
                   cancel=url_for("admin.testset", testset_id=ts.id),
                   message="Deleting removes the test set: its documents, sources, references and phenomenon tags.",
                   details=[f"{ts.num_documents} document(s), {ts.num_segments} segment(s), {ts.num_refs} "
                            "reference(s) are deleted; import the directory again to bring them back.",
                            "Only a test set nothing was submitted to can be deleted."],
                   disabled=deletion_refusal(ts))
    try:
        title = delete_testset(ts)
    except ServiceError as exc:
        flash(exc.message, "error")
        return redirect(url_for("admin.testset", testset_id=testset_id))
    flash(f"Test set {title} deleted.", "success")
    return redirect(url_for("admin.index"))
