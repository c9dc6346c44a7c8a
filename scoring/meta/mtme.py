"""mt-metrics-eval's data layout, both ways: read a test-set root, write score files.

A root (for example the toolkit's ``wmt23`` folder) holds, for a language pair LP::

    documents/LP.docs                      one line per segment: domain<TAB or space>document
    sources/LP.txt                         one segment per line
    references/LP.REF.txt                  one file per reference
    system-outputs/LP/SYSTEM.txt           one file per system (references among them)
    human-scores/LP.NAME.{sys,seg}.score   system<TAB>score, None where there is none
    metric-scores/LP/METRIC-REF.{sys,seg}.score

A ``.sys.score`` file has one line per system; a ``.seg.score`` file lists each system's
scores in segment order (its lines for one system are consecutive or interleaved; order
within a system is what counts). REF is the reference a metric used, or ``src`` for a
reference-free one. Higher is better everywhere (lower-is-better metrics are stored negated).
*Human translations* are the systems named like a file in ``references/``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import MetaInputError

LEVELS = ("sys", "seg")
SCORE_SUFFIX = ".score"


class LayoutError(MetaInputError):
    """Bad input in the layout; the message names the file and the line."""

    def __init__(self, message: str, path: str | Path, line: int | None = None):
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(message, where)
        self.line = line


Scores = dict[str, list[float | None]]     # system -> scores (one for sys level, one per segment for seg)


@dataclass
class MtmeSet:
    """One language pair of a test-set root."""
    root: Path
    lp: str
    docs: list[str] = field(default_factory=list)         # document of every segment
    domains: list[str] = field(default_factory=list)      # domain of every segment
    sources: list[str] = field(default_factory=list)
    references: dict[str, list[str]] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    human: dict[tuple[str, str], Scores] = field(default_factory=dict)    # (name, level) -> scores
    metrics: dict[tuple[str, str], Scores] = field(default_factory=dict)  # (METRIC-REF, level) -> scores

    @property
    def human_translations(self) -> set[str]:
        """Systems named like a reference: left out of correlations unless asked for (the toolkit's default)."""
        return set(self.references)

    def human_names(self, level: str | None = None) -> list[str]:
        return sorted({n for n, lv in self.human if level in (None, lv)})

    def metric_names(self, level: str | None = None) -> list[str]:
        return sorted({n for n, lv in self.metrics if level in (None, lv)})


def _lines(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise LayoutError("not UTF-8 text", path, line) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def read_score_file(path: str | Path, level: str | None = None, n_segments: int | None = None) -> Scores:
    """``system<TAB>score`` lines (``None`` where missing); errors name the file and line."""
    path = Path(path)
    scores: Scores = {}
    for n, line in enumerate(_lines(path), 1):
        parts = line.split()
        if not parts:
            raise LayoutError("empty line (expected: system<TAB>score)", path, n)
        if len(parts) != 2:
            raise LayoutError(f"expected two fields, system<TAB>score, found {len(parts)}", path, n)
        system, raw = parts
        if raw == "None":
            value = None
        else:
            try:
                value = float(raw)
            except ValueError:
                raise LayoutError(f"score {raw!r} of {system} is neither a number nor None", path, n) from None
            if not math.isfinite(value):
                raise LayoutError(f"score {raw!r} of {system} is not finite", path, n)
        scores.setdefault(system, []).append(value)
    if level == "sys":
        for system, values in scores.items():
            if len(values) != 1:
                raise LayoutError(f"system {system} has {len(values)} lines; a .sys.score file has one per system",
                                  path)
    if level == "seg" and n_segments is not None:
        for system, values in scores.items():
            if len(values) != n_segments:
                raise LayoutError(f"system {system} has {len(values)} segment scores; the test set has "
                                  f"{n_segments} segments", path)
    return scores


def _parse_name(stem: str, path: Path) -> tuple[str, str]:
    """``NAME.LEVEL`` -> (NAME, LEVEL)."""
    name, _, level = stem.rpartition(".")
    if level not in LEVELS or not name:
        raise LayoutError(f"file name must end in .sys{SCORE_SUFFIX} or .seg{SCORE_SUFFIX}", path)
    return name, level


def split_metric_name(name: str) -> tuple[str, str]:
    """``METRIC-REF`` -> (METRIC, REF); REF is ``src`` for a reference-free metric."""
    base, sep, ref = name.rpartition("-")
    return (base, ref) if sep and base else (name, "")


def read_mtme(root: str | Path, lp: str, *, texts: bool = True) -> MtmeSet:
    """Read one language pair of a test-set root; :class:`LayoutError` names the file (and line) at fault."""
    root = Path(root)
    if not root.is_dir():
        raise LayoutError("no such test-set folder", root)
    ms = MtmeSet(root=root, lp=lp)
    docs = root / "documents" / f"{lp}.docs"
    n_segments: int | None = None
    if docs.is_file():
        for n, line in enumerate(_lines(docs), 1):
            parts = line.split()
            if len(parts) != 2:
                raise LayoutError("expected two fields, domain and document", docs, n)
            ms.domains.append(parts[0])
            ms.docs.append(parts[1])
        n_segments = len(ms.docs)
    src = root / "sources" / f"{lp}.txt"
    if texts and src.is_file():
        ms.sources = _lines(src)
        n_segments = _same_length(src, len(ms.sources), n_segments)
    for path in sorted((root / "references").glob(f"{lp}.*.txt")):
        name = path.name[len(lp) + 1:-len(".txt")]
        ms.references[name] = _lines(path) if texts else []
        if texts:
            n_segments = _same_length(path, len(ms.references[name]), n_segments)
    out_dir = root / "system-outputs" / lp
    for path in sorted(out_dir.glob("*.txt")) if out_dir.is_dir() else []:
        ms.outputs[path.stem] = _lines(path) if texts else []
        if texts:
            n_segments = _same_length(path, len(ms.outputs[path.stem]), n_segments)
    for path in sorted((root / "human-scores").glob(f"{lp}.*{SCORE_SUFFIX}")):
        name, level = _parse_name(path.name[len(lp) + 1:-len(SCORE_SUFFIX)], path)
        ms.human[(name, level)] = read_score_file(path, level, n_segments)
    metric_dir = root / "metric-scores" / lp
    for path in sorted(metric_dir.glob(f"*{SCORE_SUFFIX}")) if metric_dir.is_dir() else []:
        name, level = _parse_name(path.name[:-len(SCORE_SUFFIX)], path)
        if level in LEVELS:
            ms.metrics[(name, level)] = read_score_file(path, level, n_segments)
    if not (ms.human or ms.metrics or ms.outputs):
        raise LayoutError(f"no {lp} data here (expected human-scores/{lp}.NAME.sys.score, "
                          f"metric-scores/{lp}/, system-outputs/{lp}/)", root)
    return ms


def _same_length(path: Path, n: int, expected: int | None) -> int:
    if expected is not None and n != expected:
        raise LayoutError(f"{n} lines; the test set has {expected} segments", path)
    return n


def lps_in(root: str | Path) -> list[str]:
    """The language pairs a root has (from ``sources/LP.txt``, ``documents/LP.docs`` or ``system-outputs/LP``)."""
    root = Path(root)
    found = {p.stem for p in (root / "sources").glob("*.txt")} | {p.stem for p in (root / "documents").glob("*.docs")}
    for folder in ("system-outputs", "metric-scores"):
        if (root / folder).is_dir():
            found |= {p.name for p in (root / folder).iterdir() if p.is_dir()}
    found |= {p.name.split(".", 1)[0] for p in (root / "human-scores").glob(f"*{SCORE_SUFFIX}")}
    return sorted(found)


def format_score(value: float | None) -> str:
    return "None" if value is None or (isinstance(value, float) and math.isnan(value)) else repr(float(value))


def score_file_text(scores: Mapping[str, Sequence[float | None]]) -> str:
    """A score file: each system's scores in order, ``None`` where missing."""
    return "".join(f"{system}\t{format_score(v)}\n" for system, values in scores.items() for v in values)


def write_score_file(path: str | Path, scores: Mapping[str, Sequence[float | None]]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(score_file_text(scores), encoding="utf-8")
    return path


def human_score_path(lp: str, name: str, level: str) -> str:
    return f"human-scores/{lp}.{name}.{level}{SCORE_SUFFIX}"


def metric_score_path(lp: str, metric: str, ref: str, level: str) -> str:
    return f"metric-scores/{lp}/{metric}-{ref}.{level}{SCORE_SUFFIX}"
