from flask import current_app, flash, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from ..auth.forms import EmptyForm
from ..extensions import db
from ..models import STATES, Submission, Team, User
from ..services import NotFound, ServiceError, accounts
from ..services import submissions as subs
from ..services import testsets as testsets_svc
from ..services.phenomena import count_phenomena, replace_phenomena
from ..services.pipeline import sweep
from ..services.uploads import discard, receive
from . import bp
from .forms import ImportForm, RoleForm, SettingsForm

MAX_PHENOMENA_BYTES = 5 * 10**6
#: the settings form's fields a post must carry (empty is a value: "no deadline"); an unticked checkbox is absent
SETTINGS_FIELDS = ("opens_at", "deadline", "quota_per_day", "quota_total", "description")


@bp.get("/")
def index():
    counts = dict(db.session.execute(select(Submission.state, func.count()).group_by(Submission.state)).all())
    recent = db.session.scalars(select(Submission).options(selectinload(Submission.team),
                                                           selectinload(Submission.testset))
                                .order_by(Submission.id.desc()).limit(30)).all()
    return render_template("admin/index.html", testsets=testsets_svc.list_testsets(), counts=counts, states=STATES,
                           recent=recent, action_form=EmptyForm())


@bp.route("/testsets/import", methods=["GET", "POST"])
def import_testset():
    form = ImportForm()
    if form.validate_on_submit():
        files = []
        try:
            files = receive([request.files.get("archive")])
            if len(files) != 1:
                raise ServiceError("no_files", "choose the zip of the test set", 400)
            ts = testsets_svc.import_testset_zip(files[0].temp_path, form.task.data,
                                                 current_app.config["MAX_UNZIPPED_BYTES"],
                                                 name=(form.name.data or "").strip() or None)
        except ServiceError as exc:
            flash(exc.message, "error")
            return render_template("admin/import.html", form=form), exc.status
        finally:
            discard(files)
        flash(f"Imported {ts.name}: {ts.num_documents} documents, {ts.num_segments} segments, "
              f"{ts.num_refs} references. It is closed and hidden: set when it opens (and its deadline) below; "
              "release its leaderboard when the results are final.", "success")
        for other in testsets_svc.same_data_as(ts):
            flash(f"Warning: {other.title} (test set {other.id}) holds the same documents, sources and references. "
                  "If this import was a mistake, leave it closed.", "warning")
        return redirect(url_for("admin.testset", testset_id=ts.id))
    return render_template("admin/import.html", form=form), 400 if request.method == "POST" else 200


@bp.route("/testsets/<int:testset_id>", methods=["GET", "POST"])
def testset(testset_id: int):
    ts = testsets_svc.get_testset(testset_id)
    form = SettingsForm(obj=None if request.method == "POST" else _settings_obj(ts))
    missing = [k for k in SETTINGS_FIELDS if k not in request.form] if request.method == "POST" else []
    if missing:   # a partial post would close (no opening time), hide or reopen the test set unasked
        flash(f"The settings form is missing {', '.join(missing)}: nothing was changed. Reload the page and save "
              "again.", "error")
        form = SettingsForm(formdata=None, obj=_settings_obj(ts))
        status = 400
    elif form.validate_on_submit():
        try:
            testsets_svc.update_settings(ts, opens_at=form.opens_at.data, deadline=form.deadline.data,
                                         quota_per_day=form.quota_per_day.data, quota_total=form.quota_total.data,
                                         document_level_allowed=form.document_level_allowed.data,
                                         released=form.released.data, references_public=form.references_public.data,
                                         description=form.description.data)
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            flash("Settings saved.", "success")
            return redirect(url_for("admin.testset", testset_id=ts.id))
        status = 200
    else:
        status = 200
    submissions = db.session.scalars(select(Submission).options(selectinload(Submission.team))
                                     .where(Submission.testset_id == ts.id).order_by(Submission.id.desc())).all()
    return render_template("admin/testset.html", ts=ts, form=form, submissions=submissions,
                           action_form=EmptyForm(), phenomena_count=count_phenomena(ts)), status


@bp.post("/testsets/<int:testset_id>/phenomena")
def testset_phenomena(testset_id: int):
    """Sets or replaces the test set's phenomenon tags from an uploaded phenomena.jsonl."""
    ts = testsets_svc.get_testset(testset_id)
    form = EmptyForm()
    upload = request.files.get("file")
    try:
        if not form.validate_on_submit():
            raise ServiceError("invalid_form", "the form expired: reload the page and try again", 400)
        if upload is None or not upload.filename:
            raise ServiceError("no_files", "choose a phenomena.jsonl file", 400)
        raw = upload.read(MAX_PHENOMENA_BYTES + 1)
        if len(raw) > MAX_PHENOMENA_BYTES:
            raise ServiceError("too_large", f"the file is larger than {MAX_PHENOMENA_BYTES // 10**6} MB", 400)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ServiceError("invalid_phenomena", f"{upload.filename}: not valid UTF-8 ({exc})", 400) from None
        n = replace_phenomena(ts, text, upload.filename)
    except ServiceError as exc:
        flash(exc.message, "error")
        submissions = db.session.scalars(select(Submission).where(Submission.testset_id == ts.id)
                                         .order_by(Submission.id.desc())).all()
        return render_template("admin/testset.html", ts=ts, form=SettingsForm(obj=_settings_obj(ts)),
                               submissions=submissions, action_form=EmptyForm(),
                               phenomena_count=count_phenomena(ts)), exc.status
    flash(f"{n} phenomena tagged.", "success")
    return redirect(url_for("admin.testset", testset_id=ts.id))


class _Obj:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def _settings_obj(ts):
    def naive(d):
        return d.replace(tzinfo=None) if d else None

    return _Obj(opens_at=naive(ts.opens_at), deadline=naive(ts.deadline), quota_per_day=ts.quota_per_day,
                quota_total=ts.quota_total, document_level_allowed=ts.document_level_allowed, released=ts.released,
                references_public=ts.references_public, description=ts.description)


@bp.post("/testsets/<int:testset_id>/rescore")
def rescore_testset(testset_id: int):
    ts = testsets_svc.get_testset(testset_id)
    if EmptyForm().validate_on_submit():
        n = subs.rescore_testset(current_user, ts, who="an organizer")
        flash(f"{n} submission{'s' if n != 1 else ''} queued for re-scoring.", "success")
    return redirect(url_for("admin.testset", testset_id=ts.id))


@bp.post("/submissions/<int:submission_id>/rescore")
def rescore(submission_id: int):
    sub = db.session.get(Submission, submission_id)
    if sub is None:
        raise NotFound("submission")
    if EmptyForm().validate_on_submit():
        try:
            subs.rescore(current_user, sub, who="an organizer")
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            flash(f"Submission #{sub.id} queued for re-scoring.", "success")
    return redirect(request.form.get("back") == "testset" and url_for("admin.testset", testset_id=sub.testset_id)
                    or url_for("submissions.detail", submission_id=sub.id))


@bp.post("/sweep")
def sweep_now():
    if EmptyForm().validate_on_submit():
        done = sweep()
        flash(f"Sweeper: {len(done)} submission{'s' if len(done) != 1 else ''} requeued or given up.", "info")
    return redirect(url_for("admin.index"))


def people():
    """Every account but the LLM judges' machine accounts (they cannot log in: the reset rule gives them no
    link, and no role can be set on one; each judge's page manages it)."""
    from ..judges.models import Judge

    return db.session.scalars(select(User).where(User.id.not_in(select(Judge.user_id))).order_by(User.id)).all()


def person(user_id: int) -> User:
    """An account of :func:`people` by id (404 for none, and for a judge's machine account)."""
    from ..judges.models import Judge

    user = db.session.get(User, user_id)
    if user is None or db.session.scalar(select(Judge.id).where(Judge.user_id == user_id).limit(1)) is not None:
        raise NotFound("user")
    return user


def _users_page(status: int = 200, **extra):
    all_users = people()
    teams = db.session.scalars(select(Team).order_by(Team.name)).all()
    return render_template("admin/users.html", users=all_users, teams=teams, action_form=EmptyForm(),
                           role_form=RoleForm(), reset_rule=accounts.RESET_RULE,
                           may_reset=lambda u: accounts.reset_refusal(current_user, u) is None,
                           **{"reset_link": None, **extra}), status


@bp.get("/users")
def users():
    return _users_page()


@bp.post("/users/<int:user_id>/reset-link")
def reset_link(user_id: int):
    user = db.session.get(User, user_id)   # a judge's machine account too: the reset rule refuses it (403)
    if user is None:
        raise NotFound("user")
    if not EmptyForm().validate_on_submit():
        return redirect(url_for("admin.users"))
    try:
        link = url_for("auth.reset", token=accounts.make_reset_token(user, current_user), _external=True)
    except ServiceError as exc:
        flash(exc.message, "error")
        return _users_page(exc.status)
    return _users_page(reset_link=link, reset_user=user)


@bp.post("/teams/<int:team_id>/verify")
def verify_team(team_id: int):
    team = db.session.get(Team, team_id)
    if team is None:
        raise NotFound("team")
    if EmptyForm().validate_on_submit():
        with db.write():
            team = db.session.merge(team)
            team.verified = not team.verified
        flash(f"Team {team.name} is {'verified' if team.verified else 'no longer verified'}.", "success")
    return redirect(url_for("admin.users"))


@bp.post("/users/<int:user_id>/role")
def set_role(user_id: int):
    user = person(user_id)
    form = RoleForm()
    if form.validate_on_submit():
        if user.id == current_user.id:
            flash("You cannot change your own role.", "error")
        elif user.role == "admin" and current_user.role != "admin":
            flash("Only an admin can change an admin's role.", "error")
        elif form.role.data == "admin" and current_user.role != "admin":
            flash("Only an admin can make admins.", "error")
        else:
            with db.write():
                db.session.merge(user).role = form.role.data
            flash(f"{user.email} is now {form.role.data}.", "success")
    return redirect(url_for("admin.users"))

