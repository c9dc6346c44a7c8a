import io
import zipfile

from flask import Response, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from ..auth.forms import EmptyForm
from ..extensions import db
from ..forms import choices
from ..services import Forbidden, NotFound, ServiceError
from ..services import submissions as subs
from ..services import testsets as testsets_svc
from ..services.uploads import receive
from . import bp
from .forms import SubmitForm


@bp.get("/")
def index():
    return render_template("submissions/index.html", testsets=testsets_svc.list_testsets())


@bp.get("/testsets/<int:testset_id>")
def testset(testset_id: int):
    ts = testsets_svc.get_testset(testset_id)
    mine = subs.team_submissions(current_user, ts.id) if current_user.is_authenticated else []
    return render_template("submissions/testset.html", ts=ts, mine=mine)


@bp.get("/testsets/<int:testset_id>/source.zip")
@login_required
def source_zip(testset_id: int):
    """The sources (and the references when the organizers published them), in the on-disk format."""
    ts = testsets_svc.get_testset(testset_id)
    with_refs = ts.references_public or current_user.is_organizer
    buf = io.BytesIO()
    folder = f"{ts.name}".replace("/", "_")
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, text in testsets_svc.testset_files(ts, with_references=with_refs):
            zf.writestr(f"{folder}/{path}", text)
    filename = f"testset-{ts.id}{'-with-references' if with_refs else '-source'}.zip"
    return Response(buf.getvalue(), mimetype="application/zip",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@bp.route("/testsets/<int:testset_id>/submit", methods=["GET", "POST"])
@login_required
def submit(testset_id: int):
    ts = testsets_svc.get_testset(testset_id)
    form = SubmitForm()
    if current_user.is_organizer:
        form.label.choices = [*form.label.choices, *choices([("baseline", "Baseline (organizers)")])]
    if form.validate_on_submit():
        try:
            data = subs.check_input(current_user, form.label.data, form.constrained.data, form.system_name.data,
                                    form.description.data or "")
            files = receive(request.files.getlist("files"))
            sub = subs.create_submission(current_user, ts, data, files)
        except ServiceError as exc:
            flash(exc.message, "error")
            return render_template("submissions/submit.html", ts=ts, form=form), exc.status
        flash(f"Submission #{sub.id} received. Validation and scoring run in the background; this page follows "
              "them.", "success")
        return redirect(url_for("submissions.detail", submission_id=sub.id))
    status = 400 if request.method == "POST" else 200
    return render_template("submissions/submit.html", ts=ts, form=form), status


@bp.get("/submissions")
@login_required
def mine():
    return render_template("submissions/mine.html", submissions=subs.team_submissions(current_user),
                           action_form=EmptyForm())


@bp.get("/submissions/<int:submission_id>")
def detail(submission_id: int):
    sub = subs.get_visible(current_user, submission_id)
    owner = current_user.is_authenticated and (subs.can_manage(current_user, sub) or current_user.is_organizer)
    return render_template("submissions/detail.html", sub=sub, owner=owner, action_form=EmptyForm(),
                           scores=sub.corpus_scores(), public_message=subs.public_message)


def _action(submission_id: int, fn, done: str):
    form = EmptyForm()
    if not form.validate_on_submit():
        flash("The form expired; try again.", "error")
        return redirect(url_for("submissions.detail", submission_id=submission_id))
    sub = db.session.get(subs.Submission, submission_id)
    if sub is None:
        raise NotFound("submission")
    try:
        fn(current_user, sub)
    except (NotFound, Forbidden):
        raise
    except ServiceError as exc:
        flash(exc.message, "error")
    else:
        flash(done.format(id=sub.id), "success")
    return redirect(request.form.get("back") == "mine" and url_for("submissions.mine")
                    or url_for("submissions.detail", submission_id=submission_id))


@bp.post("/submissions/<int:submission_id>/withdraw")
@login_required
def withdraw(submission_id: int):
    return _action(submission_id, subs.withdraw, "Submission #{id} withdrawn; it no longer counts.")


@bp.post("/submissions/<int:submission_id>/primary")
@login_required
def make_primary(submission_id: int):
    return _action(submission_id, subs.make_primary, "Submission #{id} is now your primary system.")
