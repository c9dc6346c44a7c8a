"""The output browser and the data release: documents en face, diffs, human-evaluation evidence, downloads."""

from flask import Blueprint

bp = Blueprint("browse", __name__)

from . import release_views, views  # noqa: E402,F401  (routes)
