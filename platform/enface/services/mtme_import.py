"""Importing a test-set root in mt-metrics-eval's layout: the test set of one language pair and its system outputs.

``documents/LP.docs`` gives the documents (each one's segments consecutive), ``sources/LP.txt``
the source, ``references/LP.REF.txt`` the references (in name order), and every
``system-outputs/LP/SYSTEM.txt`` becomes a baseline submission by an organizer, validated and
scored like any other. Human translations (outputs named like a reference) are left out unless
asked for. Scores in the layout are not imported: the platform computes its own.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from flask import current_app

from scoring.meta.errors import MetaInputError
from scoring.meta.mtme import MtmeSet, lps_in, read_mtme

from ..models import Submission, TestSet, User
from . import ServiceError
from .submissions import check_input, create_submission
from .testsets import import_testset
from .uploads import stream_to_temp


@dataclass
class MtmeImport:
    testset: TestSet
    submissions: list[Submission] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)        # human translations left out


def is_mtme_root(path: Path) -> bool:
    return (path / "documents").is_dir() and (path / "sources").is_dir()


def pick_lp(root: Path, lp: str | None) -> str:
    found = lps_in(root)
    if lp:
        if lp not in found:
            raise ServiceError("invalid_testset", f"{root}: no language pair {lp} (there are: {', '.join(found)})", 400)
        return lp
    if len(found) != 1:
        raise ServiceError("invalid_testset", f"{root} has {len(found)} language pairs ({', '.join(found)}): "
                           "choose one with --lp", 400)
    return found[0]


def _documents(ms: MtmeSet) -> list[tuple[str, int, int]]:
    """(document, first segment, end) of every document, in order; a document's segments must be consecutive."""
    docs: list[tuple[str, int, int]] = []
    seen: set[str] = set()
    for i, doc in enumerate(ms.docs):
        if docs and docs[-1][0] == doc:
            docs[-1] = (doc, docs[-1][1], i + 1)
            continue
        if doc in seen:
            raise ServiceError("invalid_testset", f"{ms.root / 'documents' / (ms.lp + '.docs')}:{i + 1}: the segments "
                               f"of document {doc!r} are not consecutive", 400)
        seen.add(doc)
        docs.append((doc, i, i + 1))
    return docs


def _write_testset(ms: MtmeSet, folder: Path, name: str) -> None:
    src_lang, _, tgt_lang = ms.lp.partition("-")
    docs = _documents(ms)
    refs = sorted(ms.references)
    meta = {"name": name, "src_lang": src_lang, "tgt_lang": tgt_lang, "documents": [d for d, _b, _e in docs],
            "description": f"imported from mt-metrics-eval's layout ({ms.root.name}, {ms.lp}); references: "
                           + ", ".join(f"ref{i + 1} = {r}" for i, r in enumerate(refs)),
            "mtme": {"root": ms.root.name, "lp": ms.lp, "references": refs}}
    (folder / "testset.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2), encoding="utf-8")
    for sub, lines in [("source", ms.sources)] + [(f"ref{i + 1}", ms.references[r]) for i, r in enumerate(refs)]:
        (folder / sub).mkdir()
        for doc, begin, end in docs:
            (folder / sub / f"{doc}.txt").write_text("".join(f"{line}\n" for line in lines[begin:end]),
                                                     encoding="utf-8")


def import_mtme(root: str | Path, task_name: str, *, lp: str | None = None, name: str | None = None,
                organizer: User, include_human: bool = False) -> MtmeImport:
    """The test set of ``lp`` and a baseline submission (by ``organizer``) per system output."""
    root = Path(root)
    lp = pick_lp(root, lp)
    try:
        ms = read_mtme(root, lp)
    except MetaInputError as exc:
        raise ServiceError("invalid_testset", str(exc), 400) from None
    if not ms.docs or not ms.sources:
        raise ServiceError("invalid_testset", f"{root}: documents/{lp}.docs and sources/{lp}.txt are needed", 400)
    with tempfile.TemporaryDirectory(prefix="enface-mtme-") as tmp:
        _write_testset(ms, Path(tmp), name or f"{root.name} {lp}")
        ts = import_testset(tmp, task_name, name=name or f"{root.name} {lp}")
    result = MtmeImport(ts)
    max_bytes = int(current_app.config.get("MAX_CONTENT_LENGTH") or 200 * 1024 * 1024)
    for system, lines in sorted(ms.outputs.items()):
        if system in ms.human_translations and not include_human:
            result.skipped.append(system)
            continue
        with tempfile.TemporaryFile() as fh:
            fh.write("".join(f"{line}\n" for line in lines).encode("utf-8"))
            fh.seek(0)
            stored = stream_to_temp(fh, f"{system}.txt", max_bytes)
        data = check_input(organizer, "baseline", False, system,
                           f"system output imported from {root.name}/system-outputs/{lp}/{system}.txt")
        result.submissions.append(create_submission(organizer, ts, data, [stored]))
    return result
