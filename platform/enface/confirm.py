"""A second step before an action that is hard to take back (withdraw, make primary, start, release).

The button posts to the action; without ``confirmed=yes`` the view answers with a page that says
what will happen and posts again with it. The action's URL answers a GET with that page too (a
reload of the confirmation page, a bookmark), never with a 405. No JavaScript is needed, and scripts use the API (which
has no confirmation step) rather than these forms.
"""

from __future__ import annotations

from flask import render_template, request


def confirmed() -> bool:
    """Whether this POST carries the confirmation from the page that ``ask`` renders. A GET never does:
    reloading (or opening) a confirmation page's URL shows the confirmation again, and acts on nothing."""
    return request.method == "POST" and request.form.get("confirmed") == "yes"


def ask(*, title: str, message: str, button: str, cancel: str, danger: bool = False,
        details: list[str] | None = None, fields: dict[str, str] | None = None, disabled: str | None = None):
    """The confirmation page for the current POST: the same URL again, with ``confirmed=yes``.

    ``disabled``: a sentence saying why the action cannot be taken now (the button is then disabled).
    """
    keep = {k: v for k, v in request.form.items() if k not in ("csrf_token", "confirmed")}
    keep.update(fields or {})
    return render_template("confirm.html", title=title, message=message, button=button, cancel=cancel,
                           danger=danger, details=details or [], fields=keep, action=request.path,
                           disabled=disabled)
