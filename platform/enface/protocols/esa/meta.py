"""A released ESA campaign on the meta-evaluation page (system and segment level) and in the output
browser (its error spans and scores, the protocol's ``evidence``)."""

from __future__ import annotations

from collections import defaultdict
from statistics import fmean

from scoring.meta import HumanSource

from ...campaigns.contract import Evidence
from ...campaigns.models import Campaign
from ...campaigns.services import version_labels
from .results import results_for
from .rows import answer_rows
from .texts import segment_texts


def _counted(campaign: Campaign, rows_of=answer_rows):
    """The TGT answers of the annotators who count (the snapshot's exclusions)."""
    excluded = set((results_for(campaign, rows_of=rows_of) or {}).get("excluded", []))
    return [r for r in rows_of(campaign) if not r.is_bad and r.assignment.annotator.rater not in excluded]


def meta_sources(campaign: Campaign, rows_of=answer_rows, title: str = "ESA") -> list[HumanSource]:
    """The people's ESA scores: per system the mean, per segment ``(document, 0-based line)`` the mean
    over raters; systems are submission ids as strings (a reference: its label). ``rows_of``: how the
    campaign's answers become rows (contrastive ESA passes its columns')."""
    rows = _counted(campaign, rows_of)
    if not rows:
        return []
    labels = version_labels(campaign)    # a row names its version by label, on every kind of item
    keys = {labels[v.id]: (str(v.submission_id) if v.submission_id is not None else f"reference {v.reference}")
            for v in campaign.versions}
    items: dict[str, dict[tuple[str, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        items[keys[r.system]][(r.document, r.line)].append(float(r.answer.score))
    systems = {s: fmean(v for vs in segs.values() for v in vs) for s, segs in items.items()}
    return [HumanSource(key=f"{campaign.protocol}:{campaign.id}", label=f"{title} · {campaign.name}",
                        kind=campaign.protocol, higher_is_better=True,
                        systems=systems, items={s: {k: fmean(v) for k, v in segs.items()} for s, segs in items.items()},
                        item_unit="segment")]


def evidence(campaign: Campaign, *, document_id: int | None = None) -> list[Evidence]:
    """Every counted span (``end`` exclusive, as the browser's other evidence; ``[missing]``: no offsets)
    and every segment's score. BAD copies are left out: their text is not the system's."""
    out = []
    for r in answer_rows(campaign):
        item = r.assignment.item
        if r.is_bad or (document_id is not None and item.document_id != document_id):
            continue
        base = {"campaign_id": campaign.id, "document": r.document, "seg": r.line,
                "submission_id": item.submission_id, "reference": item.versions[0].version.reference,
                "rater": r.assignment.annotator.rater}
        out.append(Evidence(**base, kind="score", text=f"ESA score {r.answer.score:g}", note=f"{r.answer.score:g}"))
        target = segment_texts(r.assignment)[r.line - item.seg_start]["target"]
        for span in r.answer.errors:
            out.append(Evidence(**base, kind="span", start=span.start, end=None if span.missing else span.end + 1,
                                text="[missing]" if span.missing else target[span.start:span.end + 1],
                                severity=span.severity, category="missing" if span.missing else ""))
    out.sort(key=lambda e: (e.document, e.seg, e.submission_id or 0, e.rater, e.kind,
                            -1 if e.start is None else e.start))
    return out
