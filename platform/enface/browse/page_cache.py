"""Rendered browser pages kept per process for anonymous visitors, until the test set's scores change.

What a public browser page shows changes only with ``TestSet.scores_version`` (raised by every new
score, withdrawal, freeze, unfreeze, settings change, release of the test set or of a campaign; the
texts never change), so an anonymous GET is answered from here when its address and the versions its
leaderboard is built for match. Logged-in users are
never served from it (the page names them), nor is a visitor with a flash message waiting.
"""

from __future__ import annotations

from functools import wraps

from flask import current_app, request, session
from flask_login import current_user

from ..services import leaderboard as lb
from .lru import app_cache


def cached_page(view):
    @wraps(view)
    def wrapper(testset_id: int, *args, **kwargs):
        if (getattr(current_user, "is_authenticated", False) or "_flashes" in session
                or not current_app.config.get("LEADERBOARD_CACHE", True)):
            return view(testset_id, *args, **kwargs)
        # The key is the version the view's leaderboard is built for (lb.current_versions, which another
        # process's change reaches within lb.VERSION_CHECK_SECONDS), not the database's newest: keyed by
        # the newest, a page rendered from a leaderboard still cached under the old version was kept as new.
        versions = lb.current_versions(testset_id)
        if versions is None:
            return view(testset_id, *args, **kwargs)      # (the view says 404)
        pages = app_cache("pages", 256)
        key = (request.full_path, versions)
        hit = pages.get(key)
        if hit is not None:
            return hit
        page = view(testset_id, *args, **kwargs)
        if isinstance(page, str):
            pages.put(key, page)
        return page
    return wrapper
