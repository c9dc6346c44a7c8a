"""The annotator's side of the campaign core: their items, every protocol's item page, and the JSON API.

Blind by construction: pages and responses are built from the protocol's
``item_state``, which holds no system, team or submission; items are reached by
an opaque id and numbered per annotator.
"""

from flask import Blueprint

bp = Blueprint("annotate", __name__)

from . import views  # noqa: E402,F401
