"""The data release of a test set: every file of the bundle, built on demand, and the zip of all of them.

Layout (under ``<slug>-release/`` in the zip)::

    README.md                              what is here, signatures, versions, the licence terms
    testset/testset.json, source/<doc>.txt the test set (ref1/, ref2/ when the references are public)
    outputs/<team>.<system>/<doc>.txt      WMT23 layout: one file per document per system, line-aligned
    systems.csv                            team, system, label, constrained, description
    scores/leaderboard.csv (+ .signatures.csv, .json)   the leaderboard as the public sees it
    tables/automatic.{tex,csv}, tables/human.{tex,csv}  the findings tables
    annotations/<campaign id>-<name>.<ext> each released campaign in its protocol's formats (MQM: Marot TSV),
                                           and its crowd answers (``.crowd.csv``, ``.crowd.json``) when it had a
                                           crowd setup: pseudonymous raters, no panel id, e-mail or code
    mtme/                                  the same in mt-metrics-eval's layout (:mod:`~enface.browse.bundle_mtme`)
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select

from scoring import csvsafe

from ..campaigns.exports import campaign_exports
from ..campaigns.protocol import protocol_of
from ..extensions import db
from ..models import OutputSegment, ScoreRow, TestSet
from ..services import NotFound, rankings
from ..services import leaderboard as lb
from ..services.archive_names import safe_part, slug
from ..services.testsets import testset_files
from . import bundle_mtme
from .evidence import released_campaigns
from .lru import app_cache

ZIP_DATE = (1980, 1, 1, 0, 0, 0)     # the zip format's earliest date: the files' dates say nothing


@dataclass
class BundleFile:
    path: str
    title: str
    mimetype: str
    make: Callable[[], str]


def public_board(ts: TestSet) -> dict:
    """The leaderboard the release describes: what the public sees (the frozen standings if frozen)."""
    board = dict(lb.get_leaderboard(ts.id, frozen=True))
    board["released"], board["scope"] = ts.released, "all"
    return board


def system_dirs(board: dict) -> dict[int, str]:
    """{submission id: outputs/ folder name}, ``<team>.<system>``, made unique with the id when needed."""
    out: dict[int, str] = {}
    taken: set[str] = set()
    for r in board["rows"]:
        name = f"{slug(r['team'])}.{slug(r['system'])}"
        if name in taken:
            name = f"{name}-{r['submission_id']}"
        taken.add(name)
        out[r["submission_id"]] = name
    return out


def bundle_files(ts: TestSet) -> list[BundleFile]:
    board = public_board(ts)
    files = [BundleFile("README.md", "README: contents, signatures, versions, licence", "text/markdown",
                        lambda: readme(ts, board, dirs))]
    for path, text in testset_files(ts, with_references=ts.references_public):
        files.append(BundleFile(f"testset/{path}", "the test set", "text/plain", lambda text=text: text))
    dirs = system_dirs(board)
    docs = list(ts.documents)
    for sid, folder in dirs.items():
        for d in docs:
            files.append(BundleFile(f"outputs/{folder}/{safe_part(d.name)}.txt", "system output", "text/plain",
                                    lambda sid=sid, d=d: _output(sid, d)))
    files += [
        BundleFile("systems.csv", "system descriptions", "text/csv", lambda: systems_csv(board, dirs)),
        BundleFile("scores/leaderboard.csv", "scores (CSV, the page's order, empty cells for n/a)", "text/csv",
                   lambda: lb.to_csv(board)),
        BundleFile("scores/leaderboard.signatures.csv", "the metrics' signatures (sidecar of the CSV)",
                   "text/csv", lambda: lb.signatures_csv(board)),
        BundleFile("scores/leaderboard.json", "scores (JSON)", "application/json",
                   lambda: json.dumps(lb.api_payload(board), ensure_ascii=False, indent=1) + "\n"),
        BundleFile("tables/automatic.tex", "automatic metrics table (LaTeX)", "text/x-tex",
                   lambda: rankings.table(board, "automatic", "tex")),
        BundleFile("tables/automatic.csv", "automatic metrics table (CSV)", "text/csv",
                   lambda: rankings.table(board, "automatic", "csv")),
    ]
    if any((board.get(c.key) or {}).get("ranking") for c in lb.human_columns(board)):   # the one ordering it
        files += [BundleFile("tables/human.tex", "human ranking table (LaTeX)", "text/x-tex",
                             lambda: rankings.table(board, "human", "tex")),
                  BundleFile("tables/human.csv", "human ranking table (CSV)", "text/csv",
                             lambda: rankings.table(board, "human", "csv"))]
    for path, text in bundle_mtme.layout(ts, dirs).items():
        files.append(BundleFile(path, "mt-metrics-eval layout", "text/plain", lambda text=text: text))
    for camp in released_campaigns(ts.id):
        for export in campaign_exports(camp, public=True).values():     # (the public's: pseudonymous raters)
            files.append(BundleFile(f"annotations/{camp.id}-{slug(camp.name)}.{export.extension}",
                                    f"{camp.name}: {export.title}", export.mimetype.split(";")[0],
                                    lambda camp=camp, export=export: export.writer(camp)))
    return files


def get_file(ts: TestSet, path: str) -> BundleFile:
    for f in bundle_files(ts):
        if f.path == path:
            return f
    raise NotFound(f"file {path[:200]!r} of the release")


def _output(submission_id: int, doc) -> str:
    lines = db.session.scalars(select(OutputSegment.text).where(OutputSegment.submission_id == submission_id,
                                                                OutputSegment.document_id == doc.id)
                               .order_by(OutputSegment.position)).all()
    return "".join(line + "\n" for line in lines)


def systems_csv(board: dict, dirs: dict[int, str]) -> str:
    out = io.StringIO()
    w = csvsafe.writer(out)
    w.writerow(["folder", "team", "system", "label", "constrained", "document_level", "description"])
    for g in lb.grouped(board):
        for r in g["rows"]:
            w.writerow([dirs[r["submission_id"]], r["team"], r["system"], r["label"],
                        "yes" if r["constrained"] else "no", "yes" if r["document_level"] else "no",
                        " ".join((r.get("description") or "").split())])
    return out.getvalue()


def _versions(board: dict) -> dict[str, list[str]]:
    """{package: [versions]} the scores were computed with (from the stored scores)."""
    ids = [r["submission_id"] for r in board["rows"]]
    found: dict[str, set[str]] = {}
    if ids:
        for versions in db.session.scalars(select(ScoreRow.versions).where(ScoreRow.submission_id.in_(ids),
                                                                           ScoreRow.scope == "corpus")):
            for package, version in (versions or {}).items():
                found.setdefault(str(package), set()).add(str(version))
    return {k: sorted(v) for k, v in sorted(found.items())}


def _platform_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("enface")
    except metadata.PackageNotFoundError:
        return "unknown"


def _human_names(ts: TestSet, dirs: dict[int, str]) -> list[str]:
    """The NAMEs of the mt-metrics-eval layout's ``human-scores/LP.NAME.sys.score`` files."""
    lp = f"{ts.src_lang}-{ts.tgt_lang}"
    prefix, suffix = f"mtme/human-scores/{lp}.", ".sys.score"
    return [p[len(prefix):-len(suffix)] for p in bundle_mtme.layout(ts, dirs)
            if p.startswith(prefix) and p.endswith(suffix)]


def readme(ts: TestSet, board: dict, dirs: dict[int, str] | None = None) -> str:
    n_systems = len(board["rows"])
    names = _human_names(ts, dirs if dirs is not None else system_dirs(board))
    human = names[0] if names else "NAME"
    lines = [f"# {ts.task.name}: {ts.name} ({ts.src_lang} → {ts.tgt_lang}), data release", ""]
    if ts.released_at:
        lines.append(f"Released {ts.released_at:%Y-%m-%d %H:%M} UTC.")
    if board.get("frozen_at"):
        lines.append(f"Automatic standings as frozen at the deadline, {board['frozen_at'][:16].replace('T', ' ')} UTC.")
    lines += ["", f"{ts.num_documents} documents, {ts.num_segments} segments, {ts.num_refs} reference(s) "
              f"({'included' if ts.references_public else 'not included: the references are not public'}); "
              f"{n_systems} systems.", "", "## Licence", ""]
    lines += [ts.licence.strip() if (ts.licence or "").strip() else
              "The organizers have not stated licence terms for this release; ask them before redistributing it."]
    lines += ["", "## Contents", "",
              "- `testset/`: the test set (`testset.json`, `source/<doc>.txt`, references in `ref1/`, `ref2/`).",
              "- `outputs/<team>.<system>/<doc>.txt`: the system outputs, one file per document per system, "
              "line-aligned with the source (the WMT23 layout).",
              "- `systems.csv`: each output folder's team, system, label, constrained flag and description.",
              "- `scores/leaderboard.csv`: one row per system in the leaderboard's order, numbers in the metric "
              "columns, empty cells where a metric does not apply; the signatures are in "
              "`scores/leaderboard.signatures.csv`; `scores/leaderboard.json` has the same with the reasons.",
              "- `tables/`: the automatic metrics table and (once released) the human ranking, as LaTeX and CSV.",
              "- `annotations/`: each released human evaluation in its protocol's formats (listed under "
              "Human evaluations below); for a crowd campaign also its welcome-form, tutorial and completion "
              "answers (`<campaign>.crowd.csv`, `.crowd.json`), raters by the same labels as the annotations "
              "(`rater1`, ...), without panel ids, completion codes or the answers to private questions.",
              "- `mtme/`: the same in mt-metrics-eval's layout (`documents/`, `sources/`, `references/`, "
              "`system-outputs/LP/`, `human-scores/LP.NAME.{sys,seg}.score`, `metric-scores/LP/METRIC-all.{sys,seg}"
              ".score`; higher is better, lower-is-better scores negated, `None` where there is none); "
              f"`python -m scoring meta --mtme mtme --lp {ts.src_lang}-{ts.tgt_lang} --human {human}` reads it.",
              "", "## Signatures", ""]
    for c in board["columns"]:
        sigs = board["signatures"].get(c["key"], [])
        lines.append(f"- {c['name']}: " + ("; ".join(f"`{s}`" for s in sigs) if sigs else "no score"))
    lines += ["", "## Versions", "", f"- enface {_platform_version()}"]
    for package, versions in _versions(board).items():
        lines.append(f"- {package} {', '.join(versions)}")
    camps = released_campaigns(ts.id)
    if camps:
        lines += ["", "## Human evaluations", ""]
        for c in camps:
            formats = ", ".join(e.title for e in campaign_exports(c, public=True).values())
            lines.append((f"- {c.name} ({protocol_of(c).title}), released {c.released_at:%Y-%m-%d %H:%M} UTC"
                          if c.released_at else f"- {c.name}") + (f"; formats: {formats}" if formats else ""))
    return "\n".join(lines) + "\n"


def bundle_zip(ts: TestSet) -> tuple[str, bytes]:
    """(file name, bytes) of the whole release, kept until the scores, the campaigns or the licence change."""
    root = f"{slug(ts.task.name)}-{slug(ts.name)}-release"
    key = (ts.id, ts.scores_version, ts.licence, ts.released, ts.references_public,
           ts.frozen_at.isoformat() if ts.frozen_at else "")
    cache = app_cache("release_zip", 4)
    hit = cache.get(key)
    if hit is not None:
        return f"{root}.zip", hit
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in bundle_files(ts):
            # a fixed date and mode (writestr's default is the clock): a rebuild gives the same bytes
            info = zipfile.ZipInfo(f"{root}/{f.path}", date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            zf.writestr(info, f.make(), compress_type=zipfile.ZIP_DEFLATED)
    data = buf.getvalue()
    cache.put(key, data)
    return f"{root}.zip", data
