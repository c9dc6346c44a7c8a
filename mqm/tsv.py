"""Read and write the Marot/Anthea MQM TSV format.

One row per judgement, tab-separated, no quoting; the first line is a header::

    system  doc  doc_id|docSegId  seg_id|globalSegId  rater  source  target  category  severity  [comment|metadata]

Columns are read by position (header names differ between files). The span of an
error is marked with ``<v>``...``</v>`` inside ``target``, or inside ``source``
for source-side errors such as omissions. ``No-error`` rows say the rater found
nothing; ``HOTW-test`` rows are attention checks (category ``Found``/``Missed``),
reported but never scored. The optional 10th column is a free-text comment, or
Anthea's JSON ``metadata`` (parsed into ``Error.metadata``; its ``note`` becomes
``Error.note``).

Files may be ``.tsv``, ``.tsv.gz`` or a ``.tar.gz`` holding one ``.tsv``.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path
from typing import Any

from .model import (
    ATTENTION_SEVERITY,
    NO_ERROR,
    AttentionCheck,
    Error,
    MQMData,
    MQMInputError,
    NoError,
    Segment,
    split_category,
)
from .schemes import Scheme, norm

OPEN, CLOSE = "<v>", "</v>"
DEFAULT_HEADER = ["system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity"]
# Severities accepted when no scheme is given: those of the packaged schemes.
KNOWN_SEVERITIES = ("Neutral", "Minor", "Major", "Critical")
MAX_BYTES = 1 << 30


def read_bytes(path: str | Path) -> bytes:
    """The TSV bytes of a .tsv, .tsv.gz/.gz or a .tar.gz/.tgz holding exactly one .tsv."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise MQMInputError("no such file", str(path)) from None
    except OSError as exc:
        raise MQMInputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    if raw[:2] != b"\x1f\x8b":
        return raw
    try:
        if tarfile.is_tarfile(io.BytesIO(raw)):
            with tarfile.open(fileobj=io.BytesIO(raw), mode="r:*") as tar:
                members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".tsv")
                           and not Path(m.name).name.startswith("._")]
                if len(members) != 1:
                    names = ", ".join(m.name for m in members) or "none"
                    raise MQMInputError(f"the archive must hold exactly one .tsv file (found: {names})",
                                        str(path))
                if members[0].size > MAX_BYTES:
                    raise MQMInputError(f"{members[0].name} is larger than {MAX_BYTES} bytes", str(path))
                fh = tar.extractfile(members[0])
                assert fh is not None
                return fh.read()
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as gz:
            data = gz.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise MQMInputError(f"decompresses to more than {MAX_BYTES} bytes", str(path))
        return data
    except (OSError, EOFError, tarfile.TarError) as exc:
        raise MQMInputError(f"not a readable gzip/tar.gz file: {exc}", str(path)) from None


def decode(raw: bytes, path: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise MQMInputError(f"not UTF-8 (byte {raw[exc.start]:#04x})", path, line) from None


def split_span(cell: str, what: str, path: str, line: int, strict: bool,
               warnings: list[str]) -> tuple[str, int | None, int | None, bool]:
    """(plain text, start, end, unclosed) of a cell with at most one <v>...</v> span."""
    n_open, n_close = cell.count(OPEN), cell.count(CLOSE)
    if n_open == 0 and n_close == 0:
        return cell, None, None, False
    if n_open == 1 and n_close == 1:
        i, j = cell.index(OPEN), cell.index(CLOSE)
        if j < i:
            raise MQMInputError(f"unbalanced <v> tags in {what}: </v> comes before <v>", path, line)
        plain = cell[:i] + cell[i + len(OPEN):j] + cell[j + len(CLOSE):]
        return plain, i, j - len(OPEN), False
    if n_open == 1 and n_close == 0:
        message = f"unbalanced <v> tags in {what}: <v> without </v>"
        if strict:
            raise MQMInputError(message, path, line)
        # Real Google data has one such row (the span then runs to the end of the text).
        warnings.append(f"{path}:{line}: {message}; the span is taken to run to the end of the {what}")
        i = cell.index(OPEN)
        plain = cell[:i] + cell[i + len(OPEN):]
        return plain, i, len(plain), True
    raise MQMInputError(f"unbalanced <v> tags in {what}: {n_open} <v> and {n_close} </v> "
                        "(one span per row is allowed)", path, line)


def _extra_column(value: str, is_metadata: bool, path: str, line: int) -> tuple[str, dict[str, Any] | None]:
    """(note, metadata) from the 10th column."""
    if not is_metadata or not value.startswith("{"):
        return value, None
    try:
        meta = json.loads(value)
    except json.JSONDecodeError as exc:
        raise MQMInputError(f"metadata column is not valid JSON: {exc.msg}", path, line) from None
    if not isinstance(meta, dict):
        raise MQMInputError("metadata column must be a JSON object", path, line)
    return str(meta.get("note", "") or ""), meta


def parse_tsv(text: str, *, path: str = "<tsv>", scheme: Scheme | None = None, strict: bool = False) -> MQMData:
    """Parse TSV text. Raises :class:`MQMInputError` naming the line of the first bad row."""
    data = MQMData(path=path)
    lines = text.split("\n")
    first = 0
    if lines and lines[0].split("\t", 1)[0].strip().lower() == "system":
        data.header = lines[0].rstrip("\r").split("\t")
        first = 1
    names = [h.strip().lower() for h in (data.header or [])]
    meta_column = len(names) > 9 and names[9] == "metadata"
    for index in range(first, len(lines)):
        raw = lines[index].rstrip("\r")
        if raw.strip():
            _parse_row(data, raw.split("\t"), index + 1, scheme, strict, meta_column)
    return data


def _parse_row(data: MQMData, fields: list[str], line: int, scheme: Scheme | None, strict: bool,
               meta_column: bool) -> None:
    path = data.path or "<tsv>"
    if len(fields) not in (9, 10):
        raise MQMInputError(
            f"malformed row: expected 9 or 10 tab-separated fields (system, doc, doc_seg_id, seg_id, "
            f"rater, source, target, category, severity[, comment|metadata]), found {len(fields)}", path, line)
    system, doc, doc_seg_id, seg_id, rater, source_cell, target_cell, category, severity = fields[:9]
    if not (rater.strip() or category.strip() or severity.strip()):
        # Marot allows rows that only carry segment metadata (e.g. automatic metrics).
        data.warnings.append(f"{path}:{line}: row without rater, category and severity (metadata only) skipped")
        return
    for name, value in (("system", system), ("seg_id", seg_id), ("rater", rater), ("severity", severity)):
        if not value.strip():
            raise MQMInputError(f"malformed row: empty {name} field", path, line)
    note, meta = "", None
    if len(fields) == 10:
        is_meta = meta_column or (data.header is None and fields[9].startswith("{"))
        note, meta = _extra_column(fields[9], is_meta, path, line)
    source, s_start, s_end, s_unclosed = split_span(source_cell, "source", path, line, strict, data.warnings)
    target, t_start, t_end, t_unclosed = split_span(target_cell, "target", path, line, strict, data.warnings)
    common: dict[str, Any] = dict(system=system, doc=doc, doc_seg_id=doc_seg_id, seg_id=seg_id, rater=rater,
                                  note=note, metadata=meta, line=line)
    key = (system, doc, doc_seg_id, seg_id)
    seg = data.segments.setdefault(key, Segment(system, doc, doc_seg_id, seg_id, source, target))
    if source != seg.source:
        common["row_source"] = source
    if target != seg.target:
        common["row_target"] = target

    kind = severity.strip().lower()
    has_span = s_start is not None or t_start is not None
    if kind in (NO_ERROR.lower(), ATTENTION_SEVERITY.lower()):
        if has_span:
            raise MQMInputError(f"a {severity} row cannot mark a <v> span", path, line)
        if kind == NO_ERROR.lower():
            data.no_errors.append(NoError(category=category, **common))
        else:
            data.attention_checks.append(AttentionCheck(result=category, **common))
        return
    known = scheme.severity_names if scheme else KNOWN_SEVERITIES
    if norm(severity) not in {norm(k) for k in known}:
        where = f" for scheme {scheme.name}" if scheme else ""
        raise MQMInputError(f"unknown severity {severity!r}{where} (expected one of: {', '.join(known)}, "
                            f"{NO_ERROR}, {ATTENTION_SEVERITY})", path, line)
    if s_start is not None and t_start is not None:
        raise MQMInputError("an error span is marked in both source and target", path, line)
    if s_start is not None:
        side, begin, end, unclosed, plain = "source", s_start, s_end, s_unclosed, source
    else:
        side, begin, end, unclosed, plain = "target", t_start, t_end, t_unclosed, target
    cat, sub = split_category(category)
    data.errors.append(Error(side=side, start=begin, end=end, text=plain[begin:end] if begin is not None else "",
                             category=cat, subcategory=sub, severity=severity, unclosed=unclosed, **common))


def read_tsv(path: str | Path, *, scheme: Scheme | None = None, strict: bool = False) -> MQMData:
    """Read a .tsv, .tsv.gz or .tar.gz (one .tsv inside) Marot/Anthea file."""
    label = str(path)
    return parse_tsv(decode(read_bytes(path), label), path=label, scheme=scheme, strict=strict)


# --- writing -------------------------------------------------------------------------------------

def _mark(text: str, start: int | None, end: int | None, unclosed: bool = False) -> str:
    if start is None or end is None:
        return text
    return text[:start] + OPEN + text[start:end] + ("" if unclosed else CLOSE) + text[end:]


def _where(row: Any) -> int | str:
    return row.line if row.line is not None else f"segment {row.system}/{row.doc}/{row.seg_id}"


def _check_span(data: MQMData, row: Error, text: str) -> None:
    if row.start is None:
        return
    if row.end is None or not 0 <= row.start <= row.end <= len(text):
        raise MQMInputError(f"span [{row.start}, {row.end}) does not fit the {row.side} text "
                            f"(length {len(text)})", data.path, _where(row))


def row_fields(data: MQMData, row: Any, extra: bool) -> list[str]:
    seg = data.segments[row.key]
    source = row.row_source if row.row_source is not None else seg.source
    target = row.row_target if row.row_target is not None else seg.target
    if isinstance(row, Error):
        text = source if row.side == "source" else target
        _check_span(data, row, text)
        if row.side == "source":
            source = _mark(source, row.start, row.end, row.unclosed)
        else:
            target = _mark(target, row.start, row.end, row.unclosed)
        category, severity = row.full_category, row.severity
    elif isinstance(row, NoError):
        category, severity = row.category, NO_ERROR
    else:
        category, severity = row.result, ATTENTION_SEVERITY
    fields = [row.system, row.doc, row.doc_seg_id, row.seg_id, row.rater, source, target, category, severity]
    if extra:
        if row.metadata is not None:
            meta = dict(row.metadata)
            if row.note and meta.get("note", "") != row.note:
                meta["note"] = row.note
            fields.append(json.dumps(meta, ensure_ascii=False, separators=(",", ":")))
        else:
            fields.append(row.note)
    for value in fields:
        if "\t" in value or "\n" in value:
            raise MQMInputError(f"cannot write a tab or newline inside a TSV field ({value[:40]!r}...)",
                                data.path, _where(row))
    return fields


def format_tsv(data: MQMData) -> str:
    rows = data.rows()
    has_meta = any(r.metadata is not None for r in rows)
    header = data.header
    if header is None:
        needs_extra = has_meta or any(r.note for r in rows)
        header = DEFAULT_HEADER + (["metadata" if has_meta else "comment"] if needs_extra else [])
    extra = len(header) > 9
    out = ["\t".join(header)]
    out.extend("\t".join(row_fields(data, r, extra)) for r in rows)
    return "\n".join(out) + "\n"


def write_tsv(data: MQMData, path: str | Path) -> None:
    """Write ``.tsv`` (or gzip-compressed ``.tsv.gz``)."""
    text = format_tsv(data).encode("utf-8")
    p = Path(path)
    if p.name.endswith(".gz"):
        with gzip.open(p, "wb") as fh:
            fh.write(text)
    else:
        p.write_bytes(text)

