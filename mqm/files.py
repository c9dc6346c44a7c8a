"""Load and save an annotation set by file name: JSON (``.json``) or Marot/Anthea TSV."""

from __future__ import annotations

from pathlib import Path

from .jsonio import read_json, write_json
from .model import MQMData, MQMInputError
from .schemes import Scheme
from .tsv import read_tsv, write_tsv

TSV_SUFFIXES = (".tsv", ".tsv.gz", ".gz", ".tar.gz", ".tgz", ".txt")


def check_severities(data: MQMData, scheme: Scheme) -> None:
    """Raise :class:`MQMInputError` at the first error whose severity the scheme lacks."""
    for error in data.errors:
        if scheme.severity(error.severity) is None:
            raise MQMInputError(f"unknown severity {error.severity!r} for scheme {scheme.name} "
                                f"(expected one of: {', '.join(scheme.severity_names)})",
                                data.path, error.line if error.line is not None else
                                f"segment {error.system}/{error.doc}/{error.seg_id}")


def load(path: str | Path, *, scheme: Scheme | None = None, strict: bool = False) -> MQMData:
    """Read a ``.json`` annotation set or a ``.tsv``/``.tsv.gz``/``.tar.gz`` Marot file."""
    if str(path).lower().endswith(".json"):
        data = read_json(path)
        if scheme is not None:
            check_severities(data, scheme)
        return data
    return read_tsv(path, scheme=scheme, strict=strict)


def save(data: MQMData, path: str | Path) -> None:
    """Write ``.json``, ``.tsv`` or ``.tsv.gz`` (chosen by the name)."""
    name = str(path).lower()
    if name.endswith(".json"):
        write_json(data, path)
    elif name.endswith((".tsv", ".tsv.gz")):
        write_tsv(data, path)
    else:
        raise MQMInputError("cannot tell the output format: name it .json, .tsv or .tsv.gz", str(path))
