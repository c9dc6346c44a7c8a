"""The meta-evaluation page of a test set: every stored metric against every released human evaluation."""

from flask import Blueprint

bp = Blueprint("metaeval", __name__)

from . import views  # noqa: E402,F401
