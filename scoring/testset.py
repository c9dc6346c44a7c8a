"""Test sets and system outputs on disk.

A test set is a directory::

    testset.json          {"name", "src_lang", "tgt_lang", optional "documents": [...order...]}
    source/<doc>.txt      one segment per line
    ref1/<doc>.txt        reference 1, line-aligned with the source
    ref2/<doc>.txt        reference 2 (optional; empty lines mean a null alignment)

The flat layout (``src.txt``, ``ref1.txt``, ``ref2.txt``, ``docids.txt``) is read
by :func:`load_flat`. A system output is a directory ``<doc>.txt`` per document
or one file with every segment in test-set order.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

TESTSET_META = "testset.json"
DOC_SUFFIX = ".txt"


class TestSetError(ValueError):
    """A test set on disk is malformed; the message names the file and the problem."""

    __test__ = False  # not a pytest test class


def split_lines(text: str) -> list[str]:
    """Split text into segments the way the validator normalises it.

    A UTF-8 BOM is dropped, CRLF/CR become LF and the final newline does not
    start an empty segment. Trailing whitespace is kept; metrics strip it the
    way the sacrebleu command line does.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def read_segments(path: Path) -> list[str]:
    """A file's segments; unreadable or non-UTF-8 files raise TestSetError naming the file."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise TestSetError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    try:
        return split_lines(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise TestSetError(f"{path}: invalid UTF-8 at byte {exc.start} (line {line})") from exc


@dataclass(frozen=True)
class Document:
    name: str
    source: tuple[str, ...]
    refs: tuple[tuple[str, ...], ...]  # one tuple of segments per reference

    def __len__(self) -> int:
        return len(self.source)


@dataclass
class TestSet:
    name: str
    src_lang: str
    tgt_lang: str
    documents: list[Document]
    path: Path | None = None
    meta: dict = field(default_factory=dict)

    __test__ = False  # not a pytest test class

    @property
    def doc_names(self) -> list[str]:
        return [d.name for d in self.documents]

    @property
    def num_refs(self) -> int:
        return len(self.documents[0].refs) if self.documents else 0

    @property
    def num_segments(self) -> int:
        return sum(len(d) for d in self.documents)

    def document(self, name: str) -> Document:
        for doc in self.documents:
            if doc.name == name:
                return doc
        raise KeyError(name)

    def sources(self) -> list[str]:
        return [s for d in self.documents for s in d.source]

    def references(self) -> list[list[str]]:
        """Reference streams in test-set order, one list per reference."""
        return [[s for d in self.documents for s in d.refs[i]] for i in range(self.num_refs)]

    def doc_ids(self) -> list[str]:
        """The document name of every segment, in order."""
        return [d.name for d in self.documents for _ in d.source]


def natural_key(name: str):
    return [int(t) if t.isascii() and t.isdigit() else t for t in re.split(r"(\d+)", name)]


def doc_files(folder: Path) -> dict[str, Path]:
    """``<doc>.txt`` files of a folder by document name (document names may contain dots)."""
    return {p.name[: -len(DOC_SUFFIX)]: p for p in sorted(folder.iterdir())
            if p.is_file() and p.name.endswith(DOC_SUFFIX) and not p.name.startswith(".")}


#: The longest document name: its ``<name>.txt`` must be a file name (at most 255 bytes on common file systems).
MAX_DOC_NAME_BYTES = 255 - len(DOC_SUFFIX)


def check_doc_name(name: object, where: str) -> str:
    """A document name as the test set lists it: a non-empty string that names one file, ``<name>.txt``, in
    its folder: no ``/`` or ``\\``, not ``.`` or ``..`` nor starting with a dot (the name becomes an archive
    member's path in the release and in ``source.zip``), no control characters, short enough."""
    if not isinstance(name, str) or not name.strip():
        raise TestSetError(f"{where}: documents must be names (non-empty strings), not {type(name).__name__} "
                           f"{str(name)[:40]!r}")
    if "/" in name or "\\" in name or name.startswith(".") or not name.isprintable() or name != name.strip():
        raise TestSetError(f"{where}: the document name {name[:60]!r} is not a plain file name (no / or \\, no "
                           "leading dot or spaces around it, no control characters)")
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_DOC_NAME_BYTES:
        raise TestSetError(f"{where}: the document name {name[:40]!r}… is too long ({size} bytes; at most "
                           f"{MAX_DOC_NAME_BYTES}, since <name>{DOC_SUFFIX} must be a file name)")
    return name


def _read_meta(meta_file: Path) -> dict:
    """testset.json, checked: a JSON object with string name and languages and, optionally, a list of names."""
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TestSetError(f"{meta_file}: not valid JSON ({exc})") from exc
    except RecursionError:
        raise TestSetError(f"{meta_file}: the JSON is nested too deeply to be a test set's description") from None
    if not isinstance(meta, dict):
        raise TestSetError(f"{meta_file}: must hold a JSON object")
    missing = [k for k in ("name", "src_lang", "tgt_lang") if not meta.get(k)]
    if missing:
        raise TestSetError(f"{meta_file}: missing {', '.join(missing)}")
    for key in ("name", "src_lang", "tgt_lang"):
        if not isinstance(meta[key], str):
            raise TestSetError(f"{meta_file}: {key} must be a string, not {type(meta[key]).__name__}")
    documents = meta.get("documents")
    if documents is not None:
        if not isinstance(documents, list) or not all(isinstance(n, str) and n for n in documents):
            raise TestSetError(f'{meta_file}: "documents" must be a list of document names')
        for name in documents:
            check_doc_name(name, f"{meta_file}: documents")
        if len(set(documents)) != len(documents):
            twice = sorted({n for n in documents if documents.count(n) > 1})
            raise TestSetError(f'{meta_file}: "documents" lists {", ".join(twice)} more than once')
    return meta


def load_testset(path: str | Path) -> TestSet:
    """Read a test-set directory (or a flat-layout directory, see :func:`load_flat`)."""
    root = Path(path)
    if not root.is_dir():
        raise TestSetError(f"{root}: not a directory")
    meta_file = root / TESTSET_META
    if not meta_file.is_file():
        if (root / "src.txt").is_file():
            return load_flat(root / "src.txt", [p for p in (root / "ref1.txt", root / "ref2.txt") if p.is_file()],
                             root / "docids.txt" if (root / "docids.txt").is_file() else None)
        raise TestSetError(f"{meta_file}: missing (a test set needs testset.json with name, src_lang, tgt_lang)")
    meta = _read_meta(meta_file)
    if not (root / "source").is_dir():
        raise TestSetError(f"{root / 'source'}: missing")
    sources = doc_files(root / "source")
    order = meta.get("documents") or sorted(sources, key=natural_key)
    ref_dirs = [root / r for r in ("ref1", "ref2") if (root / r).is_dir()]
    ref_dirs += sorted((p for p in root.glob("ref[3-9]") if p.is_dir()), key=lambda p: p.name)
    documents = []
    for name in order:
        check_doc_name(name, str(root / "source"))
        if name not in sources:
            raise TestSetError(f"{root / 'source' / (name + DOC_SUFFIX)}: listed in testset.json but missing")
        src = read_segments(sources[name])
        refs = []
        for ref_dir in ref_dirs:
            ref_file = ref_dir / (name + DOC_SUFFIX)
            if not ref_file.is_file():
                raise TestSetError(f"{ref_file}: missing (every reference folder needs every document)")
            ref = read_segments(ref_file)
            if len(ref) != len(src):
                raise TestSetError(f"{ref_file}: {len(ref)} lines, but the source has {len(src)}")
            refs.append(tuple(ref))
        documents.append(Document(name, tuple(src), tuple(refs)))
    if not documents:
        raise TestSetError(f"{root / 'source'}: no <doc>.txt files")
    return TestSet(meta["name"], meta["src_lang"], meta["tgt_lang"], documents, root, meta)


def load_flat(src: str | Path, refs: list[str | Path], docids: str | Path | None = None, *,
              name: str | None = None, src_lang: str = "", tgt_lang: str = "") -> TestSet:
    """Plain files: one segment per line, ``docids`` gives a document id per line."""
    src_lines = read_segments(Path(src))
    ref_lines = [read_segments(Path(r)) for r in refs]
    for path, lines in zip(refs, ref_lines):
        if len(lines) != len(src_lines):
            raise TestSetError(f"{path}: {len(lines)} lines, but {src} has {len(src_lines)}")
    if docids is not None:
        ids = read_segments(Path(docids))
        if len(ids) != len(src_lines):
            raise TestSetError(f"{docids}: {len(ids)} lines, but {src} has {len(src_lines)}")
    else:
        ids = ["doc"] * len(src_lines)
    for line, doc_id in enumerate(ids, 1):
        if line == 1 or doc_id != ids[line - 2]:
            check_doc_name(doc_id, f"{docids}: line {line}")
    documents: list[Document] = []
    start = 0
    for i in range(1, len(ids) + 1):
        if i == len(ids) or ids[i] != ids[start]:
            documents.append(Document(ids[start], tuple(src_lines[start:i]),
                                      tuple(tuple(r[start:i]) for r in ref_lines)))
            start = i
    names = [d.name for d in documents]
    if len(set(names)) != len(names):
        raise TestSetError(f"{docids}: the segments of a document must be contiguous")
    return TestSet(name or Path(src).stem, src_lang, tgt_lang, documents, Path(src).parent, {})


def is_ignored_file(name: str) -> bool:
    """Files that operating systems and archivers add by themselves (``.DS_Store``, ``__MACOSX/``, ...)."""
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    return not parts or parts[-1].startswith(".") or "__MACOSX" in parts or parts[-1] in ("Thumbs.db", "desktop.ini")


def output_from_files(testset: TestSet, files, *, document_level: bool = False) -> dict[str, list[str]]:
    """Segments per document from uploaded files (``{name: bytes}`` or ``(name, bytes)`` pairs).

    For files the validator accepted: one ``<doc>.txt`` per document, or a
    single file with every segment in test-set order. Folder prefixes (from a
    zip) and files the validator ignores are dropped.
    """
    pairs = files.items() if isinstance(files, dict) else files
    visible = {name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]: data
               for name, data in pairs if not is_ignored_file(name)}
    docs = {n + DOC_SUFFIX: n for n in testset.doc_names}
    if len(visible) == 1 and next(iter(visible)) not in docs:
        if document_level:
            raise TestSetError("a document-level output must have one <doc>.txt file per document")
        name, data = next(iter(visible.items()))
        return split_by_documents(testset, split_lines(data.decode("utf-8")), name)
    missing = [n for n in testset.doc_names if n + DOC_SUFFIX not in visible]
    if missing:
        raise TestSetError(f"missing documents {', '.join(missing)}")
    return {docs[f]: split_lines(visible[f].decode("utf-8")) for f in docs}


def load_system_output(testset: TestSet, path: str | Path, *, document_level: bool = False) -> dict[str, list[str]]:
    """Segments of a system output per document, for an already validated output.

    A directory holds ``<doc>.txt`` per document; a single file holds every
    segment in test-set order and is cut by the documents' segment counts
    (so a document-level output must come as a directory).
    """
    path = Path(path)
    if path.is_dir():
        files = doc_files(path)
        missing = [n for n in testset.doc_names if n not in files]
        if missing:
            raise TestSetError(f"{path}: missing documents {', '.join(missing)}")
        return {n: read_segments(files[n]) for n in testset.doc_names}
    if document_level:
        raise TestSetError(f"{path}: a document-level output must be a directory with one <doc>.txt per document")
    return split_by_documents(testset, read_segments(path), path)


def split_by_documents(testset: TestSet, lines: list[str], where: str | Path = "output") -> dict[str, list[str]]:
    """Cut a one-file output (every segment in test-set order) into documents."""
    if len(lines) != testset.num_segments:
        raise TestSetError(f"{where}: {len(lines)} lines, but the test set has {testset.num_segments} segments")
    out, start = {}, 0
    for doc in testset.documents:
        out[doc.name] = lines[start:start + len(doc)]
        start += len(doc)
    return out
