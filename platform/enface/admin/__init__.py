"""Organizer pages: import test sets, deadlines, quotas, visibility, release, re-scoring, users."""

from flask import Blueprint, abort
from flask_login import current_user

bp = Blueprint("admin", __name__)


@bp.before_request
def _organizers_only():
    if not current_user.is_authenticated:
        from ..extensions import login_manager

        return login_manager.unauthorized()
    if not current_user.is_organizer:
        abort(404)   # the organizer pages are not advertised to others


from . import testset_views, views  # noqa: E402,F401
