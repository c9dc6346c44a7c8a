"""Short addresses people type: ``/login``, ``/register``, ``/leaderboards``, ``/tokens``.

Each answers a permanent redirect to the page it means, keeping the query string (``/login?next=...``).
"""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for

bp = Blueprint("shortcuts", __name__)

#: typed path -> endpoint of the page it means
SHORTCUTS = {"/login": "auth.login", "/register": "auth.register", "/leaderboards": "leaderboard.index",
             "/tokens": "auth.tokens"}


def _redirect_to(endpoint: str):
    def view():
        target = url_for(endpoint)
        query = request.query_string.decode("latin-1")
        return redirect(f"{target}?{query}" if query else target, code=301)

    view.__name__ = f"to_{endpoint.replace('.', '_')}"
    return view


for _path, _endpoint in SHORTCUTS.items():
    bp.add_url_rule(_path, view_func=_redirect_to(_endpoint), methods=["GET"])
