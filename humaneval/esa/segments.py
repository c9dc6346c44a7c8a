"""Which segment a row of an Appraise export is, so that ratings can be matched across rows.

Appraise's item id is the row's position in the annotator's queue, not a segment id.
A segment is identified by its document and its position in that document: within
one annotator's copy of a document, the distinct item ids in increasing order are
the document's segments 0, 1, 2, ... The document id is ``<document>#<system>``,
optionally followed by ``#bad<n>`` (the attention-check copy) or ``#duplicate<n>``
(a repeated copy); :func:`source_document` strips those.

* :func:`segment_key` ``(document, position)``: the same translation (system) of the
  same source segment: what two annotators share when they rate the same item.
* :func:`source_key` ``(source document, position)``: the same source segment in any
  system: the unit a paired test between systems compares on.

An annotator who submitted an item twice has two rows with one item id: both get
the same key, and :func:`latest` keeps the later submission.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from .appraise import ScoreRow

_SUFFIX = re.compile(r"#(?:bad|duplicate)\d*$")


def _item_order(item: str) -> tuple[int, int | str]:
    return (0, int(item)) if item.isascii() and item.isdecimal() else (1, item)


def base_document(document: str) -> str:
    """The document id without Appraise's ``#bad<n>`` / ``#duplicate<n>`` suffixes (``doc#SYS#bad2`` -> ``doc#SYS``)."""
    while _SUFFIX.search(document):
        document = _SUFFIX.sub("", document)
    return document


def source_document(document: str) -> str:
    """The source document: the base document without its ``#<system>`` part (``doc#SYS`` -> ``doc``)."""
    base = base_document(document)
    return base.rsplit("#", 1)[0] if "#" in base else base


def positions(rows: Sequence[ScoreRow]) -> list[int]:
    """Each row's position in its annotator's copy of its document (see the module's doc)."""
    items: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in rows:
        items[(row.annotator, row.document)].add(row.item)
    rank = {key: {item: i for i, item in enumerate(sorted(ids, key=_item_order))} for key, ids in items.items()}
    return [rank[(row.annotator, row.document)][row.item] for row in rows]


def segment_keys(rows: Sequence[ScoreRow]) -> list[tuple[str, int]]:
    """``(base document, position)`` per row: one key for one system's translation of one source segment."""
    return [(base_document(r.document), p) for r, p in zip(rows, positions(rows), strict=True)]


def source_keys(rows: Sequence[ScoreRow]) -> list[tuple[str, int]]:
    """``(source document, position)`` per row: one key for one source segment, whatever the system."""
    return [(source_document(r.document), p) for r, p in zip(rows, positions(rows), strict=True)]


def latest(rows: Iterable[ScoreRow]) -> list[ScoreRow]:
    """The rows without re-submissions: of rows with one annotator, document and item id, the last ended."""
    keep: dict[tuple[str, str, str], ScoreRow] = {}
    for row in rows:
        key = (row.annotator, row.document, row.item)
        if key not in keep or row.end_time >= keep[key].end_time:
            keep[key] = row
    return list(keep.values())
