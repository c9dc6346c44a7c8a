from urllib.parse import urlsplit

from flask import current_app, flash, make_response, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user, logout_user

from ..extensions import limiter
from ..services import ServiceError, accounts, login_throttle
from ..services.testsets import example_testsets
from . import bp
from .forms import EmptyForm, LoginForm, PasswordForm, RegisterForm, ResetForm, TokenForm


def _login_limit() -> str:
    return current_app.config["LOGIN_RATE_LIMIT"]


def _register_limit() -> str:
    return current_app.config["REGISTER_RATE_LIMIT"]


def home_url(user) -> str:
    """Where a user lands: an annotator-only account on its items, everyone else on the test sets."""
    if user is not None and getattr(user, "is_annotator_only", False):
        return url_for("annotate.index")
    return url_for("submissions.index")


def _safe_next(target: str | None, default: str | None = None) -> str:
    """Only same-site relative paths: no open redirect."""
    default = default or url_for("submissions.index")
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    return target


@bp.route("/login", methods=["GET", "POST"])
def login():
    # Failed logins are throttled per account, address and browser (services/login_throttle.py), not by
    # Flask-Limiter per address: that would let anyone behind the same address lock a user out.
    if current_user.is_authenticated:
        return redirect(home_url(current_user))
    form = LoginForm()
    if form.validate_on_submit():
        refusal = login_throttle.check(form.email.data)
        if refusal is not None:
            flash(refusal.message, "error")
            resp = make_response(render_template("auth/login.html", form=form), 429)
            resp.headers["Retry-After"] = str(refusal.retry_after)
            return resp
        user = accounts.authenticate(form.email.data, form.password.data)
        if user is None:
            login_throttle.failed(form.email.data)
            flash("Wrong e-mail or password.", "error")
        else:
            login_user(user, remember=form.remember.data)
            resp = redirect(_safe_next(request.args.get("next"), home_url(user)))
            login_throttle.set_device_cookie(resp, user)
            return resp
    return render_template("auth/login.html", form=form)


@bp.route("/register", methods=["GET", "POST"])
@limiter.limit(_register_limit, methods=["POST"])
def register():
    if current_user.is_authenticated:
        return redirect(url_for("submissions.index"))
    form = RegisterForm()
    if form.validate_on_submit():
        try:
            user = accounts.create_user(form.email.data, form.password.data, name=form.name.data or "")
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            login_user(user)
            flash("Welcome! Create a team, or join one with the invite code your captain gives you.", "success")
            return redirect(url_for("teams.index"))
    return render_template("auth/register.html", form=form)


@bp.post("/logout")
def logout():
    form = EmptyForm()
    if form.validate_on_submit():
        if current_user.is_authenticated:
            accounts.end_sessions(current_user)   # a copy of the cookie no longer works either
        logout_user()
        flash("You are logged out.", "info")
    return redirect(url_for("submissions.index"))


@bp.route("/password", methods=["GET", "POST"])
@login_required
def password():
    form = PasswordForm()
    if form.validate_on_submit():
        try:
            accounts.change_password(current_user, form.current_password.data, form.password.data)
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            login_user(accounts.get_user_by_email(current_user.email))   # the new session nonce
            flash("Password changed. Other sessions are logged out.", "success")
            return redirect(home_url(current_user))
    return render_template("auth/password.html", form=form)


@bp.route("/reset/<token>", methods=["GET", "POST"])
@limiter.limit(_login_limit, methods=["POST"])
def reset(token: str):
    user = accounts.user_from_reset_token(token)
    form = ResetForm()
    if form.validate_on_submit():
        try:
            accounts.set_password(user, form.password.data)
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            flash("Password set. Log in with it.", "success")
            return redirect(url_for("auth.login"))
    return render_template("auth/reset.html", form=form, user=user)


@bp.route("/forgot")
def forgot():
    return render_template("auth/forgot.html")


@bp.route("/tokens", methods=["GET", "POST"])
@login_required
def tokens():
    form = TokenForm()
    secret = None
    if form.validate_on_submit():
        try:
            _token, secret = accounts.issue_token(current_user, form.name.data or "")
        except ServiceError as exc:
            flash(exc.message, "error")
        else:
            form = TokenForm(formdata=None)
    resp = make_response(render_template("auth/tokens.html", form=form, secret=secret, revoke_form=EmptyForm(),
                                         tokens=list(reversed(current_user.tokens)),
                                         examples=example_testsets(current_user)))
    resp.headers["Cache-Control"] = "no-store"   # the page may hold a new secret
    return resp


@bp.post("/tokens/<int:token_id>/revoke")
@login_required
def revoke(token_id: int):
    if EmptyForm().validate_on_submit():
        accounts.revoke_token(current_user, token_id)
        flash("Token revoked: it no longer works.", "success")
    return redirect(url_for("auth.tokens"))
