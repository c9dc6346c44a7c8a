"""Finding the installed protocols: the ``enface.protocols`` entry-point group (like pytest's plug-ins).

A protocol is a distribution that declares, in its metadata, an entry point of the
group ``enface.protocols`` whose name is the protocol's key and whose value is its
:class:`~enface.campaigns.protocol.Protocol` object (or class, or a module with a
``PROTOCOL``). Enface's own protocols are declared the same way in ``pyproject.toml``;
a third-party one is one ``pip install``. Loading an entry point imports the protocol's
module, which imports its own tables (there is no compulsory ``models.py``).
"""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType

from .protocol import PROTOCOLS, Protocol, register
from .protocol import default_protocol as _first

GROUP = "enface.protocols"


class ProtocolsMissing(RuntimeError):
    """No protocol is declared in the installed metadata: the install is stale or incomplete."""


def _protocol_object(ep: EntryPoint) -> Protocol:
    obj = ep.load()
    if isinstance(obj, ModuleType):
        obj = getattr(obj, "PROTOCOL", None)
    if isinstance(obj, type) and issubclass(obj, Protocol):
        obj = obj()
    if not isinstance(obj, Protocol):
        raise TypeError(f"the entry point {ep.name} = {ep.value!r} of the group {GROUP} is not a Protocol "
                        f"(a Protocol object, a subclass, or a module with PROTOCOL)")
    if obj.key != ep.name:
        raise ValueError(f"the entry point {ep.name} = {ep.value!r} gives the protocol {obj.key!r}: "
                         f"an entry point's name is its protocol's key")
    return obj


_declared_cache: tuple = (None, ())


def _declared() -> tuple[EntryPoint, ...]:
    """The group's entry points by name, read again only when the import path changes: reading every
    installed distribution's metadata costs ~25 ms, and every ``create_app`` asks (the tests build
    thousands of apps)."""
    global _declared_cache
    source = (entry_points, tuple(sys.path))   # (a test may replace entry_points, or put a plug-in on the path)
    cached_source, found = _declared_cache
    if cached_source != source or not found:
        found = tuple(sorted(entry_points(group=GROUP), key=lambda e: e.name))
        _declared_cache = (source, found)
    return found


def load_protocols() -> dict[str, Protocol]:
    """Imports and registers every installed protocol; the registry (:data:`PROTOCOLS`).

    Raises :class:`ProtocolsMissing` when the metadata declares none: the package was
    installed before the entry points existed (or not at all), and ``make install``
    (``pip install -e .``) writes them.
    """
    found = _declared()
    if not found:
        raise ProtocolsMissing(f"no human-evaluation protocol is installed: the package metadata declares no "
                               f"entry point in the group {GROUP!r} (stale install metadata). Run `make install` "
                               f"(or `pip install -e .` in the repository) to write it.")
    seen: set[str] = set()
    for ep in found:
        if ep.name in seen:   # the same distribution seen twice on sys.path: the first one counts
            continue
        seen.add(ep.name)
        if ep.name not in PROTOCOLS:
            register(_protocol_object(ep))
    return PROTOCOLS


def default_protocol() -> Protocol:
    """The protocol the pages and the CLI offer first (the lowest :attr:`Protocol.order`)."""
    load_protocols()
    return _first()


def template_folders() -> list[str]:
    """Each protocol's own ``templates/`` folder (beside its module): found by the app's template loader,
    so that a protocol carries its pages and partials without a blueprint."""
    folders = []
    for protocol in PROTOCOLS.values():
        folder = protocol.folder() / "templates"
        if folder.is_dir():
            folders.append(str(folder))
    return folders


def init_app(app) -> None:
    """Loads the protocols, mounts their blueprints and adds their template folders to the app's loader."""
    from jinja2 import ChoiceLoader, FileSystemLoader

    load_protocols()
    for protocol in PROTOCOLS.values():
        if protocol.blueprint is not None and protocol.blueprint.name not in app.blueprints:
            app.register_blueprint(protocol.blueprint)
    folders = [f for f in template_folders() if Path(f).is_dir()]
    if folders:
        app.jinja_loader = ChoiceLoader([app.jinja_loader, FileSystemLoader(folders)])
