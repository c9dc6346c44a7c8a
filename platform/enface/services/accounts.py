"""Users, teams and API tokens."""

from __future__ import annotations

import re
import secrets

from flask import current_app
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from ..extensions import db
from ..models import LINK_ACCOUNT_DOMAIN, ROLES, ApiToken, Team, User, utcnow
from . import NotFound, ServiceError, is_ascii_int

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MIN_PASSWORD = 10
RESET_MAX_AGE = 3 * 24 * 3600
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def normalize_email(email: str) -> str:
    return (email or "").strip().lower()


def check_text(value: str, field: str, *, max_len: int, required: bool = True, multiline: bool = False) -> str:
    """Strip a user-supplied string and refuse control characters and oversize values."""
    value = (value or "").strip()
    if required and not value:
        raise ServiceError("invalid_field", f"{field} is required", 400, {"field": field})
    if len(value) > max_len:
        raise ServiceError("invalid_field", f"{field} is longer than {max_len} characters", 400, {"field": field})
    probe = value.replace("\r\n", "\n").replace("\n", "").replace("\t", "") if multiline else value
    if _CONTROL.search(probe):
        raise ServiceError("invalid_field", f"{field} contains control characters", 400, {"field": field})
    return value


def check_password_strength(password: str) -> None:
    if len(password or "") < MIN_PASSWORD:
        raise ServiceError("weak_password", f"the password must have at least {MIN_PASSWORD} characters", 400,
                           {"field": "password"})
    if len(password) > 1024:
        raise ServiceError("invalid_field", "the password is too long", 400, {"field": "password"})


def get_user_by_email(email: str) -> User | None:
    return db.session.scalar(select(User).where(User.email == normalize_email(email)))


def create_user(email: str, password: str, *, role: str = "participant", name: str = "",
                check_strength: bool = True) -> User:
    email = normalize_email(email)
    if not EMAIL_RE.match(email) or len(email) > 254 or email.endswith("@" + LINK_ACCOUNT_DOMAIN):
        raise ServiceError("invalid_email", "enter a valid e-mail address", 400, {"field": "email"})
    if role not in ROLES:
        raise ServiceError("invalid_role", f"role must be one of {', '.join(ROLES)}", 400, {"field": "role"})
    if check_strength:
        check_password_strength(password)
    name = check_text(name, "name", max_len=100, required=False)
    user = User(email=email, name=name, role=role)
    user.set_password(password)
    with db.write():
        db.session.add(user)
        try:
            db.session.flush()
        except IntegrityError:
            raise ServiceError("email_taken", "an account with this e-mail address exists; log in or reset "
                               "the password", 409, {"field": "email"}) from None
    return user


def authenticate(email: str, password: str) -> User | None:
    user = get_user_by_email(email)
    if user is None:
        # Same work as a real check, so that timing does not tell which addresses exist.
        from werkzeug.security import check_password_hash

        check_password_hash(_dummy_hash(), password or "")
        return None
    if not user.active or not user.check_password(password or ""):
        return None
    with db.write():
        db.session.execute(update(User).where(User.id == user.id).values(last_login_at=utcnow()))
    return user


_DUMMY: dict[str, str] = {}


def _dummy_hash() -> str:
    from werkzeug.security import generate_password_hash

    from ..models import password_method

    method = password_method()
    if method not in _DUMMY:
        _DUMMY[method] = generate_password_hash(secrets.token_hex(8), method=method)
    return _DUMMY[method]


def change_password(user: User, current: str, new: str) -> None:
    if not user.check_password(current or ""):
        raise ServiceError("wrong_password", "the current password is wrong", 400, {"field": "current_password"})
    set_password(user, new)


def set_password(user: User, new: str) -> None:
    check_password_strength(new)
    with db.write():
        user = db.session.merge(user)
        user.set_password(new)   # also renews the session nonce: other sessions are logged out


def end_sessions(user: User) -> None:
    """Logs the account out everywhere: a new session nonce makes every saved session and remember cookie
    (they carry the old one) unusable, server-side."""
    with db.write():
        db.session.execute(update(User).where(User.id == user.id).values(session_nonce=secrets.token_hex(8)))


def load_user_from_session(user_id: str) -> User | None:
    uid, _, nonce = (user_id or "").partition(".")
    if not is_ascii_int(uid):
        return None
    user = db.session.get(User, int(uid))
    if user is None or not user.active or not secrets.compare_digest(user.session_nonce, nonce):
        return None
    return user


# --------------------------------------------------------------------------- password reset links


def _reset_serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="enface-password-reset")


#: who may make a reset link for whom: a link lets whoever holds it log in as that account, so nobody may
#: take one for an account with more rights than they have. Admins: anyone; organizers: participants and
#: annotators (not another organizer, not an admin). Inactive accounts (an LLM judge's machine account, a
#: closed account) take none: they cannot log in.
RESET_RULE = ("An admin may make a reset link for any active account; an organizer only for participants and "
              "annotators (an organizer's or an admin's account needs an admin). Inactive accounts, such as an "
              "LLM judge's machine account, take no reset link.")
RESETTABLE_BY = {"admin": frozenset(ROLES), "organizer": frozenset({"participant", "annotator"})}


def reset_refusal(actor: User | None, target: User) -> str | None:
    """Why ``actor`` may not make a reset link for ``target`` (None: they may); see :data:`RESET_RULE`.
    ``actor`` None is the operator on the command line, who holds the secret key anyway."""
    if not target.active:
        return f"{target.email} is an inactive account (an LLM judge's, or closed): it takes no reset link"
    if actor is not None and target.role not in RESETTABLE_BY.get(actor.role, frozenset()):
        if target.role == "admin":
            return "only an admin can make a reset link for an admin"
        return f"only an admin can make a reset link for an {target.role}" if target.role == "organizer" \
            else "you may not make reset links"
    return None


def make_reset_token(user: User, actor: User | None) -> str:
    """A reset link token for ``user`` made by ``actor`` (refused by :func:`reset_refusal` with a 403), valid
    for three days and only until the password (or nonce) changes."""
    refusal = reset_refusal(actor, user)
    if refusal:
        raise ServiceError("reset_refused", refusal, 403)
    return _reset_serializer().dumps({"u": user.id, "n": user.session_nonce})


def user_from_reset_token(token: str) -> User:
    try:
        data = _reset_serializer().loads(token, max_age=RESET_MAX_AGE)
    except SignatureExpired:
        raise ServiceError("link_expired", "this reset link has expired; ask an organizer for a new one") from None
    except BadSignature:
        raise ServiceError("bad_link", "this reset link is not valid") from None
    user = db.session.get(User, data.get("u")) if isinstance(data, dict) else None
    if user is None or user.session_nonce != data.get("n"):
        raise ServiceError("bad_link", "this reset link has been used or replaced")
    if not user.active:
        raise ServiceError("bad_link", "this account is inactive: it takes no reset link")
    return user


# --------------------------------------------------------------------------- teams


def create_team(user: User, name: str, affiliation: str = "") -> Team:
    name = check_text(name, "team name", max_len=100)
    affiliation = check_text(affiliation, "affiliation", max_len=200, required=False)
    if user.team_id is not None:
        raise ServiceError("already_in_team", "you are already in a team", 409)
    with db.write():
        if db.session.scalar(select(Team.id).where(func.lower(Team.name) == name.lower())) is not None:
            raise ServiceError("team_name_taken", f"a team called {name!r} exists; choose another name, or ask "
                               "its captain for the invite code", 409, {"field": "name"})
        team = Team(name=name, affiliation=affiliation, invite_code=Team.new_invite_code())
        db.session.add(team)
        db.session.flush()
        _enter_team(user, team, "captain")
    db.session.refresh(user)
    return team


def _enter_team(user: User, team: Team, role: str) -> None:
    """Inside a write: put a user without a team into ``team`` (a compare-and-set, so two requests can't both)."""
    n = db.session.execute(update(User).where(User.id == user.id, User.team_id.is_(None))
                           .values(team_id=team.id, team_role=role)).rowcount
    if n != 1:
        raise ServiceError("already_in_team", "you are already in a team", 409)


def join_team(user: User, invite_code: str) -> Team:
    code = (invite_code or "").strip()
    team = db.session.scalar(select(Team).where(Team.invite_code == code)) if code else None
    if team is None:
        raise ServiceError("bad_invite_code", "no team has this invite code; ask your captain for it", 400,
                           {"field": "invite_code"})
    with db.write():
        _enter_team(user, team, "member")
    db.session.refresh(user)
    return team


def renew_invite_code(team: Team) -> str:
    with db.write():
        team = db.session.merge(team)
        team.invite_code = Team.new_invite_code()
    return team.invite_code


def get_or_create_team(name: str) -> tuple[Team, bool]:
    team = db.session.scalar(select(Team).where(func.lower(Team.name) == name.strip().lower()))
    if team is not None:
        return team, False
    with db.write():
        team = Team(name=check_text(name, "team name", max_len=100), invite_code=Team.new_invite_code())
        db.session.add(team)
    return team, True


def add_to_team(user: User, team: Team, role: str = "member") -> None:
    with db.write():
        db.session.execute(update(User).where(User.id == user.id).values(team_id=team.id, team_role=role))
    db.session.refresh(user)


# --------------------------------------------------------------------------- API tokens


def issue_token(user: User, name: str = "") -> tuple[ApiToken, str]:
    name = check_text(name, "token name", max_len=100, required=False)
    with db.write():
        token, secret = ApiToken.issue(db.session.merge(user), name)
        db.session.add(token)
    return token, secret


def revoke_token(user: User, token_id: int) -> None:
    with db.write():
        token = db.session.get(ApiToken, token_id)
        if token is None or token.user_id != user.id:
            raise NotFound("token")
        if token.revoked_at is None:
            token.revoked_at = utcnow()


def user_from_token(secret: str) -> User | None:
    if not secret or len(secret) > 200:
        return None
    token = db.session.scalar(select(ApiToken).where(ApiToken.token_hash == ApiToken.hash(secret)))
    if token is None or token.revoked_at is not None or not token.user.active:
        return None
    now = utcnow()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        with db.write():
            db.session.execute(update(ApiToken).where(ApiToken.id == token.id).values(last_used_at=now))
    return token.user
