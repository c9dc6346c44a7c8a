"""Reading HUMAN files: MQM scores, rubric results or a reader-study export, told apart by their content.

* **MQM**: ``python -m mqm score FILE --json`` (``{"scheme", "higher_is_better", "by",
  "scores"}``), by system (system level) or ``--by doc`` (document level); any object
  of that shape, a score being ``{"score": x}`` or a bare number. The direction is the
  file's ``higher_is_better`` (google-mqm: lower is better).
* **rubric**: the results JSON of ``humaneval.rubric`` (DITING's rubric): ``{"protocol":
  "rubric", "systems": [{"system", "overall", "dimensions": {name: {"sigma", ...} or a
  number}}], "items": [{"item", "document", "segment", "system", "rater", "dimension", "sp",
  "g_1", "g_2", "sigma"}]}``; higher is better. One human source for ``overall`` (the average
  Σ) and one per dimension (its Σ); an item's score is its Σ (``sigma``, else sp + g_1 +
  g_2) averaged over raters (and, for ``overall``, over dimensions); ``segment`` is the
  1-based segment number in the document.
* **reader study**: the JSON Lines export the platform writes (:mod:`humaneval.export`).
  Its chunk judgements give the chunk level; a system's share of the chunk choices is its
  system-level score. A chunk record's ``testset_document`` and ``segments`` ([start,
  end), 0-based) say which segments the chunk shows, which lets metric segment scores be
  averaged per chunk.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import fmean
from typing import Any

from .chunks import ChunkJudgement
from .errors import MetaInputError
from .files import number, read_text


@dataclass
class HumanSource:
    """One human score to meta-evaluate against (a campaign, or one rubric dimension)."""

    key: str
    label: str
    kind: str                                   # mqm | rubric | reader | scores
    higher_is_better: bool
    systems: dict[str, float] = field(default_factory=dict)
    items: dict[str, dict[Hashable, float]] = field(default_factory=dict)   # {system: {item key: score}}
    item_unit: str | None = None                # "segment": (document, position); "document": document
    chunks: list[ChunkJudgement] = field(default_factory=list)

    def renamed(self, names: Mapping[str, str], **changes: Any) -> HumanSource:
        """A copy whose systems are renamed by ``names`` (a name not in it stays), with other fields changed."""
        def n(key: str) -> str:
            return names.get(key, key)

        return replace(self, systems={n(k): v for k, v in self.systems.items()},
                       items={n(k): v for k, v in self.items.items()},
                       chunks=[replace(j, versions=(n(j.versions[0]), n(j.versions[1]))) for j in self.chunks],
                       **changes)

    def describe(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "kind": self.kind, "higher_is_better": self.higher_is_better,
                "systems": len(self.systems), "item_unit": self.item_unit,
                "items": sum(len(v) for v in self.items.values()), "chunk_judgements": len(self.chunks)}


def human_kind(obj: Any) -> str:
    """"rubric", "mqm" or "reader" for a parsed JSON value (reader exports are JSON Lines: see read_human)."""
    if isinstance(obj, dict):
        if obj.get("protocol") == "rubric":
            return "rubric"
        if obj.get("record") in ("excerpt", "chunk", "post"):
            return "reader"
        if "studies" in obj:
            return "reader-results"
        if "scores" in obj or isinstance(obj.get("systems"), dict):
            return "mqm"
    return "unknown"


def read_human(path: str | Path) -> list[HumanSource]:
    """The human sources in a HUMAN file, whatever its kind (see the module's text)."""
    text = read_text(path)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        first = next((ln for ln in text.splitlines() if ln.strip()), "")
        try:
            head = json.loads(first)
        except json.JSONDecodeError:
            raise MetaInputError(f"invalid JSON ({exc})", path) from None
        if human_kind(head) == "reader":
            return reader_sources(text, path)
        raise MetaInputError(f"invalid JSON ({exc})", path) from None
    return human_from_obj(obj, path)


def human_from_obj(obj: Any, path: str | Path | None = None) -> list[HumanSource]:
    kind = human_kind(obj)
    if kind == "rubric":
        return rubric_sources(obj, path)
    if kind == "reader":
        return reader_sources(json.dumps(obj), path)
    if kind == "reader-results":
        raise MetaInputError("this is the output of python -m humaneval reader; meta-evaluation needs the "
                             "reader-study export itself (EXPORT.jsonl), which has every chunk judgement", path)
    if kind == "mqm":
        return [mqm_source(obj, path)]
    raise MetaInputError("not a human score file: expected the --json output of python -m mqm score, a rubric "
                         "results object ({\"protocol\": \"rubric\", ...}) or a reader-study export (JSON Lines)",
                         path)


def mqm_source(obj: dict, path: str | Path | None = None) -> HumanSource:
    """``python -m mqm score --json`` by system or by doc, or ``{"higher_is_better", "scores": {system: score}}``."""
    by = obj.get("by", "system")
    if by not in ("system", "doc"):
        raise MetaInputError(f"scores are by {by!r}; meta-evaluation needs scores by system or by doc "
                             "(python -m mqm score FILE --json [--by doc])", path)
    raw = obj.get("scores")
    if raw is None and isinstance(obj.get("systems"), dict):
        raw = obj["systems"]
    if not isinstance(raw, dict):
        raise MetaInputError("no 'scores' object of system scores", path)
    hib = obj.get("higher_is_better", True)
    if not isinstance(hib, bool):
        raise MetaInputError("'higher_is_better' must be true or false", path)
    scheme = str(obj.get("scheme") or "human")
    source = HumanSource(key="mqm", label=f"MQM ({scheme})" if obj.get("scheme") else scheme, kind="mqm",
                         higher_is_better=hib)

    def value_of(v: Any) -> float | None:
        return number(v.get("score") if isinstance(v, dict) else v)

    if by == "system":
        source.systems = {str(s): v for s, val in raw.items() if (v := value_of(val)) is not None}
        if not source.systems:
            raise MetaInputError("no system has a human score", path)
    else:
        for system, docs in raw.items():
            if not isinstance(docs, dict):
                raise MetaInputError(f"scores by doc: {system!r} is not an object of documents", path)
            source.items[str(system)] = {str(d): v for d, val in docs.items() if (v := value_of(val)) is not None}
        source.item_unit = "document"
        if not any(source.items.values()):
            raise MetaInputError("no document has a human score", path)
    return source


def _item_score(item: dict) -> float | None:
    """An item's Σ: ``sigma``, else S + G1 + G2 (DITING's per-item total, 0-6)."""
    if item.get("sigma") is not None:
        return number(item["sigma"])             # (not a number: None, and the caller says so)
    parts = [number(item.get(k)) for k in ("sp", "g_1", "g_2")]
    return sum(parts) if all(p is not None for p in parts) else None   # type: ignore[arg-type]


def rubric_sources(obj: dict, path: str | Path | None = None) -> list[HumanSource]:
    systems, items = obj.get("systems"), obj.get("items", [])
    if not isinstance(systems, list) or not isinstance(items, list):
        raise MetaInputError("rubric results need a 'systems' list and an 'items' list", path)
    overall: dict[str, float] = {}
    dims: dict[str, dict[str, float]] = defaultdict(dict)
    for n, row in enumerate(systems):
        if not isinstance(row, dict) or not isinstance(row.get("system"), str):
            raise MetaInputError(f"systems[{n}] needs a 'system' name", path)
        if (v := number(row.get("overall"))) is not None:
            overall[row["system"]] = v
        dimensions = row.get("dimensions") or {}
        if not isinstance(dimensions, dict):
            raise MetaInputError(f"systems[{n}].dimensions must be an object of dimension scores", path)
        for dim, value in dimensions.items():
            # humaneval.rubric: {dim: {"sp", "g_1", "g_2", "sigma", "n"}}: the dimension's Σ; or a bare number
            if (v := number(value.get("sigma") if isinstance(value, dict) else value)) is not None:
                dims[str(dim)][row["system"]] = v
    per_item: dict[tuple[str, str], dict[tuple[str, int], list[float]]] = defaultdict(lambda: defaultdict(list))
    for n, it in enumerate(items):
        if not isinstance(it, dict):
            raise MetaInputError(f"items[{n}] is not an object", path)
        seg, score = it.get("segment"), _item_score(it)
        if not isinstance(it.get("system"), str) or not isinstance(it.get("document"), str) \
                or isinstance(seg, bool) or not isinstance(seg, int) or seg < 1 or score is None:
            raise MetaInputError(f"items[{n}] needs 'system', 'document' (strings), 'segment' (an integer from 1) "
                                 f"and a number 'sigma' (or 'sp', 'g_1' and 'g_2')", path)
        key = (it["document"], seg - 1)          # 0-based, as the metrics' segment_keys
        per_item[(it["system"], str(it.get("dimension") or ""))][key].append(score)

    def items_of(dimension: str | None) -> dict[str, dict[Hashable, float]]:
        pooled: dict[str, dict[Hashable, list[float]]] = defaultdict(lambda: defaultdict(list))
        for (system, dim), segs in per_item.items():
            if dimension is None or dim == dimension:
                for key, values in segs.items():
                    pooled[system][key].extend(values)
        return {s: {k: fmean(v) for k, v in segs.items()} for s, segs in pooled.items()}

    out = [HumanSource("rubric", "rubric (overall)", "rubric", True, overall, items_of(None),
                       "segment" if per_item else None)]
    for dim in sorted(set(dims) | {d for _s, d in per_item if d}):
        its = items_of(dim)
        out.append(HumanSource(f"rubric:{dim}", f"rubric: {dim}", "rubric", True, dims.get(dim, {}), its,
                               "segment" if its else None))
    if not overall and not per_item:
        raise MetaInputError("rubric results with no system score and no item", path)
    return out


def reader_sources(text: str, path: str | Path | None = None) -> list[HumanSource]:
    """One source per study of a reader-study export: its chunk judgements and each version's preference share."""
    # (the humaneval library checks every record and names the line of a bad one)
    from humaneval.errors import HumanEvalInputError
    from humaneval.export import parse_export

    lines = text.splitlines()
    try:
        export = parse_export(lines, None if path is None else str(path))
    except HumanEvalInputError as exc:
        raise MetaInputError(str(exc)) from None
    extra = _chunk_segments(lines)
    out = []
    for study in export.studies():
        part = export.study(study)
        judgements = []
        for r in part.chunks:
            if r.preference is None:
                continue
            names = (r.versions["1"].label, r.versions["2"].label)
            judgements.append(ChunkJudgement(r.document, r.chunk, r.reader, names, r.preference,
                                             extra.get((r.study, r.document, r.reader, r.chunk))))
        if not judgements:
            continue
        chosen: dict[str, int] = defaultdict(int)
        shown: dict[str, int] = defaultdict(int)
        for j in judgements:
            chosen[j.versions[0 if j.preference == "1" else 1]] += 1
            for v in j.versions:
                shown[v] += 1
        label = f"reader study {study}" if study else "reader study"
        out.append(HumanSource(f"reader:{study}", label, "reader", True,
                               {v: chosen[v] / shown[v] for v in shown}, chunks=judgements))
    if not out:
        raise MetaInputError("the reader-study export has no chunk judgement with a preference", path)
    return out


def _chunk_segments(lines: list[str]) -> dict[tuple, tuple[str, int, int]]:
    """(study, document, reader, chunk) -> (test-set document, start, end) from the chunk records that say it."""
    out = {}
    for line in lines:
        if not line.strip():
            continue
        rec = json.loads(line)
        seg, doc = rec.get("segments"), rec.get("testset_document")
        if rec.get("record") == "chunk" and isinstance(doc, str) and isinstance(seg, list) and len(seg) == 2 \
                and all(isinstance(x, int) and not isinstance(x, bool) for x in seg) and 0 <= seg[0] < seg[1]:
            out[(rec.get("study"), rec.get("document"), rec.get("reader"), rec.get("chunk"))] = (doc, seg[0], seg[1])
    return out
