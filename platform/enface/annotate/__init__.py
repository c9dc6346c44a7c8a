"""The annotator's side of MQM campaigns: their items, the annotation page and its JSON API.

Blind by construction: every page and response here is built from
:func:`enface.campaigns.services.item_state`, which holds no system, team or
submission; items are reached by an opaque id and numbered per annotator.
"""

from flask import Blueprint

bp = Blueprint("annotate", __name__)

from . import views  # noqa: E402,F401
