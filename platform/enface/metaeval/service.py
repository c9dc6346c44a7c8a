"""Meta-evaluation of a test set, computed by :mod:`scoring.meta` and cached until something changes.

Metric values are the platform's stored scores (corpus scores for the system level,
segment scores where a metric stores them for the item and chunk levels), of the
systems on the leaderboard; human values come from the released campaigns of the
test set through their protocol's ``meta_sources`` hook (MQM: system and segment
scores; reader study: chunk judgements). Systems are matched by submission and shown
by name. The result is cached per test set, keyed by the test set's
``scores_version`` and the released campaigns (id and release time), so a new score,
a withdrawal or a new release recomputes it in every process.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from typing import Any

from flask import current_app
from markupsafe import Markup
from sqlalchemy import select

from scoring.meta import MetricScores, evaluate_source, scatter_svg
from scoring.meta.stats import DEFAULT_SEED
from scoring.metrics import REGISTRY

from ..campaigns.models import Campaign
from ..campaigns.protocol import protocol_of
from ..extensions import db
from ..models import ScoreRow, Submission, TestSet, User
from ..services import NotFound, ServiceError

_lock = threading.Lock()
_CACHE_SIZE = 32
#: below this many systems the page cautions that the system-level correlations and intervals mean little
FEW_SYSTEMS = 5


def _cache() -> OrderedDict[int, tuple[tuple, dict]]:
    """The app's cache (one per app: two apps on two databases never share test-set ids' results)."""
    return current_app.extensions.setdefault("enface_meta_cache", OrderedDict())


def visible_meta(user: User | None, testset_id: int) -> dict:
    """The page's data as ``user`` may see it: everyone after the test set's release, organizers before."""
    ts = db.session.get(TestSet, testset_id)
    if ts is None:
        raise NotFound("test set")
    organizer = user is not None and getattr(user, "is_authenticated", False) and user.is_organizer
    if not (ts.released or organizer):
        raise NotFound("meta-evaluation (not released yet)")
    return {**get_meta(ts), "released": ts.released}


def _released(ts: TestSet) -> list[Campaign]:
    return list(db.session.scalars(select(Campaign).where(Campaign.testset_id == ts.id, Campaign.state == "released")
                                   .order_by(Campaign.released_at, Campaign.id)))


def get_meta(ts: TestSet) -> dict:
    campaigns = _released(ts)
    cfg = current_app.config
    n_boot, seed = max(1, int(cfg.get("META_BOOTSTRAP_SAMPLES", 1000))), int(cfg.get("META_BOOTSTRAP_SEED", DEFAULT_SEED))
    permutations = max(0, int(cfg.get("META_CLUSTER_PERMUTATIONS", 1000)))
    key = (ts.scores_version, tuple((c.id, c.released_at.isoformat() if c.released_at else "") for c in campaigns),
           n_boot, seed, permutations)
    cache = _cache()
    with _lock:
        hit = cache.get(ts.id)
        if hit is not None and hit[0] == key:
            cache.move_to_end(ts.id)
            return hit[1]
    page = _build(ts, campaigns, n_boot=n_boot, seed=seed, permutations=permutations)
    with _lock:
        cache[ts.id] = (key, page)
        cache.move_to_end(ts.id)
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)
    return page


_metric_providers: list = []


def add_metric_provider(provider) -> None:
    """``provider(testset)`` -> ``{key: scoring.meta.MetricScores}`` of more "metrics" (an LLM judge's scores)
    whose systems are submission ids as strings and whose segment keys are (document, 0-based position).

    Registered by the app factory or a feature's ``init_app``, so that this service imports none of them.
    Their results are cached like the stored scores: a provider whose scores change without a new
    stored score or release calls :func:`clear_cache`.
    """
    if provider not in _metric_providers:
        _metric_providers.append(provider)


def clear_cache() -> None:
    _cache().clear()


def _submissions(ts: TestSet) -> list[Submission]:
    """The leaderboard's systems: scored, not withdrawn, a primary/contrastive slot or a baseline."""
    return list(db.session.scalars(
        select(Submission).where(Submission.testset_id == ts.id, Submission.state == "scored",
                                 Submission.withdrawn_at.is_(None),
                                 (Submission.slot.is_not(None)) | (Submission.label == "baseline"))
        .order_by(Submission.id)))


def _names(subs: list[Submission]) -> dict[str, str]:
    """{submission id (str): the name shown}: the system name, with the team when two share it."""
    count = Counter(s.system_name for s in subs)
    out = {}
    for s in subs:
        name = s.system_name if count[s.system_name] == 1 else f"{s.system_name} ({s.owner_name})"
        out[str(s.id)] = name if name not in out.values() else f"{name} #{s.id}"
    return out


def stored_metrics(ts: TestSet, subs: list[Submission], names: dict[str, str]) -> dict[str, MetricScores]:
    """Every metric with a stored score, keyed by system name: corpus values, segment values by (doc, position)."""
    keys = [(d.name, p) for d in sorted(ts.documents, key=lambda d: d.position) for p in range(d.num_segments)]
    rows = db.session.scalars(select(ScoreRow).where(ScoreRow.submission_id.in_([s.id for s in subs]))
                              .order_by(ScoreRow.id)).all()
    out: dict[str, MetricScores] = {}
    for row in rows:
        name = names[str(row.submission_id)]
        ms = out.setdefault(row.metric, MetricScores(row.metric, {}, row.higher_is_better, row.name or row.metric))
        if row.scope == "corpus" and row.value is not None:
            ms.scores[name] = float(row.value)
        elif row.scope == "segment" and row.values and len(row.values) == len(keys):
            ms.segments[name] = {k: float(v) for k, v in zip(keys, row.values, strict=True) if v is not None}
    order = {m: n for n, m in enumerate(REGISTRY)}     # the leaderboard's order first, then any other metric
    return dict(sorted(out.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))


def _direction(hib: bool) -> str:
    return "↑" if hib else "↓"


def _build(ts: TestSet, campaigns: list[Campaign], *, n_boot: int, seed: int, permutations: int) -> dict[str, Any]:
    subs = _submissions(ts)
    names = _names(subs)
    metrics = stored_metrics(ts, subs, names)
    for provider in _metric_providers:
        for key, ms in provider(ts).items():
            metrics[key] = MetricScores(ms.metric, {names[k]: v for k, v in ms.scores.items() if k in names},
                                        ms.higher_is_better, ms.name,
                                        {names[k]: v for k, v in ms.segments.items() if k in names})
    sources = []
    for camp in campaigns:
        try:
            found = protocol_of(camp).meta_sources(camp)
        except ServiceError as exc:     # (a campaign the protocol cannot read: say so, show the others)
            sources.append({"label": camp.name, "campaign": {"id": camp.id, "name": camp.name,
                                                             "protocol": camp.protocol}, "error": exc.message})
            continue
        for source in found:
            res = evaluate_source(source.renamed(names), metrics, n_boot=n_boot, seed=seed,
                                  cluster_permutations=permutations)
            res["campaign"] = {"id": camp.id, "name": camp.name, "protocol": camp.protocol}
            for key, block in res["metrics"].items():
                flipped = [f["system"] for f in block["rank_flips"]["systems"]]
                # trusted markup: scoring.meta.svg XML-escapes every name and label it draws (tested there)
                block["svg"] = Markup(scatter_svg(block["points"], x_label=f"{res['label']} {_direction(res['higher_is_better'])}",
                                           y_label=f"{block['name']} {_direction(block['metric_higher_is_better'])}",
                                           flipped=flipped, title=f"{block['name']} against {res['label']}"))
                block["key"] = key
            # the metrics with rank flips first, most flips first (the page lists them before the tables)
            res["flips"] = sorted(({"metric": k, "name": b["name"], "systems": b["rank_flips"]["systems"],
                                    "pairs": b["rank_flips"]["discordant_pairs"]}
                                   for k, b in res["metrics"].items() if b["rank_flips"]["systems"]),
                                  key=lambda f: -len(f["systems"]))
            sources.append(res)
    return {"testset_id": ts.id, "testset": ts.name, "sources": sources,
            "metrics": [{"key": k, "name": m.name, "higher_is_better": m.higher_is_better,
                         "systems": len(m.scores), "segment_scores": len(m.segments)} for k, m in metrics.items()],
            "bootstrap": {"n_boot": n_boot, "seed": seed, "confidence": 0.95}, "kendall_variant": "tau-b"}


def api_payload(page: dict) -> dict:
    """The page's data as JSON, without the SVG plots."""
    sources = []
    for src in page["sources"]:
        src = dict(src)
        if "metrics" in src:
            src["metrics"] = {k: {kk: vv for kk, vv in b.items() if kk != "svg"} for k, b in src["metrics"].items()}
        sources.append(src)
    return {**page, "sources": sources}
