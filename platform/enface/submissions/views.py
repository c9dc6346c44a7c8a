import io
import zipfile

from flask import Response, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from ..auth.forms import EmptyForm
from ..confirm import ask, confirmed
from ..extensions import db
from ..forms import choices
from ..services import Forbidden, NotFound, ServiceError
from ..services import submissions as subs
from ..services import testsets as testsets_svc
from ..services.archive_names import safe_part
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
    folder = safe_part(ts.name)
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
    primary = subs.team_primary(current_user, ts.id)
    if request.method == "GET" and primary is not None:
        form.label.data = "contrastive"      # a second primary is refused: do not offer it first
    duplicate_of = None
    chosen = [f for f in request.files.getlist("files") if f and f.filename]
    if request.method == "POST" and not chosen:
        form.validate_on_submit()           # field errors too, all on one page
        flash(f"No output files chosen: select the {ts.num_documents} <document>.txt files "
              f"({_some_names(ts)}), a zip of them, or one file with all {ts.num_segments} segments in order.",
              "error")
    elif form.validate_on_submit():
        try:
            data = subs.check_input(current_user, form.label.data, form.constrained.data, form.system_name.data,
                                    form.description.data or "",
                                    on_duplicate="warn" if form.allow_duplicate.data else "refuse")
            files = receive(chosen)
            sub = subs.create_submission(current_user, ts, data, files)
        except ServiceError as exc:
            flash(exc.message + (". Choose the files again." if chosen else ""), "error")
            duplicate_of = exc.details.get("duplicate_of") if exc.code == "duplicate_upload" else None
            return render_template("submissions/submit.html", ts=ts, form=form, primary=primary,
                                   duplicate_of=duplicate_of), exc.status
        flash(f"Submission #{sub.id} received. Validation and scoring run in the background; this page follows "
              "them.", "success")
        return redirect(url_for("submissions.detail", submission_id=sub.id))
    elif request.method == "POST":
        flash("Nothing was uploaded: correct the fields marked below, then choose the files again.", "error")
    status = 400 if request.method == "POST" else 200
    return render_template("submissions/submit.html", ts=ts, form=form, primary=primary,
                           duplicate_of=duplicate_of), status


def _some_names(ts) -> str:
    names = [f"{d.name}.txt" for d in ts.documents[:3]]
    return ", ".join(names) + (", …" if ts.num_documents > 3 else "")


@bp.get("/submissions")
@login_required
def mine():
    return render_template("submissions/mine.html", submissions=subs.team_submissions(current_user),
                           action_form=EmptyForm())


@bp.get("/submissions/<int:submission_id>")
def detail(submission_id: int):
    sub = subs.get_visible(current_user, submission_id)
    owner = current_user.is_authenticated and (subs.can_manage(current_user, sub) or current_user.is_organizer)
    # A recent switch of primary: offer the switch back on every view for a while, not only on the next page.
    undo = subs.undoable_switch(sub) if owner else None
    return render_template("submissions/detail.html", sub=sub, owner=owner, action_form=EmptyForm(),
                           scores=sub.corpus_scores(), public_message=subs.public_message, undo=undo,
                           undo_minutes=subs.UNDO_SWITCH_MINUTES)


def _action(submission_id: int, fn, done: str, *, question=None, back_to=None):
    """A POST on one submission: checked, confirmed (``question(sub)`` gives the confirmation page's
    text; None: none needed), done through ``fn``, flashed, and back to the page it came from."""
    form = EmptyForm()
    if request.method == "POST" and not form.validate_on_submit():
        flash("The form expired; try again.", "error")
        return redirect(url_for("submissions.detail", submission_id=submission_id))
    sub = db.session.get(subs.Submission, submission_id)
    if sub is None:
        raise NotFound("submission")
    back = (request.form.get("back") == "mine" and url_for("submissions.mine")
            or url_for("submissions.detail", submission_id=submission_id))
    try:
        subs.check_editable(current_user, sub)     # 404/403 before any confirmation page
        if question is not None and not confirmed():
            return ask(cancel=back, **question(sub))   # a GET (a reload of that page) asks again
        if request.method != "POST":
            return redirect(back)
        fn(current_user, sub)
    except (NotFound, Forbidden):
        raise
    except ServiceError as exc:
        flash(exc.message, "error")
    else:
        flash(done.format(id=sub.id), "success")
        if back_to is not None:
            return redirect(back_to(sub) or back)
    return redirect(back)


def _withdraw_question(sub) -> dict:
    details = [f"{sub.label.capitalize()} #{sub.id} {sub.system_name!r} stops counting: it leaves the leaderboard "
               "and any human evaluation not yet started."]
    if sub.label != "baseline":
        details.append("Its slot and its place in your team's quota are given back.")
    details.append("This cannot be undone: to bring the output back, upload it again (it counts as a new "
                   "submission).")
    return {"title": f"Withdraw #{sub.id} {sub.system_name}?", "button": "Yes, withdraw it", "danger": True,
            "message": "Withdrawing is final.", "details": details}


def _primary_question(sub) -> dict:
    old = subs.current_primary(sub)
    details = [f"#{sub.id} {sub.system_name!r} becomes your team's primary system: the one that is ranked."]
    if old is not None:
        details.append(f"The current primary, #{old.id} {old.system_name!r}, becomes contrastive.")
        details.append(f"To undo, make #{old.id} primary again: its page offers that for "
                       f"{subs.UNDO_SWITCH_MINUTES} minutes.")
    from ..campaigns.services.lifecycle import released_campaigns_of

    judged = released_campaigns_of(old.id) if old is not None else []
    if judged:
        names = ", ".join(repr(c.name) for c in judged)
        details.append(f"A human evaluation of this test set is released ({names}): it judged #{old.id} "
                       f"{old.system_name!r}. Its official ranking keeps ranking #{old.id}, marked \"now "
                       f"contrastive\"; the automatic board shows #{sub.id} as your primary, which no human "
                       "evaluation ranked.")
    return {"title": f"Make #{sub.id} {sub.system_name} primary?", "button": "Yes, make it primary",
            "message": "Only one system per team is primary.", "details": details}


@bp.route("/submissions/<int:submission_id>/withdraw", methods=["GET", "POST"])
@login_required
def withdraw(submission_id: int):
    return _action(submission_id, subs.withdraw, "Submission #{id} withdrawn; it no longer counts.",
                   question=_withdraw_question)


@bp.route("/submissions/<int:submission_id>/primary", methods=["GET", "POST"])
@login_required
def make_primary(submission_id: int):
    # The undo of a switch is the same switch back: no confirmation for it (``undo=1``).
    undo = request.form.get("undo") == "1"
    previous = {}

    def switch(user, sub):
        old = subs.current_primary(sub)
        subs.make_primary(user, sub)
        if old is not None and old.id != sub.id:
            previous["id"] = old.id

    def undo_page(sub):   # its page offers the switch back (subs.undoable_switch)
        if "id" not in previous or undo:
            return None
        return url_for("submissions.detail", submission_id=sub.id)

    return _action(submission_id, switch, "Submission #{id} is now your primary system.",
                   question=None if undo else _primary_question, back_to=undo_page)
