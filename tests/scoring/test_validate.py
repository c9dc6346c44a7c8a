"""Tests of the submission validator (scoring/validate.py).

Every test set is written to tmp_path by :func:`make_testset`; the default one
is a small zh->en literary set with two documents, one of them with dots in
its name (``talk.2``). A clean submission is reference 1 itself.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import time
from pathlib import Path

import pytest

from scoring import validate as V
from scoring.testset import load_testset, split_lines
from scoring.validate import Finding, ValidationReport, validate_files, validate_submission
from tests.support import SHARED_DATA, realdata

# --------------------------------------------------------------------------- test sets

DOC1_SRC = [
    "第一章",
    "那年冬天，雪下得特别大，整个村子都被埋在了白色之下。",
    "他推开门，看见院子里站着一个陌生人。",
    "“你找谁？”他问。",
    "陌生人没有回答，只是从怀里掏出一封信，信封上写着1987年3月12日。",
    "他接过信，手有些发抖。",
]
DOC1_REF1 = [
    "Chapter One",
    "That winter the snow fell especially heavily, and the whole village was buried under white.",
    "He pushed the door open and saw a stranger standing in the courtyard.",
    "\"Who are you looking for?\" he asked.",
    "The stranger did not answer; he simply took a letter from his coat, the envelope dated 12 March 1987.",
    "He took the letter, his hands trembling a little.",
]
DOC1_REF2 = [
    "Chapter 1",
    "The snow was unusually heavy that winter and buried the entire village in white.",
    "He opened the door and saw a stranger in the yard.",
    "\"Who are you looking for?\" he asked.",
    "Without a word, the stranger pulled a letter from his coat; the envelope bore the date 12 March 1987.",
    "",  # a null alignment in reference 2
]
TALK_SRC = [
    "我想请大家思考一个简单的事实。",
    "我们对宇宙的了解，大部分来自光。",
    "我们可以站在地球上仰望夜空。",
    "但光不仅仅是照亮世界的东西。",
    "谢谢大家。",
]
TALK_REF1 = [
    "I want to ask you all to consider a simple fact.",
    "Most of what we know about the universe comes to us from light.",
    "We can stand on the Earth and look up at the night sky.",
    "But light is more than something that lights up the world.",
    "Thank you.",
]
TALK_REF2 = [
    "I would like you all to think about one simple fact.",
    "Most of our knowledge of the universe comes from light.",
    "We can stand on Earth and gaze up at the night sky.",
    "Yet light is not merely what illuminates the world.",
    "Thank you all.",
]

DEFAULT_DOCS = {
    "doc1": (DOC1_SRC, DOC1_REF1, DOC1_REF2),
    "talk.2": (TALK_SRC, TALK_REF1, TALK_REF2),
}


def write_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def make_testset(root: Path, docs: dict | None = None, *, src_lang: str = "zh", tgt_lang: str = "en"):
    """Write a test set (testset.json, source/, ref1/, ref2/) under ``root`` and load it."""
    docs = DEFAULT_DOCS if docs is None else docs
    root.mkdir(parents=True, exist_ok=True)
    (root / "testset.json").write_text(json.dumps(
        {"name": "lit-test", "src_lang": src_lang, "tgt_lang": tgt_lang, "documents": list(docs)}), encoding="utf-8")
    for name, (src, ref1, ref2) in docs.items():
        write_lines(root / "source" / f"{name}.txt", src)
        write_lines(root / "ref1" / f"{name}.txt", ref1)
        write_lines(root / "ref2" / f"{name}.txt", ref2)
    return load_testset(root)


def write_submission(root: Path, docs: dict[str, list[str] | bytes]) -> Path:
    """A directory submission: ``{doc name: lines or raw bytes}``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in docs.items():
        path = root / f"{name}.txt"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            write_lines(path, content)
    return root


def as_bytes(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode("utf-8")


def clean_files() -> dict[str, bytes]:
    return {"doc1.txt": as_bytes(DOC1_REF1), "talk.2.txt": as_bytes(TALK_REF1)}


def only(report: ValidationReport, code: str) -> list[Finding]:
    return [f for f in report.findings if f.code == code]


def assert_no_internal_error(report: ValidationReport) -> None:
    assert "internal-error" not in report.codes(), report.format_text()


_HAN = "天地人山水风云日月星花草木心情时光夜雪门院信手家国江河路远近"
_WORDS = ("the night snow door letter stranger village winter light river road home heart time far near "
          "and was were had under over into quietly slowly old young").split()


def long_document(n: int = 30, seed: int = 7) -> tuple[list[str], list[str], list[str]]:
    """A zh->en document whose lines vary a lot in length and carry numbers, like real prose."""
    rng = random.Random(seed)
    src, ref1, ref2 = [], [], []
    for i in range(n):
        length = rng.choice([4, 8, 15, 25, 40, 60])
        number = str(rng.randrange(10, 2000)) if i % 3 == 0 else ""
        src.append("".join(rng.choice(_HAN) for _ in range(length)) + number + "。")
        words = []
        while len(" ".join(words)) < 3 * length:
            words.append(rng.choice(_WORDS))
        if number:
            words.insert(len(words) // 2, number)
        sentence = " ".join(words).capitalize() + "."
        ref1.append(sentence)
        ref2.append(sentence.replace("the", "a"))
    return src, ref1, ref2


@pytest.fixture
def ts(tmp_path):
    return make_testset(tmp_path / "ts")


@pytest.fixture
def long_ts(tmp_path):
    return make_testset(tmp_path / "long_ts", {"novel": long_document(), "talk.2": (TALK_SRC, TALK_REF1, TALK_REF2)})


# --------------------------------------------------------------------------- clean submissions


def test_clean_directory_has_no_findings(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    report = validate_submission(ts, sub)
    assert report.findings == [], report.format_text()
    assert report.ok and not report.document_level and report.na_metrics == []
    assert report.documents == {"doc1": 6, "talk.2": 5}


def test_clean_single_file_has_no_findings(ts, tmp_path):
    path = write_lines(tmp_path / "system.hyp", DOC1_REF1 + TALK_REF1)
    report = validate_submission(ts, path)
    assert report.findings == [], report.format_text()
    assert report.documents == {"doc1": 6, "talk.2": 5}


def test_clean_in_memory_uploads_have_no_findings(ts):
    assert validate_files(ts, clean_files()).findings == []
    single = validate_files(ts, {"output.txt": as_bytes(DOC1_REF1 + TALK_REF1)})
    assert single.findings == [] and single.documents == {"doc1": 6, "talk.2": 5}


def test_second_reference_is_also_clean(ts):
    # Reference 2 has a null alignment (an empty line); as an output that is one empty-line warning, nothing else.
    report = validate_files(ts, {"doc1.txt": as_bytes(DOC1_REF2), "talk.2.txt": as_bytes(TALK_REF2)})
    assert report.ok
    assert [(f.code, f.line) for f in report.findings] == [("empty-line", 6)]


def test_file_without_final_newline_is_clean(ts):
    files = clean_files()
    files["doc1.txt"] = files["doc1.txt"].rstrip(b"\n")
    report = validate_files(ts, files)
    assert report.findings == [] and report.documents["doc1"] == 6


# --------------------------------------------------------------------------- paths and structure


def test_nonexistent_path(ts, tmp_path):
    report = validate_submission(ts, tmp_path / "nope")
    assert not report.ok
    assert [f.code for f in report.errors] == ["not-found"]
    assert "does not exist" in report.errors[0].message


@pytest.mark.parametrize("bad", [None, 42, object(), "", "bad\x00path"])
def test_unusable_path_argument_does_not_raise(ts, bad):
    report = validate_submission(ts, bad)
    assert not report.ok
    assert report.codes() <= {"not-found", "unreadable"}


def test_empty_directory(ts, tmp_path):
    (tmp_path / "sub").mkdir()
    report = validate_submission(ts, tmp_path / "sub")
    assert report.codes() == {"empty-submission"}
    assert "no files" in report.errors[0].message


def test_empty_single_file(ts, tmp_path):
    (tmp_path / "out.txt").write_bytes(b"")
    report = validate_submission(ts, tmp_path / "out.txt")
    assert report.codes() == {"empty-submission"}
    assert "0 bytes" in report.errors[0].message


def test_no_uploaded_files(ts):
    assert validate_files(ts, {}).codes() == {"empty-submission"}


def test_all_document_files_empty(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": b"", "talk.2": b""})
    report = validate_submission(ts, sub)
    assert report.codes() == {"empty-submission"}


def test_one_empty_document_is_an_error(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": b"", "talk.2": TALK_REF1})
    report = validate_submission(ts, sub)
    [err] = report.errors
    assert (err.code, err.file, err.document) == ("empty-document", "doc1.txt", "doc1")
    assert "expected 6" in err.message
    assert "line-count" not in report.codes()   # the precise finding only


def test_document_of_empty_lines_is_an_error_even_document_level(ts):
    files = clean_files()
    files["doc1.txt"] = b"\n\n  \n"
    report = validate_files(ts, files, document_level=True)
    assert "empty-document" in report.codes("error")
    assert "only empty lines" in only(report, "empty-document")[0].message


def test_missing_document(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1})
    report = validate_submission(ts, sub)
    [err] = report.errors
    assert err.code == "missing-document" and err.document == "talk.2"
    assert "talk.2.txt" in err.message


def test_extra_document_suggests_the_close_name(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1, "talk2": TALK_REF1})
    report = validate_submission(ts, sub)
    [err] = report.errors
    assert (err.code, err.file) == ("extra-document", "talk2.txt")
    assert "did you mean talk.2.txt" in err.message


def test_extra_document_lists_the_documents(ts):
    files = clean_files()
    files["notes.txt"] = b"my notes\n"
    err = only(validate_files(ts, files), "extra-document")[0]
    assert "doc1.txt" in err.message and "talk.2.txt" in err.message


def test_names_with_dots_are_documents(ts, tmp_path):
    # "talk.2.txt" is document "talk.2", not "talk" with a ".2.txt" suffix.
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    assert validate_submission(ts, sub).documents["talk.2"] == 5
    report = validate_files(ts, {"doc1.txt": as_bytes(DOC1_REF1), "talk.txt": as_bytes(TALK_REF1)})
    assert {"extra-document", "missing-document"} <= report.codes()


def test_duplicate_document_by_case_on_disk(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    (sub / "doc1.TXT").write_bytes(as_bytes(DOC1_REF1))
    if len(list(sub.iterdir())) < 3:
        pytest.skip("case-insensitive file system")
    report = validate_submission(ts, sub)
    [err] = report.errors
    assert err.code == "duplicate-document" and err.document == "doc1"
    assert "doc1.TXT" in err.message and "doc1.txt" in err.message


def test_duplicate_document_in_zip_like_pairs(ts):
    pairs = [("a/doc1.txt", as_bytes(DOC1_REF1)), ("b/doc1.txt", as_bytes(DOC1_REF1)),
             ("talk.2.txt", as_bytes(TALK_REF1))]
    report = validate_files(ts, pairs)
    [err] = report.errors
    assert (err.code, err.file) == ("duplicate-document", "b/doc1.txt")
    assert "a/doc1.txt" in err.message


def test_wrong_case_name_is_an_error_but_the_document_is_checked(ts):
    files = {"DOC1.txt": as_bytes(DOC1_REF1[:-1]), "talk.2.txt": as_bytes(TALK_REF1)}
    report = validate_files(ts, files)
    assert "must be named exactly doc1.txt" in only(report, "file-name-case")[0].message
    assert "missing-document" not in report.codes()
    assert "line-count" in report.codes()   # its content was checked too


def test_non_txt_file_is_rejected_with_a_hint(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"talk.2": TALK_REF1})
    (sub / "doc1.docx").write_bytes(b"PK\x03\x04rest of a docx")
    report = validate_submission(ts, sub)
    err = only(report, "not-txt")[0]
    assert err.severity == "error" and err.file == "doc1.docx"
    assert "doc1.txt" in err.message
    assert "missing-document" in report.codes()


def test_other_non_txt_file_is_rejected(ts):
    files = clean_files()
    files["README.md"] = b"# our system\n"
    err = only(validate_files(ts, files), "not-txt")[0]
    assert err.file == "README.md" and "remove it" in err.message


def test_hidden_system_files_are_ignored_with_a_warning(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    (sub / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    report = validate_submission(ts, sub)
    assert report.ok
    assert [(f.code, f.file) for f in report.findings] == [("ignored-file", ".DS_Store")]
    files = clean_files()
    files["__MACOSX/._doc1.txt"] = b"\x00\x05\x16\x07"
    assert validate_files(ts, files).codes() == {"ignored-file"}


def test_directory_in_place_of_a_document(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"talk.2": TALK_REF1})
    (sub / "doc1.txt").mkdir()
    report = validate_submission(ts, sub)
    err = only(report, "not-a-file")[0]
    assert err.file == "doc1.txt" and "folder" in err.message and "plain file" in err.message
    assert not report.ok


def test_documents_inside_a_subfolder_get_a_hint(ts, tmp_path):
    sub = tmp_path / "sub"
    write_submission(sub / "outputs", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    report = validate_submission(ts, sub)
    err = only(report, "not-a-file")[0]
    assert err.file == "outputs" and "inside it" in err.message
    assert report.codes("error") == {"not-a-file", "empty-submission"}


def test_symlink_outside_the_submission_is_not_followed(ts, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"\x00secret\x00\n" * 6)   # would give control-char errors if it were read
    sub = write_submission(tmp_path / "sub", {"talk.2": TALK_REF1})
    (sub / "doc1.txt").symlink_to(secret)
    report = validate_submission(ts, sub)
    err = only(report, "symlink")[0]
    assert err.severity == "error" and err.file == "doc1.txt" and "outside the submission" in err.message
    assert "control-char" not in report.codes()
    assert "doc1" not in report.documents


def test_symlink_inside_the_submission_is_an_error_too(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"talk.2": TALK_REF1, "real": DOC1_REF1})
    (sub / "doc1.txt").symlink_to(sub / "real.txt")
    report = validate_submission(ts, sub)
    assert "a file inside the submission" in only(report, "symlink")[0].message


def test_dangling_symlink(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"talk.2": TALK_REF1})
    (sub / "doc1.txt").symlink_to(tmp_path / "does-not-exist")
    report = validate_submission(ts, sub)
    assert "symlink" in report.codes() and not report.ok
    assert_no_internal_error(report)


@pytest.mark.timeout(20)
def test_fifo_is_rejected_without_blocking(ts, tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    sub = write_submission(tmp_path / "sub", {"talk.2": TALK_REF1})
    os.mkfifo(sub / "doc1.txt")
    report = validate_submission(ts, sub)
    assert only(report, "not-a-file")[0].file == "doc1.txt"
    os.mkfifo(tmp_path / "pipe")
    assert validate_submission(ts, tmp_path / "pipe").codes() == {"not-a-file"}


def test_unreadable_file(ts, tmp_path, monkeypatch):
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    real_open = V._open_no_follow

    def deny(path, *args, **kwargs):
        if path.name == "doc1.txt":
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(V, "_open_no_follow", deny)
    report = validate_submission(ts, sub)
    [err] = report.errors
    assert (err.code, err.file) == ("unreadable", "doc1.txt") and "Permission denied" in err.message
    assert report.documents["talk.2"] == 5


def test_unsafe_upload_names_are_not_read(ts):
    files = clean_files()
    files["../doc9.txt"] = b"x\n"
    files["/etc/passwd"] = b"root\n"
    files["C:\\temp\\x.txt"] = b"x\n"
    report = validate_files(ts, files)
    assert len(only(report, "unsafe-path")) == 3
    assert report.codes() == {"unsafe-path"}


def test_upload_values_of_the_wrong_type(ts):
    report = validate_files(ts, {"doc1.txt": "a str, not bytes", "talk.2.txt": as_bytes(TALK_REF1)})
    assert "unreadable" in report.codes() and "str" in only(report, "unreadable")[0].message
    assert validate_files(ts, 12345).codes() == {"unreadable", "empty-submission"}
    assert "unreadable" in validate_files(ts, [("just-a-name",)]).codes()


def test_upload_file_objects_are_accepted(ts):
    files = {name: io.BytesIO(data) for name, data in clean_files().items()}
    assert validate_files(ts, files).findings == []


# --------------------------------------------------------------------------- sizes


def test_too_large_file_is_rejected_before_it_is_opened(ts, tmp_path, monkeypatch):
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    opened = []
    monkeypatch.setattr(V, "_open_no_follow", lambda path, *a, **k: opened.append(path) or open(path, "rb"))
    report = validate_submission(ts, sub, max_bytes=100)
    assert [f.file for f in only(report, "too-large")] == ["doc1.txt", "talk.2.txt"]
    assert "over the limit of 100 bytes" in report.errors[0].message
    assert opened == []


def test_huge_sparse_file_is_rejected_quickly(ts, tmp_path, monkeypatch):
    big = tmp_path / "huge.txt"
    with open(big, "wb") as fh:
        fh.truncate(6 * 1024 ** 3)   # 6 GiB of nothing: reading it whole would take long and blow memory
    monkeypatch.setattr(V, "_open_no_follow", lambda *a, **k: pytest.fail("the file was opened"))
    start = time.monotonic()
    report = validate_submission(ts, big)
    assert time.monotonic() - start < 2
    [err] = report.errors
    assert err.code == "too-large" and "6.0 GiB" in err.message and "50.0 MiB" in err.message


def test_total_size_over_the_cap(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    sizes = [p.stat().st_size for p in sub.iterdir()]
    report = validate_submission(ts, sub, max_bytes=max(sizes) + 1)
    [err] = report.errors
    assert err.code == "too-large" and err.file is None and "in all" in err.message
    assert report.documents == {}


def test_too_large_upload_stream_is_read_only_up_to_the_cap(ts):
    class Stream(io.RawIOBase):
        """An endless upload that records how much was asked for."""

        asked: list[int] = []

        def read(self, size=-1):
            self.asked.append(size)
            if size is None or size < 0:
                raise AssertionError("read whole")
            return b"x" * size

    report = validate_files(ts, {"out.txt": Stream()}, max_bytes=1000)
    assert Stream.asked == [1001]
    assert report.codes() == {"too-large"}


def test_too_large_upload_bytes(ts):
    report = validate_files(ts, {"doc1.txt": b"x" * 2000, "talk.2.txt": as_bytes(TALK_REF1)}, max_bytes=1000)
    assert only(report, "too-large")[0].file == "doc1.txt" and not report.ok


# --------------------------------------------------------------------------- encodings and characters


def test_binary_png_is_one_clear_error(ts):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 50
    report = validate_files(ts, {"doc1.txt": png, "talk.2.txt": as_bytes(TALK_REF1)})
    [err] = report.errors
    assert (err.code, err.file) == ("binary-file", "doc1.txt") and "PNG image" in err.message
    assert len([f for f in report.findings if f.file == "doc1.txt"]) == 1


def test_binary_single_file(ts, tmp_path):
    path = tmp_path / "out.pdf"
    path.write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + os.urandom(3000))
    report = validate_submission(ts, path)
    assert report.codes() == {"binary-file"} and "PDF" in report.errors[0].message


def test_random_binary_without_magic(ts):
    blob = bytes(random.Random(3).randrange(0, 32) for _ in range(5000))
    report = validate_files(ts, {"doc1.txt": blob, "talk.2.txt": as_bytes(TALK_REF1)})
    assert report.codes() == {"binary-file"}


@pytest.mark.parametrize("encoding, what", [("utf-16", "UTF-16"), ("utf-16-le", "without a byte-order mark"),
                                            ("utf-32", "UTF-32")])
def test_utf16_and_utf32_are_rejected(ts, encoding, what):
    data = "\n".join(DOC1_REF1).encode(encoding)
    report = validate_files(ts, {"doc1.txt": data, "talk.2.txt": as_bytes(TALK_REF1)})
    err = only(report, "binary-file")[0]
    assert what in err.message and "save it as UTF-8" in err.message


def test_invalid_utf8_gives_line_column_and_byte_offset(ts):
    lines = [line.encode() for line in DOC1_REF1]
    lines[2] = b"He pushed the door \xff\xfe open."
    data = b"\n".join(lines) + b"\n"
    report = validate_files(ts, {"doc1.txt": data, "talk.2.txt": as_bytes(TALK_REF1)})
    [err] = report.errors
    assert (err.code, err.file, err.line, err.column) == ("invalid-utf8", "doc1.txt", 3, 20)
    assert err.byte_offset == data.index(b"\xff")
    assert "line 3" in err.message and f"byte offset {err.byte_offset}" in err.message and "UTF-8" in err.message


def test_legacy_encoding_is_named(tmp_path):
    en_zh = make_testset(tmp_path / "enzh", {"d": (TALK_REF1, TALK_SRC, TALK_SRC)}, src_lang="en", tgt_lang="zh")
    report = validate_files(en_zh, {"d.txt": "\n".join(TALK_SRC).encode("gb18030")})
    errs = only(report, "invalid-utf8")
    assert errs and "GB18030" in errs[0].message


def test_control_characters_with_line_and_column(ts):
    files = clean_files()
    files["doc1.txt"] = as_bytes(["Chapter\x00One"] + DOC1_REF1[1:3] + ["\x1b[31mWho?\x1b[0m"] + DOC1_REF1[4:])
    report = validate_files(ts, files)
    got = [(f.line, f.column) for f in only(report, "control-char")]
    assert got == [(1, 8), (4, 1), (4, 10)]
    assert "NUL" in report.errors[0].message and "U+0000" in report.errors[0].message
    assert all(f.severity == "error" for f in only(report, "control-char"))


def test_tab_is_allowed(ts):
    files = clean_files()
    files["doc1.txt"] = as_bytes(["Chapter\tOne"] + DOC1_REF1[1:])
    assert validate_files(ts, files).findings == []


def test_bom_is_a_warning_and_is_removed(ts):
    files = clean_files()
    files["doc1.txt"] = b"\xef\xbb\xbf" + files["doc1.txt"]
    report = validate_files(ts, files)
    assert report.ok and [(f.code, f.severity) for f in report.findings] == [("bom", "warning")]
    assert "normalised" in report.findings[0].message
    assert "untranslated" not in report.codes() and report.documents["doc1"] == 6


def test_bom_in_the_middle_of_a_file(ts):
    # Concatenating files that each start with a BOM leaves one inside the text.
    path_bytes = as_bytes(DOC1_REF1) + b"\xef\xbb\xbf" + as_bytes(TALK_REF1)
    report = validate_files(ts, {"all.txt": path_bytes})
    [warn] = only(report, "odd-character")
    assert warn.line == 7 and "U+FEFF" in warn.message and warn.document == "talk.2"


def test_crlf_line_endings_are_normalised(ts):
    files = {name: data.replace(b"\n", b"\r\n") for name, data in clean_files().items()}
    report = validate_files(ts, files)
    assert report.ok and report.codes() == {"line-endings"}
    assert "CRLF" in report.findings[0].message and report.documents == {"doc1": 6, "talk.2": 5}


def test_bare_cr_counts_as_a_line_break(ts):
    files = clean_files()
    files["doc1.txt"] = files["doc1.txt"].replace(b"\n", b"\r")
    report = validate_files(ts, files)
    assert report.ok and report.documents["doc1"] == 6
    warn = only(report, "line-endings")[0]
    assert "carriage return" in warn.message and warn.line == 1


def test_stray_cr_inside_a_line_explains_the_line_count(ts):
    files = clean_files()
    lines = list(DOC1_REF1)
    lines[3] = "\"Who are you looking for?\"\r he asked."
    files["doc1.txt"] = as_bytes(lines)
    report = validate_files(ts, files)
    assert only(report, "line-endings")[0].line == 4
    assert "got 7" in only(report, "line-count")[0].message


def test_unicode_line_separator_is_a_warning(ts):
    files = clean_files()
    files["doc1.txt"] = as_bytes(["Chapter\u2028One"] + DOC1_REF1[1:])
    report = validate_files(ts, files)
    assert report.ok and [(f.code, f.line, f.column) for f in report.findings] == [("odd-character", 1, 8)]


# --------------------------------------------------------------------------- line counts


def shift_span(message: str) -> tuple[int, int]:
    """The line a line-count message says the content is shifted from, as a (first, last) range."""
    m = re.search(r"shifted from line (\d+)(?: \(or nearby: lines (\d+)-(\d+))?", message)
    assert m, message
    return (int(m.group(2) or m.group(1)), int(m.group(3) or m.group(1)))


def test_line_count_names_document_and_shift(long_ts):
    _, ref1, _ = long_document()
    hyp = ref1[:14] + ref1[15:]                     # source line 15 has no translation
    report = validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)})
    [err] = report.errors
    assert (err.code, err.file, err.document) == ("line-count", "novel.txt", "novel")
    assert "expected 30 lines (as in the source of document 'novel'), got 29" in err.message
    assert "the content looks shifted from line 15: it reads like source line 16" in err.message
    assert "source line 15 is probably missing" in err.message
    assert "document-level" in err.message
    assert "untranslated" not in report.codes() and "length-ratio" not in report.codes()


@pytest.mark.parametrize("missing", [0, 3, 9, 14, 20, 26])
def test_shift_is_found_wherever_the_line_is_missing(long_ts, missing):
    _, ref1, _ = long_document()
    hyp = ref1[:missing] + ref1[missing + 1:]
    err = only(validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)}),
               "line-count")[0]
    first, last = shift_span(err.message)
    assert first <= missing + 1 <= last and last - first <= 2


def test_line_count_with_an_added_line(long_ts):
    _, ref1, _ = long_document()
    hyp = ref1[:20] + ["An added sentence that translates nothing at all in the source."] + ref1[20:]
    err = only(validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)}),
               "line-count")[0]
    assert "got 31" in err.message and "probably extra" in err.message
    first, last = shift_span(err.message)
    assert first <= 21 <= last


def test_extra_lines_at_the_end(long_ts):
    _, ref1, _ = long_document()
    hyp = ref1 + ["Translator's note: this chapter was hard to translate."]
    err = only(validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)}),
               "line-count")[0]
    assert "lines up with the source for its first 30 lines; the 1 line after them is extra" in err.message


def test_missing_last_line(long_ts):
    _, ref1, _ = long_document()
    report = validate_files(long_ts, {"novel.txt": as_bytes(ref1[:-1]), "talk.2.txt": as_bytes(TALK_REF1)})
    assert "the last source line seems to be missing" in only(report, "line-count")[0].message


def test_line_count_without_evidence_makes_no_claim(long_ts):
    hyp = ["The same sentence every time."] * 29
    report = validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)})
    err = only(report, "line-count")[0]
    assert "got 29" in err.message and "shifted" not in err.message and "missing" not in err.message




def ted_documents(system: str) -> dict[str, tuple[list[str], list[str], list[str]]]:
    """Source, reference and ``system`` output of the WMT21 TED en-de MQM data, per talk."""
    import csv
    import gzip

    segs: dict[tuple[str, str], dict[int, tuple[str, str]]] = {}
    with gzip.open(SHARED_DATA / "google-mqm" / "mqm_ted_ende.tsv.gz", "rt", encoding="utf-8") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        for row in reader:
            if len(row) >= 7 and row[0] in (system, "ref"):
                clean = [re.sub(r"</?v>", "", t) for t in row[5:7]]
                segs.setdefault((row[0], row[1]), {})[int(row[2])] = (clean[0], clean[1])
    out = {}
    for (sysname, doc), by_id in segs.items():
        if sysname != system or (("ref", doc)) not in segs:
            continue
        ids = sorted(set(by_id) & set(segs[("ref", doc)]))
        out[doc] = ([by_id[i][0] for i in ids], [segs[("ref", doc)][i][1] for i in ids], [by_id[i][1] for i in ids])
    return out


def test_shift_detection_on_real_outputs():
    realdata.require(realdata.ENDE_TSV)
    docs = ted_documents("Facebook-AI")
    assert docs
    right = wrong = silent = 0
    for name, (src, ref, hyp) in docs.items():
        ts2 = V.TestSet("ted", "en", "de", [V.Document(name, tuple(src), (tuple(ref),))])
        for missing in range(2, len(hyp) - 2, 9):
            report = validate_files(ts2, {f"{name}.txt": as_bytes(hyp[:missing] + hyp[missing + 1:])})
            message = only(report, "line-count")[0].message
            if "shifted from" not in message:
                silent += 1
                continue
            first, last = shift_span(message)
            if first - 1 <= missing + 1 <= last + 1:
                right += 1
            else:
                wrong += 1
    total = right + wrong + silent
    assert total >= 30
    assert right >= 0.7 * total and wrong <= 0.05 * total, (right, wrong, silent)


def test_trailing_empty_lines_are_named(ts):
    files = clean_files()
    files["doc1.txt"] += b"\n\n"
    err = only(validate_files(ts, files), "line-count")[0]
    assert "expected 6 lines" in err.message and "got 8" in err.message
    assert "ends with 2 extra empty lines" in err.message


def test_document_level_accepts_a_line_count_mismatch(long_ts):
    _, ref1, _ = long_document()
    joined = [" ".join(ref1[i:i + 3]) for i in range(0, 30, 3)]   # paragraphs, not sentences
    report = validate_files(long_ts, {"novel.txt": as_bytes(joined), "talk.2.txt": as_bytes(TALK_REF1)},
                            document_level=True)
    assert report.ok and report.document_level
    assert report.na_metrics == ["bleu", "chrf", "comet", "ter"]   # the registry's order
    warn = only(report, "line-count")[0]
    assert warn.severity == "warning" and "d-BLEU" in warn.message and "got 10" in warn.message
    assert report.documents == {"novel": 10, "talk.2": 5}
    assert "document-level" in report.format_text().splitlines()[-1]


def test_document_level_option_with_aligned_output_is_sentence_level(ts):
    report = validate_files(ts, clean_files(), document_level=True)
    assert report.findings == [] and not report.document_level and report.na_metrics == []


def test_single_file_line_count_maps_the_shift_to_a_document(tmp_path):
    ts2 = make_testset(tmp_path / "t", {"ch.1": long_document(seed=1), "ch.2": long_document(seed=2)})
    ch1, ch2 = long_document(seed=1)[1], long_document(seed=2)[1]
    hyp = ch1 + ch2[:14] + ch2[15:]                 # ch.2 loses its line 15, line 45 of the file
    report = validate_files(ts2, {"system.out": as_bytes(hyp)})
    [err] = report.errors
    assert err.code == "line-count" and err.file == "system.out"
    assert "expected 60 lines (every segment of the test set's 2 documents, in order), got 59" in err.message
    assert "shifted from line 45" in err.message and "(document 'ch.2', its line 15)" in err.message
    assert report.documents == {"ch.1": 30, "ch.2": 29}


def test_single_file_missing_line_in_the_first_document(long_ts):
    _, ref1, _ = long_document()
    err = only(validate_files(long_ts, {"system.out": as_bytes(ref1[:14] + ref1[15:] + TALK_REF1)}), "line-count")[0]
    assert "shifted from line 15" in err.message and "document 'novel', its line 15" in err.message


def test_single_file_missing_its_last_line(long_ts):
    _, ref1, _ = long_document()
    err = only(validate_files(long_ts, {"system.out": as_bytes(ref1 + TALK_REF1[:-1])}), "line-count")[0]
    assert "got 34" in err.message and "(document" not in err.message


def test_single_file_cannot_be_document_level(ts, tmp_path):
    path = write_lines(tmp_path / "out.txt", DOC1_REF1[:-1] + TALK_REF1)
    report = validate_submission(ts, path, document_level=True)
    err = only(report, "line-count")[0]
    assert err.severity == "error" and "one <document>.txt file per document" in err.message
    assert not report.document_level


def test_single_file_with_extra_trailing_empty_lines(ts, tmp_path):
    path = tmp_path / "out.txt"
    path.write_bytes(as_bytes(DOC1_REF1 + TALK_REF1) + b"\n\n\n")
    err = only(validate_submission(ts, path), "line-count")[0]
    assert "ends with 3 extra empty lines" in err.message


def test_single_file_named_like_a_document_gets_a_hint(ts):
    report = validate_files(ts, {"doc1.txt": as_bytes(DOC1_REF1 + TALK_REF1)})
    assert "missing-document" in report.codes()
    assert "upload it as a single file under another name" in only(report, "line-count")[0].message


# --------------------------------------------------------------------------- content


def test_empty_line_where_the_source_is_not_empty(ts):
    files = clean_files()
    files["talk.2.txt"] = as_bytes(TALK_REF1[:2] + [""] + TALK_REF1[3:])
    report = validate_files(ts, files)
    assert report.ok
    [warn] = report.findings
    assert (warn.code, warn.file, warn.line, warn.document) == ("empty-line", "talk.2.txt", 3, "talk.2")


def test_line_identical_to_the_source(ts):
    files = clean_files()
    files["doc1.txt"] = as_bytes(DOC1_REF1[:2] + [DOC1_SRC[2]] + DOC1_REF1[3:])
    report = validate_files(ts, files)
    assert report.ok
    [warn] = report.findings   # not also a source-script warning for the same line
    assert (warn.code, warn.line) == ("untranslated", 3) and "identical to the source" in warn.message


def test_source_uploaded_instead_of_translation(ts):
    files = {"doc1.txt": as_bytes(DOC1_SRC), "talk.2.txt": as_bytes(TALK_SRC)}
    report = validate_files(ts, files)
    assert report.ok   # warnings only: a participant may have reasons
    assert len(only(report, "source-copy")) == 2
    assert "was the source uploaded" in only(report, "source-copy")[0].message


def test_copied_names_and_numbers_are_not_untranslated(tmp_path):
    # The references are never consulted (that would reveal them); the source line alone decides.
    docs = {"d": (["Paris, 1987.", "iPhone 15", "他笑了。"], ["Paris, 1987.", "iPhone 15", "He laughed."],
                  ["Paris in 1987.", "An iPhone 15", "He smiled."])}
    ts2 = make_testset(tmp_path / "t", docs)
    assert validate_files(ts2, {"d.txt": as_bytes(["Paris, 1987.", "iPhone 15", "He laughed."])}).findings == []


def test_untranslated_within_one_script(tmp_path):
    docs = {"d": (["Harry Potter", "The house is small and old."], ["Harry Potter", "Das Haus ist klein und alt."],
                  ["Harry Potter", "Das Haus ist klein."])}
    en_de = make_testset(tmp_path / "ende", docs, src_lang="en", tgt_lang="de")
    report = validate_files(en_de, {"d.txt": as_bytes(["Harry Potter", "The house is small and old."])})
    assert [(f.code, f.line) for f in report.findings] == [("untranslated", 2)]


def test_source_script_in_an_english_output(ts):
    files = clean_files()
    lines = list(DOC1_REF1)
    lines[1] = "那年冬天，雪下得特别大 (the snow)."          # mostly Han, not identical to the source
    lines[3] = "\"Who are you looking for?\" 他 asked."     # one Han letter: fine
    files["doc1.txt"] = as_bytes(lines)
    report = validate_files(ts, files)
    [warn] = only(report, "source-script")
    assert warn.line == 2 and "Han" in warn.message and "target language is en" in warn.message


def test_chinese_target_language(tmp_path):
    en_zh = make_testset(tmp_path / "enzh", {"talk": (TALK_REF1, TALK_SRC, TALK_SRC)}, src_lang="en",
                         tgt_lang="zh-Hans")
    assert validate_files(en_zh, {"talk.txt": as_bytes(TALK_SRC)}).findings == []
    hyp = list(TALK_SRC)
    hyp[1] = "Most of what we know 来自光。"
    hyp[3] = "iPhone 15。"   # too few letters to judge
    report = validate_files(en_zh, {"talk.txt": as_bytes(hyp)})
    assert [(f.code, f.line) for f in report.findings] == [("source-script", 2)]
    assert "Latin" in report.findings[0].message


def test_no_script_check_for_same_script_pairs(tmp_path):
    en_de = make_testset(tmp_path / "ende", {"d": (["The house is small and old."], ["Das Haus ist klein und alt."],
                                                   ["Das Haus ist klein."])}, src_lang="en", tgt_lang="de")
    assert validate_files(en_de, {"d.txt": as_bytes(["Das Haus ist klein und alt."])}).findings == []


def test_repeated_lines_loop(long_ts):
    _, ref1, _ = long_document()
    hyp = ref1[:10] + ["And then he said nothing."] * 6 + ref1[16:]
    report = validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)})
    [warn] = only(report, "repeated-lines")
    assert (warn.line, warn.severity) == (11, "warning") and "lines 11-16" in warn.message
    assert "repeated 6 times" in warn.message and report.ok


def test_four_repeats_are_not_a_loop(long_ts):
    _, ref1, _ = long_document()
    hyp = ref1[:10] + ["And then he said nothing."] * 4 + ref1[14:]
    report = validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)})
    assert "repeated-lines" not in report.codes()


def test_repeats_are_fine_when_the_source_repeats(tmp_path):
    docs = {"song": (["啦啦啦。"] * 6 + ["完。"], ["La la la."] * 6 + ["The end."], ["La la la."] * 6 + ["End."])}
    ts2 = make_testset(tmp_path / "t", docs)
    assert validate_files(ts2, {"song.txt": as_bytes(["La la la."] * 6 + ["The end."])}).findings == []


def test_repeated_lines_are_found_even_when_misaligned(long_ts):
    _, ref1, _ = long_document()
    hyp = ref1[:10] + ["Loop."] * 12 + ref1[16:]
    report = validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)},
                            document_level=True)
    assert only(report, "repeated-lines")[0].line == 11


def test_absurd_length_ratios(long_ts):
    src, ref1, _ = long_document()
    hyp = list(ref1)
    longest = max(range(30), key=lambda i: len(src[i]))
    hyp[longest] = "Yes."                               # far too short for its long source line
    shortest = min(range(30), key=lambda i: len(src[i]))
    hyp[shortest] = ref1[shortest] + " and so on" * 60  # a hallucinated tail
    report = validate_files(long_ts, {"novel.txt": as_bytes(hyp), "talk.2.txt": as_bytes(TALK_REF1)})
    warns = {f.line: f.message for f in only(report, "length-ratio")}
    assert set(warns) == {longest + 1, shortest + 1}
    assert "only 4 characters" in warns[longest + 1] and "hallucination" in warns[shortest + 1]
    assert report.ok


def test_short_lines_are_not_judged_by_length(ts):
    files = clean_files()
    files["talk.2.txt"] = as_bytes(TALK_REF1[:4] + ["Thanks to each and every one of you here tonight."])
    assert validate_files(ts, files).findings == []   # "谢谢大家。" is too short to judge


def test_expected_ratio_comes_from_the_references(ts, tmp_path):
    ratio = V._expected_ratio(ts)
    assert 2.0 < ratio < 5.0   # English has several characters per Chinese character
    no_refs = V.TestSet("x", "zh", "en", [V.Document("d", ("天",), ())])
    assert V._expected_ratio(no_refs) == 3.0


# --------------------------------------------------------------------------- caps and robustness


def test_many_findings_are_capped_per_code_and_file(ts, tmp_path):
    garbage = b"some text with a bell \x07 in it\n" * 100_000
    path = tmp_path / "garbage.txt"
    path.write_bytes(garbage)
    start = time.monotonic()
    report = validate_submission(ts, path, max_findings_per_code=20)
    assert time.monotonic() - start < 30
    ctrl = only(report, "control-char")
    assert len(ctrl) == 21
    assert "and 99980 more [control-char] findings in garbage.txt" in ctrl[-1].message
    assert ctrl[-1].severity == "error" and ctrl[-1].line is None
    assert len(report.findings) < 60 and len(report.format_text().splitlines()) < 60


def test_cap_summary_follows_its_own_file(ts):
    files = {"doc1.txt": b"a NUL \x00 in this line\n" * 30, "talk.2.txt": b"a NUL \x00 in this line\n" * 30}
    report = validate_files(ts, files, max_findings_per_code=5)
    ctrl = only(report, "control-char")
    assert [f.file for f in ctrl] == ["doc1.txt"] * 6 + ["talk.2.txt"] * 6
    assert "and 25 more [control-char] findings in doc1.txt" in ctrl[5].message
    # Each file's findings stay together: nothing of talk.2.txt comes before doc1.txt's summary.
    files_in_order = [f.file for f in report.findings]
    assert files_in_order.index("talk.2.txt") > report.findings.index(ctrl[5])


def test_a_folder_of_junk_files_gives_a_short_report(ts, tmp_path):
    sub = write_submission(tmp_path / "sub", {"doc1": ["Chapter\x00One"] + DOC1_REF1[1:], "talk.2": TALK_REF1})
    for i in range(300):
        (sub / f"junk{i}.txt").write_bytes(b"x\n")
        (sub / f"junk{i}.dat").write_bytes(b"x\n")
    report = validate_submission(ts, sub, max_findings_per_code=10)
    assert len(only(report, "extra-document")) == 11 and len(only(report, "not-txt")) == 11
    assert "and 290 more [extra-document] findings not listed" in only(report, "extra-document")[-1].message
    # The summaries about the files come before the findings about the documents' content.
    summaries = [i for i, f in enumerate(report.findings) if "more" in f.message]
    assert len(summaries) == 2 and max(summaries) < report.findings.index(only(report, "control-char")[0])
    assert report.documents == {"doc1": 6, "talk.2": 5}


def test_lone_unknown_file_in_a_directory_gets_a_hint(ts, tmp_path):
    sub = tmp_path / "sub"
    write_lines(sub / "all.txt", DOC1_REF1 + TALK_REF1)
    err = only(validate_submission(ts, sub), "extra-document")[0]
    assert "upload it alone as a single-file submission" in err.message


def test_one_very_long_line(ts):
    report = validate_files(ts, {"out.txt": b"a" * 2_000_000})
    assert "line-count" in report.codes() and "got 1" in only(report, "line-count")[0].message
    assert_no_internal_error(report)


@pytest.mark.parametrize("seed", range(8))
def test_random_bytes_never_crash(ts, seed):
    rng = random.Random(seed)
    alphabet = [b"\n", b"\r", b"\r\n", b"\x00", b"\xef\xbb\xbf", b"\xff", b"\xe4\xb8", "天".encode(), b"word ", b"\t"]
    blob = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
    for report in (validate_files(ts, {"x.bin": blob}), validate_files(ts, {"doc1.txt": blob, "talk.2.txt": blob})):
        assert_no_internal_error(report)
        json.dumps(report.to_dict())


def test_a_validator_bug_becomes_a_finding_not_a_crash(ts, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(V._Checker, "content", boom)
    for report in (validate_files(ts, clean_files()), validate_files(ts, {"out.txt": as_bytes(DOC1_REF1)})):
        [err] = only(report, "internal-error")
        assert "RuntimeError: boom" in err.message and not report.ok


def test_file_names_cannot_inject_report_lines(ts):
    report = validate_files(ts, {**clean_files(), "evil\nOK all good.txt": b"x\n"})
    text = report.format_text()
    assert "\nOK all good" not in text and "evil\\nOK all good.txt" in text


# --------------------------------------------------------------------------- the report


def test_report_to_dict_and_format_text(ts):
    files = clean_files()
    files["doc1.txt"] = as_bytes(["Chapter\x00One"] + DOC1_REF1[1:])
    files["talk.2.txt"] = b"\xef\xbb\xbf" + files["talk.2.txt"]
    report = validate_files(ts, files, name="team-a primary")
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ok"] is False and data["submission"] == "team-a primary"
    assert {"errors", "warnings", "document_level", "na_metrics", "documents"} <= set(data)
    assert data["errors"][0] == {"severity": "error", "code": "control-char", "message": data["errors"][0]["message"],
                                 "file": "doc1.txt", "line": 1, "column": 8, "byte_offset": None, "document": "doc1"}
    assert data["warnings"][0]["code"] == "bom"
    lines = report.format_text().splitlines()
    assert lines[0].startswith("ERROR doc1.txt:1:8 [control-char] ")
    assert lines[1].startswith("WARNING talk.2.txt:1:1 [bom] ")
    assert lines[-1] == "team-a primary: rejected: 1 error, 1 warning; 2 documents, 11 lines read"


def test_submission_level_findings_are_located_at_the_submission(ts, tmp_path):
    report = validate_submission(ts, tmp_path / "missing-dir")
    assert report.format_text().startswith("ERROR (submission) [not-found] ")
    assert report.format_text().splitlines()[-1].endswith("rejected: 1 error, 0 warnings; 0 documents, 0 lines read")


def test_accepted_summary(ts):
    assert validate_files(ts, clean_files()).format_text() == \
        "upload: accepted: 0 errors, 0 warnings; 2 documents, 11 lines read"


# --------------------------------------------------------------------------- internals


@pytest.mark.parametrize("seed", range(20))
def test_segments_split_exactly_like_split_lines(seed):
    rng = random.Random(seed)
    pieces = ["a", "bc", "天", "\n", "\r", "\r\n", "\n\n", " ", "\r\r\n"]
    text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 30)))
    if rng.random() < 0.3:
        text = "\ufeff" + text
    data = text.encode("utf-8")
    reader = V._LineReader(io.BytesIO(data), "x", V._Collector(5))
    assert list(reader) == split_lines(text)


def test_lang_scripts_and_char_script():
    assert V.lang_scripts("zh-Hans") == {"Han"} and V.lang_scripts("en_US") == {"Latin"}
    assert V.lang_scripts("ja") == {"Han", "Hiragana", "Katakana"} and V.lang_scripts("xx") is None
    assert V.lang_scripts("zho") == {"Han"} and V.lang_scripts("") is None
    assert [V.char_script(c) for c in "a天かカ한жαשب１"] == [
        "Latin", "Han", "Hiragana", "Katakana", "Hangul", "Cyrillic", "Greek", "Hebrew", "Arabic", None]
    assert V.char_script("Ａ") == "Latin"   # fullwidth Latin


def test_command_line(ts, tmp_path, capsys):
    from scoring.cli import main

    sub = write_submission(tmp_path / "sub", {"doc1": DOC1_REF1, "talk.2": TALK_REF1})
    assert main(["validate", str(ts.path), str(sub)]) == 0
    assert "accepted" in capsys.readouterr().out
    write_lines(sub / "doc1.txt", DOC1_REF1[:-1])
    assert main(["validate", str(ts.path), str(sub), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["errors"][0]["code"] == "line-count"
    assert main(["validate", str(ts.path), str(sub), "--document-level"]) == 0
    assert main(["validate", str(tmp_path / "no-testset"), str(sub)]) == 2


def test_scoring_stays_a_library():
    source = Path(V.__file__).read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+(flask|sqlalchemy|enface)\b", source, re.M | re.I)
