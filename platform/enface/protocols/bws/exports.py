"""A BWS campaign's exports: JSON Lines (one record per judgment), CSV, and the library's JUDGMENTS.csv.

The CSV has the columns ``python -m humaneval bws`` reads (``item``, ``annotator``, ``versions``,
``best``, ``worst``) and more it ignores; ``judgments`` is exactly those five. A version name
holding the separator ``|`` is written with ``¦`` instead, so that the tuple still splits right.
"""

from __future__ import annotations

import io
import json

from humaneval.bws.judgments import COLUMNS, SEPARATOR
from scoring import csvsafe

from ...campaigns.models import Campaign
from ...campaigns.services import version_labels
from .page import display_order
from .responses import choice_of
from .results import assignments, passage_label

CSV_COLUMNS = (*COLUMNS, "document", "seg_start", "seg_end", "time_ms", "finished_at")


def _name(label: str) -> str:
    return label.replace(SEPARATOR, "¦")


def records(campaign: Campaign) -> list[dict]:
    """One record per finished judgment, in the order they were finished."""
    labels = version_labels(campaign)
    out = []
    for asg in assignments(campaign):
        best, worst = choice_of(asg)
        if asg.state != "finished" or best is None or worst is None:
            continue
        by_slot = {iv.slot: _name(labels.get(iv.version_id, "?")) for iv in asg.item.versions}
        out.append({"campaign": campaign.id, "item": passage_label(asg.item), "annotator": asg.annotator.rater,
                    "versions": [by_slot[s] for s in display_order(asg)], "best": by_slot[best],
                    "worst": by_slot[worst], "document": asg.item.document.name,
                    "seg_start": asg.item.seg_start + 1, "seg_end": asg.item.seg_end, "time_ms": asg.time_ms,
                    "finished_at": asg.finished_at.isoformat() if asg.finished_at else None})
    return out


def export_jsonl(campaign: Campaign) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records(campaign))


def export_csv(campaign: Campaign, columns: tuple[str, ...] = CSV_COLUMNS) -> str:
    out = io.StringIO()
    writer = csvsafe.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for r in records(campaign):
        row = {**r, "versions": SEPARATOR.join(r["versions"])}
        writer.writerow([row[c] for c in columns])
    return out.getvalue()


def export_judgments(campaign: Campaign) -> str:
    """The library's JUDGMENTS.csv: item, annotator, versions, best, worst."""
    return export_csv(campaign, COLUMNS)
