"""Sphinx configuration of the Enface manual (MyST Markdown pages, API reference from the docstrings).

Screenshots are not committed: they are the real-browser tests' artefacts (tests/artifacts/, git-ignored),
copied here at build time so that the manual always shows the pages as the code draws them today.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from sphinx.util import logging

log = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# The libraries and the platform package, importable for autodoc without an install.
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]

project = "Enface"
author = "the Enface developers"
copyright = "2026, the Enface developers"  # noqa: A001 (the name Sphinx reads)

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
# Each object is documented where it is defined, not again where a package re-exports it.
autodoc_default_options = {"members": True, "undoc-members": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
# Methods inherited from SQLAlchemy, Flask or the standard library keep their docstrings there.
autodoc_inherit_docstrings = False
# Types in the signatures, linked to their exact targets (in "description" mode a short name such as
# TestSet is looked up again and can land on the wrong class).
autodoc_typehints = "signature"
# Heavy optional imports the reference does not need to load.
autodoc_mock_imports = ["comet", "torch", "pytorch_lightning", "lightning"]
nitpicky = False
# Every protocol has modules of the same names (results, imports, exports) and dataclasses share field
# names (Option.type, Question.type): a short name in a signature finds several targets, which is no error
# in the text (the link goes to the first); the warning would stop the -W build for each new protocol.
suppress_warnings = ["ref.python"]

html_theme = "furo"
# The API reference's functions and classes stay out of the sidebar: furo renders the whole tree on every
# page, and with each object in it the build took 3 minutes instead of under 2 (the pages still list them).
toc_object_entries = False
html_title = "Enface"
html_static_path = []

# Every screenshot a page shows, by its name under tests/artifacts/ (the test that takes it is in
# development/docs.md). `make docs` runs those tests when one is missing.
SCREENSHOTS = {
    "e2e-leaderboard.png",          # tests/platform/browser/test_e2e.py
    "e2e-submission.png",
    "mqm-04-marks.png",             # tests/protocols/mqm/test_browser.py
    "mqm-21-dashboard-results.png",
    "mqm-25-leaderboard-mqm.png",
}
SHOTS_DIR = DOCS / "_screenshots"
# The README's screenshot must be committed to show on a forge; each build refreshes it from the same artefact.
README_SHOT = ("e2e-leaderboard.png", DOCS / "images" / "leaderboard.png")


def copy_screenshots(app) -> None:
    source = ROOT / "tests" / "artifacts"
    missing = sorted(name for name in SCREENSHOTS if not (source / name).is_file())
    if missing:   # a warning, so an error under -W, reported with the pages' missing images
        log.warning("the manual's screenshots come from the real-browser tests, and these are missing from "
                    f"{source}: {', '.join(missing)}. Run `make screenshots` (`make docs` runs it when one is "
                    "missing).", type="enface", subtype="screenshots")
    SHOTS_DIR.mkdir(exist_ok=True)
    for name in sorted(set(SCREENSHOTS) - set(missing)):
        shutil.copy2(source / name, SHOTS_DIR / name)
    name, readme_copy = README_SHOT
    if name not in missing and readme_copy.read_bytes() != (source / name).read_bytes():
        shutil.copyfile(source / name, readme_copy)


#: Class attributes that SQLAlchemy's base classes require and document (their docstrings point into
#: SQLAlchemy's own manual).
FOREIGN_ATTRIBUTES = {"cache_ok", "impl", "metadata", "registry", "type_annotation_map"}


def skip_foreign_attributes(app, what, name, obj, skip, options):
    return True if what == "class" and name in FOREIGN_ATTRIBUTES else None


# The pages whose sidebar shows the tree collapsed to the current page's branch: the API reference's
# modules and their highlighted sources. furo renders the whole tree on every page, 590 pages times
# some 340 entries, and that was half of the build; the hand-written pages keep the whole tree.
COLLAPSED_SIDEBAR = ("reference/_generated/", "_modules/")


def collapse_sidebar(app, pagename, templatename, context, doctree) -> None:
    """Before furo's ``html-page-context`` handler: its ``toctree(collapse=False)`` call, collapsed here."""
    toctree = context.get("toctree")
    if toctree is None or not pagename.startswith(COLLAPSED_SIDEBAR):
        return
    context["toctree"] = lambda **kwargs: toctree(**{**kwargs, "collapse": True})


def setup(app):
    app.connect("builder-inited", copy_screenshots)
    app.connect("html-page-context", collapse_sidebar, priority=400)   # furo's handler runs at 500
    app.connect("autodoc-skip-member", skip_foreign_attributes)
