"""Validate a system output (a submission) against a test set.

A submission is either a directory with one ``<doc>.txt`` per document of the
test set, or one file with every segment in test-set order (see
:mod:`scoring.testset`). :func:`validate_submission` checks one on disk and
:func:`validate_files` checks in-memory uploads; both return a
:class:`ValidationReport` and never raise on bad input: every problem becomes
a :class:`Finding` that names the file, the line and the problem.

Memory stays proportional to one document: sizes are checked with ``stat``
before anything is opened, files are read in binary line by line, and a
single-file submission is streamed and cut into documents as it is read.

Run from the command line::

    python -m scoring.validate TESTSET_DIR SUBMISSION [--document-level] [--json]
"""

from __future__ import annotations

import difflib
import io
import math
import os
import re
import stat
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from scoring.languages import primary_language
from scoring.metrics.registry import REGISTRY
from scoring.testset import DOC_SUFFIX, Document, TestSet, is_ignored_file

ERROR = "error"
WARNING = "warning"


DEFAULT_MAX_BYTES = 50 * 1024 * 1024
#: The longest line (segment) a file may hold. A longer one is an error, found as the file streams (the line is
#: never held in memory nor checked further): no translation segment is a megabyte long, and one that is
#: costs the checks and the metrics minutes and gigabytes.
DEFAULT_MAX_LINE_BYTES = 1024 * 1024
_READ_CHUNK = 1024 * 1024

# Thresholds of the content heuristics, named so that callers and tests can see them.
REPEAT_RUN = 5                 # this many consecutive identical non-empty lines look like a generation loop
SCRIPT_SHARE = 0.5             # share of letters in the source script above which a line looks untranslated
SCRIPT_MIN_LETTERS = 8         # shorter lines are skipped by the script check (names, "iPhone")
RATIO_HIGH, RATIO_LOW = 4.0, 0.2   # output/expected length outside this range is absurd
RATIO_MIN_EXCESS = 40          # a "too long" line must also exceed the expected length by this many characters
RATIO_MIN_EXPECTED = 30        # a "too short" line is only judged when this many characters are expected
SNIFF_BYTES = 8192             # head of a file examined for binary content


# --------------------------------------------------------------------------- report


@dataclass
class Finding:
    """One report entry: an error rejects the submission, a warning is shown to the participant."""

    severity: str
    code: str
    message: str
    file: str | None
    line: int | None
    column: int | None = None
    byte_offset: int | None = None
    document: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def location(self) -> str:
        """``file:line:column`` as far as known, ``(submission)`` for whole-submission findings."""
        loc = self.file if self.file is not None else "(submission)"
        if self.line is not None:
            loc += f":{self.line}"
            if self.column is not None:
                loc += f":{self.column}"
        return loc


@dataclass
class ValidationReport:
    submission: str
    document_level: bool = False
    findings: list[Finding] = field(default_factory=list)
    documents: dict[str, int] = field(default_factory=dict)
    na_metrics: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    def codes(self, severity: str | None = None) -> set[str]:
        """The finding codes present, e.g. ``{"line-count", "bom"}`` (handy in tests and views)."""
        return {f.code for f in self.findings if severity is None or f.severity == severity}

    def to_dict(self) -> dict:
        return {
            "submission": self.submission,
            "ok": self.ok,
            "document_level": self.document_level,
            "na_metrics": list(self.na_metrics),
            "documents": dict(self.documents),
            "errors": [f.to_dict() for f in self.errors],
            "warnings": [f.to_dict() for f in self.warnings],
        }

    def format_text(self) -> str:
        lines = [f"{f.severity.upper()} {f.location()} [{f.code}] {f.message}" for f in self.findings]
        n_err, n_warn = len(self.errors), len(self.warnings)
        verdict = "accepted" if self.ok else "rejected"
        if self.ok and self.document_level:
            verdict += " as a document-level submission (" + ", ".join(m.upper() if m != "chrf" else "chrF"
                                                                        for m in self.na_metrics) + " n/a)"
        n_lines = sum(self.documents.values())
        lines.append(f"{self.submission}: {verdict}: {_plural(n_err, 'error')}, {_plural(n_warn, 'warning')}; "
                     f"{_plural(len(self.documents), 'document')}, {_plural(n_lines, 'line')} read")
        return "\n".join(lines)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# Codes about the files of a submission rather than their content.
_SUBMISSION_WIDE = frozenset({"extra-document", "missing-document", "duplicate-document", "file-name-case", "not-txt",
                              "not-a-file", "symlink", "ignored-file", "unsafe-path", "too-large", "unreadable"})


class _Collector:
    """Collects findings, keeping at most ``cap`` per (code, file) and summarising the rest."""

    def __init__(self, cap: int):
        self.cap = max(1, cap)
        self.findings: list[Finding] = []
        self._seen: Counter = Counter()
        self._dropped: dict[tuple[str, str | None], list] = {}   # key -> [count, severity]

    def add(self, severity: str, code: str, message: str, file: str | None = None, line: int | None = None,
            column: int | None = None, byte_offset: int | None = None, document: str | None = None) -> None:
        # Findings about the submission's files are capped across the submission: a folder of 10,000 junk
        # files gives one finding per file, each with its own name.
        key = (code, None if code in _SUBMISSION_WIDE else file)
        self._seen[key] += 1
        if self._seen[key] > self.cap:
            dropped = self._dropped.setdefault(key, [0, severity])
            dropped[0] += 1
            if severity == ERROR:
                dropped[1] = ERROR
            return
        self.findings.append(Finding(severity, code, message, file, line, column, byte_offset, document))

    def flush(self, *files: str | None) -> None:
        """Write the "and N more" summaries of ``files`` (of everything when none is given) next to their findings.

        ``None`` stands for the findings about the submission as a whole.
        """
        for key in [k for k in self._dropped if not files or k[1] in files]:
            count, severity = self._dropped.pop(key)
            code, fname = key
            where = f" in {fname}" if fname else ""
            self.findings.append(Finding(severity, code, f"... and {count} more [{code}] finding"
                                         f"{'s' if count != 1 else ''}{where} not listed", fname, None))


# --------------------------------------------------------------------------- languages and scripts

# Scripts a language is written in. Letters of a source script that the target language does
# not use suggest an untranslated line.
_LATIN_LANGS = (
    "en de fr es it pt nl sv da no nb nn fi et lv lt pl cs sk sl hr bs sq ro hu tr az uz id ms vi tl ca gl eu "
    "ga cy is mt sw ha yo zu xh af eo la lb fy so").split()
_LANG_SCRIPTS: dict[str, frozenset[str]] = {lang: frozenset({"Latin"}) for lang in _LATIN_LANGS}
_LANG_SCRIPTS.update({
    "zh": frozenset({"Han"}), "ja": frozenset({"Han", "Hiragana", "Katakana"}), "ko": frozenset({"Hangul", "Han"}),
    "ru": frozenset({"Cyrillic"}), "uk": frozenset({"Cyrillic"}), "be": frozenset({"Cyrillic"}),
    "bg": frozenset({"Cyrillic"}), "mk": frozenset({"Cyrillic"}), "kk": frozenset({"Cyrillic"}),
    "ky": frozenset({"Cyrillic"}), "mn": frozenset({"Cyrillic"}), "tg": frozenset({"Cyrillic"}),
    "sr": frozenset({"Cyrillic", "Latin"}),
    "ar": frozenset({"Arabic"}), "fa": frozenset({"Arabic"}), "ur": frozenset({"Arabic"}), "ps": frozenset({"Arabic"}),
    "he": frozenset({"Hebrew"}), "yi": frozenset({"Hebrew"}), "el": frozenset({"Greek"}),
    "th": frozenset({"Thai"}), "hi": frozenset({"Devanagari"}), "mr": frozenset({"Devanagari"}),
    "ne": frozenset({"Devanagari"}), "bn": frozenset({"Bengali"}), "pa": frozenset({"Gurmukhi"}),
    "gu": frozenset({"Gujarati"}), "ta": frozenset({"Tamil"}), "te": frozenset({"Telugu"}),
    "kn": frozenset({"Kannada"}), "ml": frozenset({"Malayalam"}), "si": frozenset({"Sinhala"}),
    "ka": frozenset({"Georgian"}), "hy": frozenset({"Armenian"}), "am": frozenset({"Ethiopic"}),
    "km": frozenset({"Khmer"}), "lo": frozenset({"Lao"}), "my": frozenset({"Myanmar"}), "bo": frozenset({"Tibetan"}),
})

# unicodedata.name() prefixes -> script. Order matters only where one prefix extends another.
_SCRIPT_PREFIXES = (
    ("CJK UNIFIED IDEOGRAPH", "Han"), ("CJK COMPATIBILITY IDEOGRAPH", "Han"), ("HIRAGANA", "Hiragana"),
    ("KATAKANA", "Katakana"), ("HANGUL", "Hangul"), ("LATIN", "Latin"), ("CYRILLIC", "Cyrillic"),
    ("GREEK", "Greek"), ("ARABIC", "Arabic"), ("HEBREW", "Hebrew"), ("THAI", "Thai"),
    ("DEVANAGARI", "Devanagari"), ("BENGALI", "Bengali"), ("GURMUKHI", "Gurmukhi"), ("GUJARATI", "Gujarati"),
    ("TAMIL", "Tamil"), ("TELUGU", "Telugu"), ("KANNADA", "Kannada"), ("MALAYALAM", "Malayalam"),
    ("SINHALA", "Sinhala"), ("GEORGIAN", "Georgian"), ("ARMENIAN", "Armenian"), ("ETHIOPIC", "Ethiopic"),
    ("KHMER", "Khmer"), ("LAO", "Lao"), ("MYANMAR", "Myanmar"), ("TIBETAN", "Tibetan"),
)
# Scripts with about one character per word or syllable: far fewer characters per sentence than Latin.
_DENSE_SCRIPTS = frozenset({"Han", "Hiragana", "Katakana", "Hangul"})


def lang_scripts(lang: str | None) -> frozenset[str] | None:
    """Scripts of a language code such as ``zh``, ``zh-Hans`` or ``en_US``; None when unknown."""
    if not lang:
        return None
    return _LANG_SCRIPTS.get(primary_language(lang))


@lru_cache(maxsize=65536)
def char_script(ch: str) -> str | None:
    """The script of a letter (``"Han"``, ``"Latin"``, ...) from its Unicode name; None for others."""
    if ch < "\x80":
        return "Latin" if ch.isalpha() else None
    name = unicodedata.name(ch, "")
    for width in ("FULLWIDTH ", "HALFWIDTH "):
        if name.startswith(width):
            name = name[len(width):]
    for prefix, script in _SCRIPT_PREFIXES:
        if name.startswith(prefix):
            return script
    return None


def _foreign_share(text: str, foreign: frozenset[str]) -> tuple[float, int]:
    """Share of the letters of ``text`` written in one of the ``foreign`` scripts, and the letter count."""
    if "Latin" not in foreign and text.isascii():
        return 0.0, 0   # the common case of an English output line, decided in C
    letters = hits = 0
    for ch, n in Counter(text).items():   # each distinct character once
        if ch.isalpha():
            letters += n
            if char_script(ch) in foreign:
                hits += n
    return (hits / letters if letters else 0.0), letters


# --------------------------------------------------------------------------- reading bytes

_BOM = b"\xef\xbb\xbf"
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")   # not tab; CR and LF are line breaks
_ODD_BREAKS = re.compile("[\u2028\u2029\ufeff]")
_CONTROL_NAMES = {0x00: "NUL", 0x08: "backspace", 0x0B: "vertical tab", 0x0C: "form feed", 0x1B: "ESC",
                  0x7F: "DEL", 0x85: "NEL"}

_MAGIC = (
    (b"\x00\x00\xfe\xff", "UTF-32 text"), (b"\xff\xfe\x00\x00", "UTF-32 text"),
    (b"\xff\xfe", "UTF-16 text"), (b"\xfe\xff", "UTF-16 text"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"), (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or a .docx/.odt document)"), (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "a gzip archive"), (b"\xfd7zXZ\x00", "an xz archive"), (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Microsoft Office document"), (b"{\\rtf", "an RTF document"),
    (b"\x7fELF", "an executable"), (b"Rar!\x1a\x07", "a RAR archive"),
)


def _sniff_binary(head: bytes) -> str | None:
    """What a file looks like when it is clearly not UTF-8 text (None when it may be text)."""
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    if head.startswith(b"BZh") and head[3:4].isdigit():
        return "a bzip2 archive"
    if not head:
        return None
    nuls = head.count(0)
    if nuls * 10 > len(head):
        # UTF-16 without a byte-order mark puts a NUL next to every ASCII character.
        if head[1::2].count(0) * 3 > len(head) or head[0::2].count(0) * 3 > len(head):
            return "UTF-16 text (without a byte-order mark)"
        return "binary data"
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    if controls * 4 > len(head):
        return "binary data"
    return None


def _iter_segments(fh: BinaryIO, offset: int = 0, max_line_bytes: int | None = None
                   ) -> Iterator[tuple[bytes | None, int, str]]:
    """Yield ``(segment, byte offset, line ending)`` exactly as :func:`scoring.testset.split_lines` splits.

    CRLF, LF and a bare CR each end a segment and a final line break does not
    start an empty one. CR and LF bytes never occur inside a UTF-8 multibyte
    sequence, so splitting bytes before decoding is safe.

    A line longer than ``max_line_bytes`` is read past in chunks, never held whole, and yielded as
    ``(None, offset, length in bytes as a string)``.
    """
    while True:
        chunk = fh.readline(max_line_bytes + 1) if max_line_bytes else fh.readline()
        if not chunk:
            return
        start = offset
        offset += len(chunk)
        if max_line_bytes and len(chunk) - chunk.endswith(b"\n") > max_line_bytes:
            length = len(chunk)
            while not chunk.endswith(b"\n"):
                chunk = fh.readline(_READ_CHUNK)
                if not chunk:
                    break
                length += len(chunk)
            offset = start + length
            yield None, start, str(length)
            continue
        if chunk.endswith(b"\n"):
            body, eol = chunk[:-1], "\n"
            if body.endswith(b"\r"):
                body, eol = body[:-1], "\r\n"
        else:
            body, eol = chunk, ""
        if b"\r" not in body:
            yield body, start, eol
            continue
        parts = body.split(b"\r")
        for part in parts[:-1]:
            yield part, start, "\r"
            start += len(part) + 1
        if eol == "" and parts[-1] == b"":
            return  # the file ends with a bare CR: a final line break, not an empty segment
        yield parts[-1], start, eol


def _display(name: str) -> str:
    """A file name safe to print: undecodable bytes and control characters escaped."""
    try:
        name = os.fsencode(name).decode("utf-8", "backslashreplace")
    except (UnicodeError, TypeError):
        name = repr(name)
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", name.replace("\n", "\\n").replace("\r", "\\r"))


def _preview(text: str, width: int = 50) -> str:
    text = text.strip()
    return repr(text if len(text) <= width else text[:width] + "…")


class _LineReader:
    """Decodes the segments of one file, reporting encoding and control-character problems.

    Iterating yields the text of each segment. ``document`` may be changed
    while iterating (a single-file submission moves through the documents).
    """

    def __init__(self, fh: BinaryIO, label: str, out: _Collector, *, document: str | None = None,
                 target_scripts: frozenset[str] | None = None, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES):
        self.fh, self.label, self.out, self.document = fh, label, out, document
        self.target_scripts = target_scripts
        self.max_line_bytes = max_line_bytes
        self.line_endings: Counter = Counter()
        self.first_cr_line: int | None = None
        self.lines = 0

    def _add(self, severity, code, message, line, column=None, byte_offset=None):
        self.out.add(severity, code, message, self.label, line, column, byte_offset, self.document)

    def __iter__(self) -> Iterator[str]:
        offset = 0
        if self.fh.read(3) == _BOM:
            offset = 3
            self._add(WARNING, "bom", "the file starts with a UTF-8 byte-order mark (BOM); it was removed "
                      "(normalised)", 1, 1, 0)
        else:
            self.fh.seek(0)
        for raw, start, eol in _iter_segments(self.fh, offset, self.max_line_bytes):
            self.lines += 1
            n = self.lines
            if raw is None:   # over the limit: not decoded, not checked, an empty segment stands in for it
                self._add(ERROR, "line-too-long", f"line {n} is {_size(int(eol))} long, over the limit of "
                          f"{_size(self.max_line_bytes)} per line; it was not read (are the line breaks "
                          "missing?)", n, None, start)
                yield ""
                continue
            if eol in ("\r\n", "\r"):
                self.line_endings[eol] += 1
                if eol == "\r" and self.first_cr_line is None:
                    self.first_cr_line = n
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                text = raw.decode("utf-8", "replace")
                column = len(raw[:exc.start].decode("utf-8")) + 1
                bad = raw[exc.start:exc.end].hex(" ").upper()
                self._add(ERROR, "invalid-utf8", f"line {n}, column {column}: invalid UTF-8 (byte"
                          f"{'s' if exc.end - exc.start > 1 else ''} {bad} at byte offset {start + exc.start})"
                          f"{self._encoding_hint(raw)}; save the file as UTF-8", n, column, start + exc.start)
            for m in _CONTROL.finditer(text):
                code = ord(m.group())
                name = _CONTROL_NAMES.get(code, "control character")
                self._add(ERROR, "control-char", f"line {n}, column {m.start() + 1}: control character "
                          f"U+{code:04X} ({name}); remove it (only tab is allowed)", n, m.start() + 1)
            for m in _ODD_BREAKS.finditer(text):
                ch = m.group()
                if ch == "\ufeff":
                    msg = "a byte-order mark (U+FEFF) inside the text (were files concatenated?); remove it"
                else:
                    msg = (f"Unicode line separator U+{ord(ch):04X}; it is not a line break here but some tools "
                           "split on it: replace it with a space")
                self._add(WARNING, "odd-character", f"line {n}, column {m.start() + 1}: {msg}", n, m.start() + 1)
            yield text

    def _encoding_hint(self, raw: bytes) -> str:
        """Name a legacy encoding the line decodes in, when that is plausible for the target language."""
        candidates = {"Han": ("gb18030", "big5"), "Hiragana": ("shift_jis", "euc_jp"), "Hangul": ("euc_kr",),
                      "Cyrillic": ("cp1251", "koi8_r"), "Latin": ("cp1252",), "Greek": ("cp1253",)}
        for script in sorted(self.target_scripts or ()):
            for enc in candidates.get(script, ()):
                try:
                    text = raw.decode(enc)
                except UnicodeDecodeError:
                    continue
                if any(char_script(c) == script for c in text if ord(c) > 127):
                    return f"; it looks like {enc.upper().replace('_', '-')}"
        return ""

    def line_ending_findings(self) -> None:
        """One warning per file for CRLF or CR line endings, after the file is read."""
        crlf, cr = self.line_endings["\r\n"], self.line_endings["\r"]
        if crlf:
            self._add(WARNING, "line-endings", f"{_plural(crlf, 'line')} end with Windows line breaks (CRLF); "
                      "they were read as plain line breaks (normalised)", None)
        if cr:
            self._add(WARNING, "line-endings", f"{_plural(cr, 'line')} end with a bare carriage return (CR), "
                      f"first at line {self.first_cr_line}; each CR counts as a line break (normalised)",
                      self.first_cr_line)


# --------------------------------------------------------------------------- shifted content

_DIGITS = re.compile(r"\d+")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{3,}")
_PUNCT = {"?": "?", "？": "?", "!": "!", "！": "!", '"': '"', "“": '"', "”": '"', "「": '"', "」": '"',
          "『": '"', "』": '"', "«": '"', "»": '"', "„": '"', "…": "…", ":": ":", "：": ":", ";": ";", "；": ";"}
_PUNCT_RE = re.compile("[" + re.escape("".join(_PUNCT)) + "]")


@dataclass(frozen=True)
class _Sig:
    """What the shift heuristic compares between an output line and a source line."""

    length: float
    digits: frozenset
    names: frozenset      # source side: Latin words worth finding in the output; output side: all its words
    punct: frozenset


def _signature(text: str, *, source: bool, scale: float = 1.0, latin_source: bool = False) -> _Sig:
    text = text.strip()
    digits = frozenset(str(int(d)) for d in _DIGITS.findall(text) if len(d) < 20)
    words = _LATIN_WORD.findall(text)
    if source:
        # Names survive translation: capitalised words inside a Latin-script sentence, any Latin word elsewhere.
        if latin_source:
            names = frozenset(w.lower() for i, w in enumerate(words) if i and w[0].isupper())
        else:
            names = frozenset(w.lower() for w in words)
    else:
        names = frozenset(w.lower() for w in words)
    punct = frozenset(_PUNCT[c] for c in _PUNCT_RE.findall(text)) | ({"…"} if "..." in text else set())
    return _Sig(len(text) * scale, digits, names, punct)


def _cost(h: _Sig, s: _Sig) -> float:
    """How badly an output line fits a source line (0 = perfectly); ``s.length`` is already scaled."""
    cost = abs(math.log((h.length + 1.0) / (s.length + 1.0)))
    if h.digits or s.digits:
        cost += 1.5 * (1.0 - len(h.digits & s.digits) / len(h.digits | s.digits))
    if s.names:
        cost += 1.0 * (1.0 - len(s.names & h.names) / len(s.names))
    if h.punct or s.punct:
        cost += 0.3 * (1.0 - len(h.punct & s.punct) / len(h.punct | s.punct))
    return cost


_OUT_OF_RANGE = 5.0   # cost of pairing an output line with a source line that does not exist


class _ShiftFinder:
    """Finds where an output with a wrong line count stops lining up with the source.

    If a line is missing (or two were merged), output line i reads like
    source line i+1 from that point on; if a line was added (or split),
    like source line i-1. For every output line we keep the cost against
    source line i and against source line i+step, then pick the split point
    that minimises "aligned before, shifted after", and report it only when
    the lines just after it clearly prefer the shifted pairing and the lines
    just before it do not.
    """

    WINDOW = 8
    MARGIN = 0.5      # cost within which two split points are equally plausible
    MAX_SPAN = 4      # more equally plausible split points than this: too unsure to say

    def __init__(self, sources: list[str], got: int, ratio: float, latin_source: bool):
        self.sources = sources
        self.step = 1 if got < len(sources) else -1
        self.ratio, self.latin_source = ratio, latin_source
        self.aligned = array("d")
        self.shifted = array("d")
        self._src_cache: dict[int, _Sig] = {}
        self.span = (0, 0)

    def _src(self, j: int) -> _Sig:
        sig = self._src_cache.get(j)
        if sig is None:
            if len(self._src_cache) > 4 * self.WINDOW:   # only neighbouring lines are ever reused
                self._src_cache.clear()
            sig = self._src_cache[j] = _signature(self.sources[j], source=True, scale=self.ratio,
                                                  latin_source=self.latin_source)
        return sig

    def feed(self, text: str) -> None:
        i = len(self.aligned)
        n = len(self.sources)
        if i > n:   # far past the end of the source: nothing to compare with
            self.aligned.append(_OUT_OF_RANGE)
            self.shifted.append(_OUT_OF_RANGE)
            return
        h = _signature(text, source=False)
        self.aligned.append(_cost(h, self._src(i)) if i < n else _OUT_OF_RANGE)
        j = i + self.step
        self.shifted.append(_cost(h, self._src(j)) if 0 <= j < n else _OUT_OF_RANGE)

    def find(self) -> int | None:
        """0-based index of the first shifted output line, or None when not confident.

        ``len(output)`` means "no shift inside the output": it lines up with the
        source to its end, so the missing lines are the last ones.
        """
        a, s = self.aligned, self.shifted
        n = len(a)
        if n < 3:
            return None
        suffix = [0.0] * (n + 1)
        for i in range(n - 1, -1, -1):
            suffix[i] = suffix[i + 1] + s[i]
        best_k, best, prefix, totals = n, float("inf"), 0.0, []
        for k in range(n + 1):
            totals.append(prefix + suffix[k])
            if totals[-1] < best - 1e-9:
                best_k, best = k, totals[-1]
            if k < n:
                prefix += a[k]
        # Split points almost as good as the best one: where the shift is, as far as the text tells.
        close = [k for k in range(max(0, best_k - self.WINDOW), min(n, best_k + self.WINDOW) + 1)
                 if totals[k] <= best + self.MARGIN]
        self.span = (min(close), max(close))
        if self.span[1] - self.span[0] > self.MAX_SPAN:
            return None
        # ``prefix`` is now the cost of not shifting at all, ``suffix[0]`` that of shifting everything.
        before = range(max(0, best_k - self.WINDOW), best_k)
        if before and sum(1 for i in before if a[i] <= s[i] + 0.05) < 0.7 * len(before):
            return None
        if best_k == n:
            if self.step == 1 and suffix[0] - prefix >= 0.3 * n:
                return n
            return None
        if prefix - best < 1.0:   # shifting barely explains the output better than not shifting
            return None
        after = range(best_k, min(n, best_k + self.WINDOW))
        gain = sum(a[i] - s[i] for i in after)
        wins = sum(1 for i in after if s[i] < a[i] - 0.05)
        if gain < 0.3 * len(after) or wins < 0.7 * len(after):
            return None
        return best_k

    def explain(self, k: int) -> str:
        """A sentence for :meth:`find`'s answer, with 1-based line numbers of the output."""
        n, n_src = len(self.aligned), len(self.sources)
        if self.step == 1 and k >= n:
            missing = "source line seems" if n_src - n == 1 else f"{n_src - n} source lines seem"
            return f"the output lines up with the source to its end, so the last {missing} to be missing"
        lo, hi = self.span
        around = f" (or nearby: lines {lo + 1}-{hi + 1} fit about as well)" if lo != hi else ""
        if self.step == 1:
            return (f"the content looks shifted from line {k + 1}{around}: it reads like source line {k + 2}, "
                    f"so source line {k + 1} is probably missing or merged into a neighbouring line")
        if k >= n_src:
            return (f"the output lines up with the source for its first {n_src} lines; "
                    f"the {_plural(n - n_src, 'line')} after them {'is' if n - n_src == 1 else 'are'} extra")
        return (f"the content looks shifted from line {k + 1}{around}: from there on it reads like the source one "
                f"line earlier, so line {k + 1} is probably extra (or a source line was split in two there)")


# --------------------------------------------------------------------------- content checks


def _expected_ratio(testset: TestSet) -> float:
    """Characters of translation per source character, from the references when there are some."""
    src_chars = ref_chars = 0
    for doc in testset.documents:
        for i, src in enumerate(doc.source):
            src_len = len(src.strip())
            if not src_len:
                continue
            for ref in doc.refs:
                ref_len = len(ref[i].strip()) if i < len(ref) else 0
                if ref_len:   # an empty line of reference 2 is a null alignment, not a zero-length translation
                    src_chars += src_len
                    ref_chars += ref_len
    if src_chars >= 50:
        return ref_chars / src_chars
    src, tgt = lang_scripts(testset.src_lang), lang_scripts(testset.tgt_lang)
    if src and tgt:
        if src & _DENSE_SCRIPTS and not tgt & _DENSE_SCRIPTS:
            return 3.0
        if tgt & _DENSE_SCRIPTS and not src & _DENSE_SCRIPTS:
            return 1 / 3.0
    return 1.0


_TWO_LETTERS = re.compile(r"[^\W\d_].*?[^\W\d_]", re.S)


class _Checker:
    """The checks of one validation run; holds what every document shares."""

    def __init__(self, testset: TestSet, out: _Collector, report: ValidationReport, document_level: bool,
                 max_line_bytes: int = DEFAULT_MAX_LINE_BYTES):
        self.testset, self.out, self.report, self.document_level = testset, out, report, document_level
        self.max_line_bytes = max_line_bytes
        self.ratio = _expected_ratio(testset)
        src_scripts, tgt_scripts = lang_scripts(testset.src_lang), lang_scripts(testset.tgt_lang)
        self.target_scripts = tgt_scripts
        self.foreign = (src_scripts - tgt_scripts) if src_scripts and tgt_scripts else frozenset()
        self.latin_source = src_scripts == frozenset({"Latin"})

    # -- documents ---------------------------------------------------------------------------

    def content(self, doc: Document, hyp: list[str], label: str, first_line: int, aligned: bool) -> None:
        """Checks of one document's lines; ``aligned`` when they line up one-to-one with the source."""
        self._repeats(doc, hyp, label, first_line, aligned)
        self._script(doc, hyp, label, first_line, aligned)
        if aligned:
            self._aligned(doc, hyp, label, first_line)

    def is_empty(self, doc: Document, hyp: list[str], label: str, first_line: int | None) -> bool:
        """Report an output document without any text (an error) when the source has some."""
        if any(h.strip() for h in hyp) or not any(s.strip() for s in doc.source):
            return False
        what = "has no lines" if not hyp else f"has only empty lines ({len(hyp)})"
        where = f"document {doc.name!r} (lines {first_line}-{first_line + len(doc) - 1})" \
            if first_line is not None else f"document {doc.name!r}"
        self.out.add(ERROR, "empty-document", f"{where} {what}; expected {len(doc)} translated lines",
                     label, None, document=doc.name)
        return True

    def _repeats(self, doc: Document, hyp: list[str], label: str, first_line: int, aligned: bool) -> None:
        run_start = 0
        for i in range(1, len(hyp) + 1):
            if i < len(hyp) and hyp[i].strip() and hyp[i].strip() == hyp[run_start].strip():
                continue
            length = i - run_start
            if length >= REPEAT_RUN and hyp[run_start].strip():
                src_run = doc.source[run_start:i] if aligned else ()
                # A source that repeats itself (a refrain, "* * *" separators) may be translated the same way.
                if not (aligned and len(set(s.strip() for s in src_run)) == 1):
                    line = first_line + run_start
                    self.out.add(WARNING, "repeated-lines", f"lines {line}-{line + length - 1}: the same line is "
                                 f"repeated {length} times ({_preview(hyp[run_start])}); a generation loop?",
                                 label, line, document=doc.name)
            run_start = i

    def _script(self, doc: Document, hyp: list[str], label: str, first_line: int, aligned: bool) -> None:
        if not self.foreign:
            return
        scripts = "/".join(sorted(self.foreign))
        for i, text in enumerate(hyp):
            if aligned and text.strip() == doc.source[i].strip():
                continue   # reported as untranslated
            share, letters = _foreign_share(text, self.foreign)
            if letters < SCRIPT_MIN_LETTERS or share <= SCRIPT_SHARE:
                continue
            line = first_line + i
            self.out.add(WARNING, "source-script", f"line {line}: {share:.0%} of its letters are {scripts} (the "
                         f"source's script) although the target language is {self.testset.tgt_lang}; untranslated? "
                         f"{_preview(text)}", label, line, document=doc.name)

    def _aligned(self, doc: Document, hyp: list[str], label: str, first_line: int) -> None:
        copies = candidates = 0
        for i, (text, src) in enumerate(zip(hyp, doc.source, strict=False)):
            line = first_line + i
            h, s = text.strip(), src.strip()
            if not s:
                continue
            if not h:
                self.out.add(WARNING, "empty-line", f"line {line} is empty but the source line is not "
                             "(a missing translation?)", label, line, document=doc.name)
                continue
            if self._copy_matters(s):
                candidates += 1
                if h == s:
                    copies += 1
                    self.out.add(WARNING, "untranslated", f"line {line} is identical to the source line "
                                 f"(untranslated?): {_preview(h)}", label, line, document=doc.name)
                    continue
            self._length(h, s, label, line, doc.name)
        if copies >= 3 and copies * 2 >= candidates:
            self.out.add(WARNING, "source-copy", f"document {doc.name!r}: {copies} of {candidates} lines are "
                         "identical to the source; was the source uploaded instead of the translation?",
                         label, None, document=doc.name)

    def _copy_matters(self, s: str) -> bool:
        """Whether an output line identical to source line ``s`` looks untranslated.

        Decided from the source alone: consulting the references here would
        tell participants which reference lines copy the source. Names and
        numbers ("Paris, 1987.", "iPhone 15") are legitimately copied: across
        scripts a copy matters only when it has letters of the source's own
        script, within a script only from three words on.
        """
        if not _TWO_LETTERS.search(s):
            return False
        if self.foreign:
            return _foreign_share(s, self.foreign)[0] > 0
        return len(s.split()) >= 3

    def _length(self, h: str, s: str, label: str, line: int, doc_name: str) -> None:
        expected = len(s) * self.ratio
        ratio = len(h) / expected
        if ratio > RATIO_HIGH and len(h) - expected >= RATIO_MIN_EXCESS:
            self.out.add(WARNING, "length-ratio", f"line {line} has {len(h)} characters where about {expected:.0f} "
                         f"are expected from its source line ({len(s)} characters) in this language pair "
                         f"({ratio:.1f} times as long); a hallucination or merged lines?", label, line,
                         document=doc_name)
        elif ratio < RATIO_LOW and expected >= RATIO_MIN_EXPECTED:
            self.out.add(WARNING, "length-ratio", f"line {line} has only {len(h)} characters where about "
                         f"{expected:.0f} are expected from its source line ({len(s)} characters) in this language "
                         f"pair ({ratio:.2f} times as long); is part of the translation missing?", label, line,
                         document=doc_name)

    def shift_finder(self, sources: list[str], got: int) -> _ShiftFinder:
        return _ShiftFinder(sources, got, self.ratio, self.latin_source)


# --------------------------------------------------------------------------- submission entries


@dataclass
class _Entry:
    """A regular file of the submission, not yet opened."""

    label: str                       # name shown in findings, relative to the submission
    base: str                        # the file's own name, matched against document names
    size: int
    open: Callable[[], BinaryIO]     # opens it for binary reading (may raise OSError)


def _open_no_follow(path: Path, max_bytes: int, follow: bool = False) -> BinaryIO:
    """Open a regular file without following a symlink, re-checking type and size on the open descriptor.

    The listing already checked both with ``lstat``; checking again with
    ``fstat`` closes the window in which the file could have been swapped.
    """
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path.name} is not a regular file")
        if st.st_size > max_bytes:
            raise OSError(f"{path.name} grew to {st.st_size} bytes, over the limit of {max_bytes}")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} bytes" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


def _list_directory(root: Path, out: _Collector, max_bytes: int, doc_files: set[str]) -> list[_Entry]:
    """Regular files at the top of a submission directory; everything else becomes a finding."""
    entries: list[_Entry] = []
    try:
        with os.scandir(root) as it:
            dirents = sorted(it, key=lambda d: d.name)
    except OSError as exc:
        out.add(ERROR, "unreadable", f"cannot list the submission directory: {exc.strerror or exc}", None, None)
        return entries
    for d in dirents:
        label = _display(d.name)
        try:
            st = d.stat(follow_symlinks=False)
        except OSError as exc:
            out.add(ERROR, "unreadable", f"{label}: cannot read it ({exc.strerror or exc})", label, None)
            continue
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(d.path)
                inside = Path(os.path.normpath(os.path.join(root, target))).resolve().is_relative_to(root.resolve())
            except (OSError, ValueError):
                target, inside = "?", False
            where = "a file inside the submission" if inside else "outside the submission"
            out.add(ERROR, "symlink", f"{label} is a symbolic link (to {_display(target)}, {where}); links are "
                    "not followed: upload the file itself", label, None)
            continue
        if is_ignored_file(d.name):
            out.add(WARNING, "ignored-file", f"{label} was ignored (a hidden or system file)", label, None)
            continue
        if stat.S_ISDIR(st.st_mode):
            hint = ""
            if d.name.lower().endswith(DOC_SUFFIX):
                hint = "; a document must be a plain file"
            else:
                try:
                    with os.scandir(d.path) as sub:
                        inner = [e.name for _, e in zip(range(10000), sub, strict=False)]   # a bounded look
                except OSError:
                    inner = []
                if any(n in doc_files for n in inner):
                    hint = "; the documents seem to be inside it: put the files themselves at the top level"
            out.add(ERROR, "not-a-file", f"{label} is a folder{hint}; a submission holds only <document>.txt "
                    "files", label, None)
            continue
        if not stat.S_ISREG(st.st_mode):
            out.add(ERROR, "not-a-file", f"{label} is not a regular file (a device, socket or pipe)", label, None)
            continue
        path = Path(d.path)
        entries.append(_Entry(label, d.name, st.st_size, lambda p=path: _open_no_follow(p, max_bytes)))
    return entries


def _list_mapping(files, out: _Collector, max_bytes: int) -> list[_Entry]:
    """Entries of an in-memory upload: a mapping or pairs of name -> bytes (or a binary file object)."""
    entries: list[_Entry] = []
    try:
        items = list(files.items()) if isinstance(files, Mapping) else list(files)
    except Exception as exc:   # any unusable argument becomes a finding
        out.add(ERROR, "unreadable", f"the uploaded files cannot be read ({type(exc).__name__})", None, None)
        return entries
    for item in items:
        try:
            name, data = item
        except (TypeError, ValueError):
            out.add(ERROR, "unreadable", "an uploaded entry is not a (name, content) pair", None, None)
            continue
        if not isinstance(name, str) or not name.strip():
            out.add(ERROR, "unsafe-path", f"an uploaded file has no usable name ({_display(repr(name))})", None, None)
            continue
        norm = name.replace("\\", "/")
        while norm.startswith("./"):
            norm = norm[2:]
        parts = [p for p in norm.split("/") if p not in ("", ".")]
        label = _display(norm)
        if norm.startswith("/") or re.match(r"^[A-Za-z]:", norm) or ".." in parts or not parts:
            out.add(ERROR, "unsafe-path", f"{label}: the file name is an absolute path or leaves the submission "
                    "(..); it was not read", label, None)
            continue
        if is_ignored_file("/".join(parts)):
            out.add(WARNING, "ignored-file", f"{label} was ignored (a hidden or system file)", label, None)
            continue
        if norm.endswith("/"):
            out.add(ERROR, "not-a-file", f"{label} is a folder; a submission holds only <document>.txt files",
                    label, None)
            continue
        if isinstance(data, (bytes, bytearray, memoryview)):
            blob = bytes(data)
        elif hasattr(data, "read"):
            # A file object (e.g. a form upload): read one byte past the cap, never the whole of a huge file.
            try:
                blob = data.read(max_bytes + 1)
            except Exception as exc:   # whatever the upload object raises
                out.add(ERROR, "unreadable", f"{label}: cannot read it ({type(exc).__name__}: {exc})", label, None)
                continue
            if not isinstance(blob, (bytes, bytearray)):
                out.add(ERROR, "unreadable", f"{label}: the upload gave text, not bytes", label, None)
                continue
            blob = bytes(blob)
        else:
            out.add(ERROR, "unreadable", f"{label}: the upload gave {type(data).__name__}, not bytes", label, None)
            continue
        entries.append(_Entry(label, parts[-1], len(blob), lambda b=blob: io.BytesIO(b)))
    return entries


# --------------------------------------------------------------------------- validation


def _new_report(submission: str, cap: int) -> tuple[ValidationReport, _Collector]:
    out = _Collector(cap)
    return ValidationReport(submission=submission, findings=out.findings), out


def validate_submission(testset: TestSet, path, *, document_level: bool = False, max_bytes: int = DEFAULT_MAX_BYTES,
                        max_findings_per_code: int = 20, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
                        ) -> ValidationReport:
    """Validate a submission on disk: a directory of ``<doc>.txt`` files or one file of all segments.

    ``document_level`` is whether the task accepts documents whose line count
    differs from the source (scored with d-BLEU only). Never raises on bad
    input; nothing is read before its size is checked against ``max_bytes``
    (the whole submission's limit), and no line longer than ``max_line_bytes`` is held in memory.
    """
    try:
        root = Path(path)
        shown = str(path)
        if not shown.strip():
            raise TypeError("empty path")   # Path("") would be the current directory
    except TypeError:
        report, out = _new_report(repr(path), max_findings_per_code)
        out.add(ERROR, "not-found", f"no submission path given ({type(path).__name__})", None, None)
        return report
    report, out = _new_report(_display(shown), max_findings_per_code)
    try:
        try:
            st = os.stat(root)
        except FileNotFoundError:
            out.add(ERROR, "not-found", f"{_display(shown)} does not exist", None, None)
            return report
        except (OSError, ValueError) as exc:   # ValueError: a NUL byte in the path
            out.add(ERROR, "unreadable", f"{_display(shown)} cannot be read "
                    f"({getattr(exc, 'strerror', None) or exc})", None, None)
            return report
        checker = _Checker(testset, out, report, document_level, max_line_bytes)
        if stat.S_ISDIR(st.st_mode):
            entries = _list_directory(root, out, max_bytes, {n + DOC_SUFFIX for n in testset.doc_names})
            _validate_entries(checker, entries, max_bytes, single=False)
        elif stat.S_ISREG(st.st_mode):
            label = _display(root.name)
            entry = _Entry(label, root.name, st.st_size, lambda: _open_no_follow(root, max_bytes, follow=True))
            _validate_entries(checker, [entry], max_bytes, single=True)
        else:
            out.add(ERROR, "not-a-file", f"{_display(shown)} is neither a file nor a directory", None, None)
    except Exception as exc:   # a validator bug must not become a crash of the caller
        out.add(ERROR, "internal-error", f"the validator failed ({type(exc).__name__}: {exc}); please report this "
                "to the organizers", None, None)
    out.flush()
    return report


def validate_files(testset: TestSet, files, *, name: str = "upload", document_level: bool = False,
                   max_bytes: int = DEFAULT_MAX_BYTES, max_findings_per_code: int = 20,
                   max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> ValidationReport:
    """Validate in-memory uploads: ``{file name: bytes}`` (or name/bytes pairs, or binary file objects).

    Names are document files (``doc1.txt``; folder prefixes as in a zip are
    allowed, ``..`` and absolute paths are not), or a single name of any kind
    for a one-file submission with every segment in test-set order.
    """
    report, out = _new_report(_display(str(name)), max_findings_per_code)
    try:
        checker = _Checker(testset, out, report, document_level, max_line_bytes)
        entries = _list_mapping(files, out, max_bytes)
        doc_files = {(n + DOC_SUFFIX).casefold() for n in testset.doc_names}
        single = len(entries) == 1 and entries[0].base.casefold() not in doc_files
        _validate_entries(checker, entries, max_bytes, single=single)
    except Exception as exc:   # a validator bug must not become a crash of the caller
        out.add(ERROR, "internal-error", f"the validator failed ({type(exc).__name__}: {exc}); please report this "
                "to the organizers", None, None)
    out.flush()
    return report


def _validate_entries(checker: _Checker, entries: list[_Entry], max_bytes: int, *, single: bool) -> None:
    out = checker.out
    if not entries:
        if not out.findings or all(f.severity == WARNING for f in out.findings):
            out.add(ERROR, "empty-submission", "the submission holds no files; upload one <document>.txt per "
                    "document or one file with every segment", None, None)
        else:
            out.add(ERROR, "empty-submission", "the submission holds no usable files", None, None)
        return
    # Sizes first, before anything is opened.
    too_large = [e for e in entries if e.size > max_bytes]
    for e in too_large:
        out.add(ERROR, "too-large", f"{e.label} is {_size(e.size)}, over the limit of {_size(max_bytes)}; it was "
                "not read", e.label, None)
    total = sum(e.size for e in entries)
    if not too_large and total > max_bytes:
        out.add(ERROR, "too-large", f"the submission is {_size(total)} in all, over the limit of {_size(max_bytes)}; "
                "nothing was read", None, None)
    if too_large or total > max_bytes:
        return
    if total == 0:
        what = "its only file is empty" if len(entries) == 1 else "all its files are empty"
        out.add(ERROR, "empty-submission", f"the submission is empty: {what} (0 bytes)", None, None)
        return
    if single:
        _validate_single(checker, entries[0])
    else:
        _validate_documents(checker, entries)


def _validate_documents(checker: _Checker, entries: list[_Entry]) -> None:
    """A directory-like submission: match files to documents, then check each document in test-set order."""
    ts, out = checker.testset, checker.out
    exact = {n: n for n in ts.doc_names}
    folded: dict[str, str] = {}
    for n in ts.doc_names:
        folded.setdefault(n.casefold(), n)
    claimed: dict[str, _Entry] = {}
    # Exactly named files claim their document first, so "doc1.TXT" is the duplicate of "doc1.txt".
    exact_files = {n + DOC_SUFFIX for n in ts.doc_names}
    for e in sorted(entries, key=lambda e: e.base not in exact_files):
        stem, suffix = e.base[: -len(DOC_SUFFIX)], e.base[-len(DOC_SUFFIX):]
        if suffix.lower() != DOC_SUFFIX:
            known = _stem_document(e.base, exact, folded)
            hint = f"; save document {known!r} as plain UTF-8 text named {known}{DOC_SUFFIX}" if known else \
                "; remove it"
            out.add(ERROR, "not-txt", f"{e.label} is not a .txt file: a submission holds only plain-text "
                    f"<document>.txt files{hint}", e.label, None)
            continue
        doc = exact.get(stem) or folded.get(stem.casefold())
        if doc is None:
            close = difflib.get_close_matches(stem, ts.doc_names, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]}{DOC_SUFFIX}?" if close else _known_documents(ts)
            if len(entries) == 1:
                hint += "; if it holds every segment of the test set, upload it alone as a single-file submission"
            out.add(ERROR, "extra-document", f"{e.label} is not a document of test set {ts.name!r}{hint}",
                    e.label, None)
            continue
        if doc in claimed:
            out.add(ERROR, "duplicate-document", f"{e.label} is a second file for document {doc!r} (also given by "
                    f"{claimed[doc].label}); keep exactly one", e.label, None, document=doc)
            continue
        claimed[doc] = e
        if e.base != doc + DOC_SUFFIX:
            out.add(ERROR, "file-name-case", f"{e.label} must be named exactly {doc}{DOC_SUFFIX} (file names are "
                    "case-sensitive)", e.label, None, document=doc)
    missing = [n for n in ts.doc_names if n not in claimed]
    for n in missing:
        out.add(ERROR, "missing-document", f"document {n!r} is missing: no file {n}{DOC_SUFFIX}", None, None,
                document=n)
    if claimed and all(e.size == 0 for e in claimed.values()) and not missing:
        out.add(ERROR, "empty-submission", "the submission is empty: every document file is 0 bytes", None, None)
        return
    out.flush(None)
    lone = len(claimed) == 1 and len(ts.documents) > 1
    for doc in ts.documents:
        e = claimed.get(doc.name)
        if e is not None:
            _check_document_file(checker, doc, e, lone_file=lone)
            out.flush(e.label)
    if checker.report.document_level:
        # the metrics that need line-aligned output (d-BLEU still applies), from the registry
        checker.report.na_metrics = [k for k, spec in REGISTRY.items() if spec.line_aligned]


def _stem_document(base: str, exact: dict, folded: dict) -> str | None:
    """The document a wrongly-typed file is probably meant to be (``doc1.docx``, ``doc1.txt.gz``)."""
    stem = base
    while "." in stem:
        stem = stem.rsplit(".", 1)[0]
        if stem.lower().endswith(DOC_SUFFIX):
            stem = stem[: -len(DOC_SUFFIX)]
        doc = exact.get(stem) or folded.get(stem.casefold())
        if doc:
            return doc
    return None


def _known_documents(ts: TestSet) -> str:
    names = ts.doc_names
    shown = ", ".join(n + DOC_SUFFIX for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"; its documents are {shown}"


def _open_entry(checker: _Checker, e: _Entry, document: str | None) -> tuple[BinaryIO | None, bool]:
    """Open an entry and look at its head: (file object, is text). Problems become findings."""
    try:
        fh = e.open()
    except OSError as exc:
        checker.out.add(ERROR, "unreadable", f"{e.label} cannot be read ({exc.strerror or exc})", e.label, None,
                        document=document)
        return None, False
    try:
        head = fh.read(SNIFF_BYTES)
        fh.seek(0)
    except OSError as exc:
        fh.close()
        checker.out.add(ERROR, "unreadable", f"{e.label} cannot be read ({exc.strerror or exc})", e.label, None,
                        document=document)
        return None, False
    what = _sniff_binary(head)
    if what is not None:
        fh.close()
        fix = "save it as UTF-8" if "text" in what else "upload plain UTF-8 text"
        checker.out.add(ERROR, "binary-file", f"{e.label} is not UTF-8 text: it looks like {what}; {fix}",
                        e.label, None, document=document)
        return None, False
    return fh, True


def _check_document_file(checker: _Checker, doc: Document, e: _Entry, *, lone_file: bool) -> None:
    """Read one document file whole (one document in memory) and check it."""
    out, report = checker.out, checker.report
    fh, ok = _open_entry(checker, e, doc.name)
    if not ok:
        report.documents[doc.name] = 0
        return
    with fh:
        reader = _LineReader(fh, e.label, out, document=doc.name, target_scripts=checker.target_scripts,
                             max_line_bytes=checker.max_line_bytes)
        try:
            hyp = list(reader)
        except OSError as exc:
            out.add(ERROR, "unreadable", f"{e.label} cannot be read ({exc.strerror or exc})", e.label, None,
                    document=doc.name)
            return
    reader.line_ending_findings()
    report.documents[doc.name] = len(hyp)
    if checker.is_empty(doc, hyp, e.label, None):
        return
    aligned = len(hyp) == len(doc)
    if not aligned:
        _line_count(checker, doc, hyp, e.label, lone_file)
    checker.content(doc, hyp, e.label, 1, aligned)


#: the end of every line-count error: what to do, in a whole sentence
_LINE_COUNT_FIX = ("Each line must translate the source line with the same number: fix the line breaks and upload "
                   "again. Lines need not match only where document-level submissions are accepted, and they are "
                   "not accepted here.")


def _line_count_line(got: int, expected: int, k: int | None, trailing: bool) -> int | None:
    """The output line a line-count finding points at (the Line column): the first extra empty line,
    else where the shift seems to start, else the first line past the shorter side; None for an empty file."""
    if got == 0:
        return None
    if trailing:
        return expected + 1
    if k is not None:
        return min(k + 1, got)
    return min(min(got, expected) + 1, got)


def _line_count(checker: _Checker, doc: Document, hyp: list[str], label: str, lone_file: bool) -> None:
    got, expected = len(hyp), len(doc)
    detail = _trailing_empty(hyp, expected)
    k = None
    if not detail:
        finder = checker.shift_finder(list(doc.source), got)
        for text in hyp:
            finder.feed(text)
        k = finder.find()
        detail = f"; {finder.explain(k)}" if k is not None else ""
    line = _line_count_line(got, expected, k, trailing=bool(_trailing_empty(hyp, expected)))
    if lone_file and got == checker.testset.num_segments:
        detail += ("; it has as many lines as the whole test set: if it holds every document, upload it as a "
                   "single file under another name")
    message = f"expected {expected} lines (as in the source of document {doc.name!r}), got {got}{detail}"
    if checker.document_level:
        checker.report.document_level = True
        checker.out.add(WARNING, "line-count", f"{message}. Accepted as a document-level output: BLEU, chrF, TER "
                        "and COMET will be n/a, d-BLEU applies.", label, line, document=doc.name)
    else:
        checker.out.add(ERROR, "line-count", f"{message}. {_LINE_COUNT_FIX}", label, line, document=doc.name)


def _trailing_empty(hyp: list[str], expected: int) -> str:
    extra = len(hyp) - expected
    if extra > 0 and not any(h.strip() for h in hyp[expected:]):
        return f"; the file ends with {_plural(extra, 'extra empty line')}: remove {'it' if extra == 1 else 'them'}"
    return ""


def _count_segments(fh: BinaryIO, max_line_bytes: int | None = None) -> int:
    """Segments of a file without decoding it (the first pass over a single-file submission)."""
    if fh.read(3) != _BOM:
        fh.seek(0)
    return sum(1 for _ in _iter_segments(fh, 0, max_line_bytes))


def _validate_single(checker: _Checker, e: _Entry) -> None:
    """One file with every segment in test-set order, streamed and cut into documents as it is read."""
    ts, out, report = checker.testset, checker.out, checker.report
    fh, ok = _open_entry(checker, e, None)
    if not ok:
        return
    with fh:
        try:
            got = _count_segments(fh, checker.max_line_bytes)
            fh.seek(0)
            expected = ts.num_segments
            aligned = got == expected
            finder = None if aligned else checker.shift_finder(ts.sources(), got)
            reader = _LineReader(fh, e.label, out, target_scripts=checker.target_scripts,
                                 max_line_bytes=checker.max_line_bytes)
            docs = ts.documents
            starts, pos = [], 1
            for doc in docs:
                starts.append(pos)
                pos += len(doc)
            index, buffer, extra_text = 0, [], False
            reader.document = docs[0].name if docs else None

            def finish() -> None:
                nonlocal index, buffer
                doc = docs[index]
                report.documents[doc.name] = len(buffer)
                if aligned and not checker.is_empty(doc, buffer, e.label, starts[index]):
                    checker.content(doc, buffer, e.label, starts[index], aligned=True)
                elif not aligned:
                    checker.content(doc, buffer, e.label, starts[index], aligned=False)
                index, buffer = index + 1, []
                reader.document = docs[index].name if index < len(docs) else None

            while index < len(docs) and len(docs[index]) == 0:
                finish()
            for text in reader:
                if finder is not None:
                    finder.feed(text)
                if index < len(docs):
                    buffer.append(text)
                    while index < len(docs) and len(buffer) == len(docs[index]):
                        finish()
                elif text.strip():
                    extra_text = True   # lines past the last document that are not just empty
            while index < len(docs):
                finish()
        except OSError as exc:
            out.add(ERROR, "unreadable", f"{e.label} cannot be read ({exc.strerror or exc})", e.label, None)
            return
    reader.line_ending_findings()
    if aligned:
        return
    detail = ""
    k = None
    if got > expected and not extra_text:
        detail = _trailing_empty([""] * got, expected)
    elif finder is not None:
        k = finder.find()
        if k is not None:
            detail = f"; {finder.explain(k)}"
            if k < min(got, expected):   # a shift inside the text: say where that is in its document
                doc_i = max(i for i, start in enumerate(starts) if start <= k + 1)
                detail += f" (document {docs[doc_i].name!r}, its line {k + 2 - starts[doc_i]})"
    message = (f"expected {expected} lines (every segment of the test set's {_plural(len(ts.documents), 'document')}"
               f", in order), got {got}{detail}")
    if checker.document_level:
        message += (". A document-level submission must give one <document>.txt file per document, so that the "
                    "documents can be told apart.")
    else:
        message += f". {_LINE_COUNT_FIX}"
    out.add(ERROR, "line-count", message, e.label, _line_count_line(got, expected, k, trailing=bool(detail) and k is None))
