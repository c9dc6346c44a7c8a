"""A campaign's downloads: its protocol's export table and the files the core adds for every protocol.

A core feature (the crowd package: welcome forms, tutorials, completion codes) registers a provider,
``provider(campaign, public=...) -> {format: Export}``, when the app is created; the core names no
feature and no protocol. ``public`` asks for what anyone may read (the release bundle, the public
export of a released campaign): pseudonymous raters only. The organizer's downloads (the dashboard,
``enface campaign export``) ask with ``public=False``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .contract import Export
from .protocol import export_table, protocol_of

if TYPE_CHECKING:
    from .models import Campaign

Provider = Callable[..., dict[str, Export]]
PROVIDERS: list[Provider] = []


def register_exports(provider: Provider) -> None:
    if provider not in PROVIDERS:
        PROVIDERS.append(provider)


def core_exports(campaign: Campaign, *, public: bool) -> dict[str, Export]:
    """The core's files of this campaign (none for a campaign that uses no such feature)."""
    out: dict[str, Export] = {}
    for provider in PROVIDERS:
        out.update(provider(campaign, public=public))
    return out


def campaign_exports(campaign: Campaign, *, public: bool) -> dict[str, Export]:
    """The protocol's formats (first: its default), then the core's; a format named twice is a bug of the
    protocol (the core's are ``crowd.csv`` and the like), refused with a sentence rather than shadowed."""
    protocol = protocol_of(campaign)
    table = dict(export_table(protocol))
    for fmt, export in core_exports(campaign, public=public).items():
        if fmt in table or any(e.extension == export.extension for e in table.values()):
            raise TypeError(f"the {protocol.key} protocol's export {fmt!r} clashes with the core's file of that name")
        table[fmt] = export
    return table
