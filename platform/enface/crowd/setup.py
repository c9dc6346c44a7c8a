"""A campaign's crowd setup: its welcome form, its tutorial and its completion codes, checked and stored."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

from flask import g
from sqlalchemy import func, select

from ..campaigns.models import Campaign
from ..campaigns.services import bad, number
from ..extensions import db
from ..models import utcnow
from . import tutorial as tut
from . import welcome
from .models import CrowdAnswer, CrowdSetup

CODE_RE = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
PLACEHOLDER = "${CODE}"
DEFAULT_THRESHOLD = 0.8


def setup_of(campaign_id: int) -> CrowdSetup | None:
    """The campaign's setup (read once per request: every gated save asks)."""
    cache = g.setdefault("_crowd_setups", {})
    if campaign_id not in cache:
        cache[campaign_id] = db.session.get(CrowdSetup, campaign_id)
    return cache[campaign_id]


def check_codes(pass_code: str | None, fail_code: str | None = None, threshold: Any = None,
                redirect: str | None = None) -> dict[str, Any] | None:
    """Completion codes: the pass code (required when any is given), an optional fail code, the threshold
    (share of checks right, 0-1 or a percentage), an optional redirect URL template with ``${CODE}``."""
    pass_code, fail_code, redirect = (pass_code or "").strip(), (fail_code or "").strip(), (redirect or "").strip()
    if not (pass_code or fail_code or redirect):
        return None
    for name, code in (("pass code", pass_code), ("fail code", fail_code)):
        if code and not CODE_RE.match(code):
            raise bad("invalid_field", f"the {name} is 1 to 100 letters, digits, _ or -", field=name.replace(" ", "_"))
    if not pass_code:
        raise bad("invalid_field", "a pass code is needed (the fail code is optional)", field="pass_code")
    if fail_code == pass_code:
        raise bad("invalid_field", "the fail code must differ from the pass code", field="fail_code")
    share = DEFAULT_THRESHOLD if threshold in (None, "") else number(threshold, "threshold", 0.0, 1.0)
    if redirect:
        parts = urlsplit(redirect)
        if parts.scheme not in ("https", "http") or not parts.netloc or len(redirect) > 500 or any(
                c.isspace() for c in redirect):
            raise bad("invalid_field", "the redirect must be an http(s) address such as "
                      "https://app.prolific.com/submissions/complete?cc=${CODE}", field="redirect")
        if redirect.count("$") != redirect.count(PLACEHOLDER):
            raise bad("invalid_field", "the only placeholder a redirect may hold is ${CODE}", field="redirect")
    return {"pass": pass_code, "fail": fail_code or None, "threshold": share, "redirect": redirect or None}


def redirect_url(codes: dict[str, Any], code: str) -> str | None:
    template = codes.get("redirect")
    return template.replace(PLACEHOLDER, quote(code, safe="")) if template else None


def save_setup(campaign: Campaign, *, welcome_text: str | None = None, tutorial_text: str | None = None,
               codes: dict[str, Any] | None | bool = False, clear: tuple[str, ...] = ()) -> CrowdSetup:
    """Stores what is given (``None``/``False``: keep what is there; names in ``clear``: remove it).

    A welcome form or a tutorial that someone has answered is fixed (409): the answers are keyed by its
    questions and items. Completion codes may change until the first code is given.
    """
    form = welcome.load_form(welcome_text).to_json() if welcome_text else None
    tutorial = tut.load_tutorial(campaign, tutorial_text) if tutorial_text else None
    current = db.session.get(CrowdSetup, campaign.id)
    if codes is not False and (current.codes if current else None) == codes:
        codes = False           # (the page sends the codes with every save: unchanged ones change nothing)
    for name, changed in (("welcome", form is not None or "welcome" in clear),
                          ("tutorial", tutorial is not None or "tutorial" in clear),
                          ("completion", codes is not False or "codes" in clear)):
        answered = changed and db.session.scalar(select(func.count(CrowdAnswer.id)).where(
            CrowdAnswer.campaign_id == campaign.id, CrowdAnswer.kind == name))
        if answered:
            what = {"welcome": "the welcome form", "tutorial": "the tutorial", "completion": "the completion codes"}[name]
            raise bad("crowd_answered", f"{what} cannot change: {answered} annotator(s) already "
                      f"{'got a code' if name == 'completion' else 'answered it'}", 409, field=name)
    with db.write():
        setup = db.session.get(CrowdSetup, campaign.id)
        if setup is None:
            setup = CrowdSetup(campaign_id=campaign.id)
            db.session.add(setup)
        for name in clear:
            if name not in ("welcome", "tutorial", "codes"):
                raise bad("invalid_field", f"cannot clear {name!r}", field="clear")
            setattr(setup, name, None)
        if form is not None:
            setup.welcome = form
        if tutorial is not None:
            setup.tutorial = tutorial
        if codes is not False:
            setup.codes = codes
        setup.updated_at = utcnow()
    g.pop("_crowd_setups", None)
    return setup
