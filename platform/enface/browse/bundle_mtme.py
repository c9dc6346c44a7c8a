"""The release's copy in mt-metrics-eval's layout (``mtme/`` of the bundle), beside the CSV.

The same systems as ``outputs/`` under the same folder names; the leaderboard's stored scores
(system and, where a metric keeps them, segment level) and the released human evaluations'
scores (MQM: system and segment level), higher-is-better as the toolkit expects; the
references (when public) under ``references/LP.refN.txt``. ``python -m scoring meta --mtme
mtme --lp LP --human mqm`` reads it as is. Built once per state of the release and cached.
"""

from __future__ import annotations

from sqlalchemy import select

from scoring.meta.mtme_write import LayoutExport, layout_files

from ..campaigns.protocol import protocol_of
from ..extensions import db
from ..models import OutputSegment, Submission, TestSet
from ..services import ServiceError
from ..services.testsets import scoring_testset
from .evidence import released_campaigns
from .lru import app_cache

ROOT = "mtme"


def _outputs(ts: TestSet, dirs: dict[int, str]) -> dict[str, list[str]]:
    position = {d.id: (d.position, d.name) for d in ts.documents}
    rows = db.session.execute(select(OutputSegment.submission_id, OutputSegment.document_id, OutputSegment.position,
                                     OutputSegment.text).where(OutputSegment.submission_id.in_(list(dirs))))
    by_sub: dict[int, list[tuple]] = {}
    for sid, doc_id, pos, text in rows:
        by_sub.setdefault(sid, []).append((position[doc_id][0], pos, text))
    return {dirs[sid]: [t for _d, _p, t in sorted(lines)] for sid, lines in by_sub.items()}


def layout(ts: TestSet, dirs: dict[int, str]) -> dict[str, str]:
    """{path under mtme/: text}; cached until the scores, the releases or the references' status change."""
    from ..metaeval.service import stored_metrics

    camps = released_campaigns(ts.id)
    key = (ts.id, ts.scores_version, ts.references_public, tuple(sorted(dirs.items())),
           tuple((c.id, c.released_at.isoformat() if c.released_at else "") for c in camps))
    cache = app_cache("release_mtme", 4)
    hit = cache.get(key)
    if hit is not None:
        return hit
    loaded = scoring_testset(ts)
    names = {str(sid): folder for sid, folder in dirs.items()}
    subs = [s for s in (db.session.get(Submission, sid) for sid in dirs) if s is not None]
    humans = []
    for camp in camps:
        try:
            humans += [src.renamed(names) for src in protocol_of(camp).meta_sources(camp)]
        except ServiceError:        # a campaign the protocol cannot read: its CSV/TSV exports still say it all
            continue
    keys = [(d.name, p) for d in loaded.documents for p in range(len(d))]
    refs = {f"ref{i + 1}": lines for i, lines in enumerate(loaded.references())} if ts.references_public else {}
    export = LayoutExport(lp=f"{ts.src_lang}-{ts.tgt_lang}", segment_keys=keys,
                          domains=[ts.task.name] * len(keys), sources=loaded.sources(), references=refs,
                          outputs=_outputs(ts, dirs), metrics=stored_metrics(ts, subs, names),
                          humans=humans)
    files = {f"{ROOT}/{path}": text for path, text in layout_files(export).items()}
    cache.put(key, files)
    return files
