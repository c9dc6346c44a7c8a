from flask import abort, flash, redirect, render_template, url_for
from flask_login import current_user, login_required
from wtforms import StringField
from wtforms.validators import DataRequired, Length

from ..auth.forms import EmptyForm
from ..forms import Form
from ..services import ServiceError, accounts
from . import bp


class CreateTeamForm(Form):
    name = StringField("Team name", validators=[DataRequired(), Length(max=100)])
    affiliation = StringField("Affiliation (optional)", validators=[Length(max=200)])


class JoinTeamForm(Form):
    invite_code = StringField("Invite code", validators=[DataRequired(), Length(max=64)])


@bp.route("/", methods=["GET"])
@login_required
def index():
    return render_template("teams/index.html", team=current_user.team, create_form=CreateTeamForm(prefix="create"),
                           join_form=JoinTeamForm(prefix="join"), renew_form=EmptyForm())


@bp.post("/create")
@login_required
def create():
    form = CreateTeamForm(prefix="create")
    if form.validate_on_submit():
        try:
            team = accounts.create_team(current_user, form.name.data, form.affiliation.data or "")
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            flash(f"Team {team.name} created. Share the invite code with your team mates.", "success")
    else:
        flash("Give the team a name.", "error")
    return redirect(url_for("teams.index"))


@bp.post("/join")
@login_required
def join():
    form = JoinTeamForm(prefix="join")
    if form.validate_on_submit():
        try:
            team = accounts.join_team(current_user, form.invite_code.data)
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            flash(f"You joined {team.name}.", "success")
    else:
        flash("Enter the invite code.", "error")
    return redirect(url_for("teams.index"))


@bp.post("/invite-code")
@login_required
def renew_code():
    team = current_user.team
    if team is None or current_user.team_role != "captain":
        abort(403)
    if EmptyForm().validate_on_submit():
        accounts.renew_invite_code(team)
        flash("New invite code made; the old one no longer works.", "success")
    return redirect(url_for("teams.index"))
