"""Real WMT outputs from ../shared/data, turned into test sets. Never copied into the repo."""

from __future__ import annotations

import csv
import gzip
import io
import re
import tarfile
from collections import defaultdict
from pathlib import Path

from . import SHARED_DATA
from .services import require_service

ZHEN_TSV = SHARED_DATA / "google-mqm" / "sxs_mqm_generalMT2023_zhen.3ratingsPerSegment.tsv.tar.gz"
ENDE_TSV = SHARED_DATA / "google-mqm" / "mqm_ted_ende.tsv.gz"

_TAGS = re.compile(r"</?v>")


def require(path: Path) -> Path:
    """``path`` when it exists; otherwise skip, or fail under ENFACE_STRICT_SERVICES=1 (CI must have the data)."""
    require_service(path.exists(),
                    f"real data not available: {path} is absent (the tests read ../shared/data beside the project)")
    return path


def _rows(path: Path):
    if path.name.endswith(".tar.gz"):
        with tarfile.open(path) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith(".tsv"))
            text = tar.extractfile(member).read().decode("utf-8")
    else:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            text = fh.read()
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    next(reader)
    yield from reader


def system_segments(path: Path) -> tuple[list[tuple[str, int]], dict[tuple[str, int], str], dict[str, dict]]:
    """(ordered segment keys, source per key, {system: {key: target}}) with the <v> marks removed."""
    source: dict[tuple[str, int], str] = {}
    targets: dict[str, dict] = defaultdict(dict)
    for row in _rows(require(path)):
        system, doc, doc_seg = row[0], row[1], int(row[2])
        key = (doc, doc_seg)
        source.setdefault(key, _TAGS.sub("", row[5]))
        targets[system].setdefault(key, _TAGS.sub("", row[6]))
    keys = sorted(source, key=lambda k: (k[0], k[1]))
    return keys, source, dict(targets)


def ter_pairs(path: Path, *, systems: int | None = None, segments: int | None = None):
    """(hypothesis words, reference words) pairs for checking TER's edit distance on real outputs.

    Every system (the first ``systems`` in name order, or all) against each of
    the first two as reference, over the first ``segments`` segments (or all),
    tokenised as sacrebleu's TER does; each segment is tokenised once.
    """
    from sacrebleu.metrics import TER

    keys, _, targets = system_segments(path)
    keys = keys[:segments] if segments else keys
    names = sorted(targets)[:systems] if systems else sorted(targets)
    tokenize = TER().tokenizer
    words = {s: {k: tokenize(targets[s][k].rstrip()).split() for k in keys if k in targets[s]} for s in names}
    for ref_system in names[:2]:
        for system in names:
            if system != ref_system:
                for key in keys:
                    if key in words[system] and key in words[ref_system]:
                        yield words[system][key], words[ref_system][key]


def write_testset(root: Path, path: Path, ref_systems: tuple[str, str], *, src_lang: str, tgt_lang: str,
                  blank_ref2_every: int = 0) -> tuple[Path, dict[str, Path], list[str]]:
    """A test-set directory whose references are two real systems' outputs.

    Returns (testset dir, {system: output dir} for the other systems, doc names).
    Only segments that every system has are kept. Every ``blank_ref2_every``-th
    reference-2 line is emptied to exercise null alignments.
    """
    keys, source, targets = system_segments(path)
    systems = sorted(targets)
    keys = [k for k in keys if all(k in targets[s] for s in systems)]
    docs: dict[str, list] = defaultdict(list)
    for k in keys:
        docs[k[0]].append(k)
    names = {doc: re.sub(r"[^A-Za-z0-9._-]+", "_", doc) for doc in docs}
    ts = root / "testset"
    for sub in ("source", "ref1", "ref2"):
        (ts / sub).mkdir(parents=True)
    counter = 0
    for doc, dkeys in docs.items():
        (ts / "source" / f"{names[doc]}.txt").write_text("".join(source[k] + "\n" for k in dkeys), encoding="utf-8")
        (ts / "ref1" / f"{names[doc]}.txt").write_text(
            "".join(targets[ref_systems[0]][k] + "\n" for k in dkeys), encoding="utf-8")
        lines = []
        for k in dkeys:
            counter += 1
            blank = blank_ref2_every and counter % blank_ref2_every == 0
            lines.append(("" if blank else targets[ref_systems[1]][k]) + "\n")
        (ts / "ref2" / f"{names[doc]}.txt").write_text("".join(lines), encoding="utf-8")
    order = [names[d] for d in docs]
    (ts / "testset.json").write_text(
        '{"name": "%s", "src_lang": "%s", "tgt_lang": "%s", "documents": [%s]}'
        % (path.name, src_lang, tgt_lang, ", ".join(f'"{n}"' for n in order)), encoding="utf-8")
    outputs = {}
    for system in systems:
        if system in ref_systems:
            continue
        out = root / "systems" / system
        out.mkdir(parents=True)
        for doc, dkeys in docs.items():
            (out / f"{names[doc]}.txt").write_text("".join(targets[system][k] + "\n" for k in dkeys),
                                                    encoding="utf-8")
        outputs[system] = out
    return ts, outputs, order
