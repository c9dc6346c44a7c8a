"""The JSON form of an annotation set, as the platform stores it.

A document is an object (a bare list of segments is read too)::

    {
      "format": "enface-mqm", "version": 1,
      "header": ["system", "doc", ...],          # the TSV header, kept for a faithful export
      "segments": [
        {
          "system": "sysA", "doc": "doc1", "doc_seg_id": "1", "global_seg_id": "1",
          "source": "plain source text", "target": "plain target text",
          "errors": [
            {"rater": "rater1", "side": "target", "start": 4, "end": 9, "text": "marked",
             "category": "Accuracy", "subcategory": "Mistranslation", "severity": "Major",
             "note": "", "metadata": {...}, "line": 2}
          ],
          "no_error": [{"rater": "rater2", "line": 3}],
          "attention_checks": [{"rater": "rater3", "result": "Found", "line": 4}]
        }
      ]
    }

``start``/``end`` are character offsets (Unicode code points) into ``source`` or
``target`` (by ``side``), ``null`` for an error without a span; a whole-segment
Non-translation mark spans the whole target. Optional keys, left out when empty:
``note``, ``metadata`` (Anthea's per-row JSON), ``line`` (the TSV line, which
keeps the row order on export), ``unclosed`` (the TSV had ``<v>`` without
``</v>``), ``source``/``target`` on a row (that row's text, where it differs from
the segment's). TSV -> JSON -> TSV gives back every row unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .model import NO_ERROR, AttentionCheck, Error, MQMData, MQMInputError, NoError, Segment

FORMAT, VERSION = "enface-mqm", 1


def _common(row: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"rater": row.rater}
    if row.note:
        out["note"] = row.note
    if row.metadata is not None:
        out["metadata"] = row.metadata
    if row.line is not None:
        out["line"] = row.line
    if row.row_source is not None:
        out["source"] = row.row_source
    if row.row_target is not None:
        out["target"] = row.row_target
    return out


def to_json_obj(data: MQMData) -> dict[str, Any]:
    segments: dict[Any, dict[str, Any]] = {}
    for key, seg in data.segments.items():
        segments[key] = {"system": seg.system, "doc": seg.doc, "doc_seg_id": seg.doc_seg_id,
                         "global_seg_id": seg.global_seg_id, "source": seg.source, "target": seg.target,
                         "errors": [], "no_error": [], "attention_checks": []}
    for row in data.rows():
        entry = _common(row)
        if isinstance(row, Error):
            entry.update(side=row.side, start=row.start, end=row.end, text=row.text, category=row.category,
                         subcategory=row.subcategory, severity=row.severity)
            if row.unclosed:
                entry["unclosed"] = True
            segments[row.key]["errors"].append(entry)
        elif isinstance(row, NoError):
            if row.category != NO_ERROR:
                entry["category"] = row.category
            segments[row.key]["no_error"].append(entry)
        else:
            entry["result"] = row.result
            segments[row.key]["attention_checks"].append(entry)
    obj: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if data.header is not None:
        obj["header"] = data.header
    obj["segments"] = list(segments.values())
    return obj


def dumps(data: MQMData) -> str:
    return json.dumps(to_json_obj(data), ensure_ascii=False, indent=1)


def write_json(data: MQMData, path: str | Path) -> None:
    Path(path).write_text(dumps(data) + "\n", encoding="utf-8")


def _get(d: Any, name: str, where: str, path: str, kind: type | tuple[type, ...] = str,
         default: Any = ...) -> Any:
    if not isinstance(d, dict):
        raise MQMInputError("expected a JSON object", path, where)
    if name not in d:
        if default is ...:
            raise MQMInputError(f"missing {name!r}", path, where)
        return default
    value = d[name]
    if value is not None and not isinstance(value, kind) or (value is None and default is ...):
        raise MQMInputError(f"{name!r} has the wrong type ({type(value).__name__})", path, where)
    return value


def from_json_obj(obj: Any, path: str = "<json>") -> MQMData:
    if isinstance(obj, list):
        obj = {"segments": obj}
    if not isinstance(obj, dict) or not isinstance(obj.get("segments"), list):
        raise MQMInputError("expected an object with a 'segments' list (or a list of segments)", path)
    header = obj.get("header")
    if header is not None and not (isinstance(header, list) and all(isinstance(h, str) for h in header)):
        raise MQMInputError("'header' must be a list of strings", path, "header")
    data = MQMData(path=path, header=header)
    for i, s in enumerate(obj["segments"]):
        where = f"segments[{i}]"
        seg = Segment(*(str(_get(s, k, where, path, (str, int))) for k in
                        ("system", "doc", "doc_seg_id", "global_seg_id")),
                      source=_get(s, "source", where, path), target=_get(s, "target", where, path))
        if seg.key in data.segments:
            raise MQMInputError("duplicate segment (same system, doc, doc_seg_id, global_seg_id)", path, where)
        data.segments[seg.key] = seg
        base = dict(system=seg.system, doc=seg.doc, doc_seg_id=seg.doc_seg_id, seg_id=seg.global_seg_id)
        for list_name in ("errors", "no_error", "attention_checks"):
            for j, e in enumerate(_get(s, list_name, where, path, list, [])):
                at = f"{where}.{list_name}[{j}]"
                common = dict(base, rater=str(_get(e, "rater", at, path)),
                              note=_get(e, "note", at, path, str, "") or "",
                              metadata=_get(e, "metadata", at, path, dict, None),
                              line=_get(e, "line", at, path, int, None),
                              row_source=_get(e, "source", at, path, str, None),
                              row_target=_get(e, "target", at, path, str, None))
                if list_name == "errors":
                    side = _get(e, "side", at, path, str, "target")
                    if side not in ("target", "source"):
                        raise MQMInputError(f"side must be 'target' or 'source', not {side!r}", path, at)
                    start = _get(e, "start", at, path, int, None)
                    end = _get(e, "end", at, path, int, None)
                    text = common["row_source" if side == "source" else "row_target"] or \
                        (seg.source if side == "source" else seg.target)
                    if (start is None) != (end is None) or (
                            start is not None and not 0 <= start <= end <= len(text)):
                        raise MQMInputError(f"span [{start}, {end}) does not fit the {side} text "
                                            f"(length {len(text)})", path, at)
                    marked = text[start:end] if start is not None else ""
                    given = _get(e, "text", at, path, str, None)
                    if given is not None and given != marked:
                        raise MQMInputError(f"text {given!r} is not what the span marks ({marked!r})", path, at)
                    data.errors.append(Error(
                        side=side, start=start, end=end, text=marked,
                        category=_get(e, "category", at, path), subcategory=_get(e, "subcategory", at, path, str, ""),
                        severity=_get(e, "severity", at, path), unclosed=bool(e.get("unclosed", False)), **common))
                elif list_name == "no_error":
                    data.no_errors.append(NoError(category=_get(e, "category", at, path, str, NO_ERROR), **common))
                else:
                    data.attention_checks.append(AttentionCheck(result=_get(e, "result", at, path), **common))
    return data


def read_json(path: str | Path) -> MQMData:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MQMInputError("no such file", str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MQMInputError(f"cannot read: {exc}", str(path)) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MQMInputError(f"not valid JSON: {exc.msg} (column {exc.colno})", str(path), exc.lineno) from None
    return from_json_obj(obj, str(path))
