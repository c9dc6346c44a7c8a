"""Where the files the package ships live: found with :mod:`importlib.resources`, never through a checkout.

The repository keeps them at its top level (``templates/``, ``migrations/``, ``data/demo/``);
``platform/enface/templates``, ``migrations`` and ``demo`` are symbolic links to those folders, so a
checkout (editable install or ``PYTHONPATH=platform``) and an installed wheel (where the build copied
them into the package as package data, see ``[tool.setuptools.package-data]``) read them the same way.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["demo_dir", "migrations_dir", "package_dir", "templates_dir"]


def package_dir(name: str) -> Path:
    """The folder ``name`` inside the installed ``enface`` package, as a file-system path.

    Flask's template loader and Alembic read folders on disk, so a package that is not unpacked
    on disk (a zip import) is refused with a sentence rather than half working."""
    resource = files("enface").joinpath(name)
    if not isinstance(resource, Path):
        raise RuntimeError(f"enface's {name}/ is not a folder on disk ({resource!r}): install the package "
                           "unpacked (pip install), not as a zip")
    if not resource.is_dir():
        raise RuntimeError(f"enface's {name}/ is missing from the installed package ({resource}): "
                           "reinstall it (pip install --force-reinstall enface)")
    return resource


def templates_dir() -> Path:
    """The core's Jinja templates (the protocols keep theirs in ``enface/protocols/<name>/templates``)."""
    return package_dir("templates")


def migrations_dir() -> Path:
    """The Alembic migrations (``env.py``, ``versions/``)."""
    return package_dir("migrations")


def demo_dir() -> Path:
    """The demo task that ``enface demo`` imports: a test set, systems, MQM annotations and phenomena."""
    return package_dir("demo")
