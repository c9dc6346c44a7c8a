"""Fuzzing the validator (scoring/validate.py): random and near-valid submissions never raise,
and every error names its problem (a message) and where it is when it is in a file.

Near-valid: the demo systems' real files with lines dropped, doubled, split or joined, bytes
swapped for invalid UTF-8, NUL, BOM, CR, and names made wrong; plus plain random bytes.
Budget: ENFACE_FUZZ_EXAMPLES (tests/support/fuzzing.py).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scoring.testset import load_testset
from scoring.validate import validate_files, validate_submission
from tests.support import DEMO
from tests.support.fuzzing import NAMES, REAL, SENT, fuzz_settings, submissions

TESTSET = load_testset(DEMO / "testset")
def _check(report) -> None:
    for f in report.findings:
        assert f.severity in ("error", "warning"), f
        assert f.code and f.message.strip(), f
    if report.errors:
        assert "rejected" in report.format_text()


@fuzz_settings()
@given(files=submissions(), document_level=st.booleans())
def test_fuzz_validate_files(files, document_level):
    SENT["validator (in memory)"] += 1
    report = validate_files(TESTSET, files, document_level=document_level, max_bytes=2_000_000)
    _check(report)
    if set(files) == set(NAMES) and all(files[n] == REAL[n] for n in NAMES):
        assert report.ok, report.format_text()


@fuzz_settings(share=0.25)
@given(files=submissions())
def test_fuzz_validate_directory(files, tmp_path_factory):
    SENT["validator (directory)"] += 1
    folder = tmp_path_factory.mktemp("sub")
    for name, data in files.items():
        if not name or "/" in name or "\\" in name or name in (".", "..") or "\x00" in name or len(name.encode()) > 200:
            continue
        (folder / name).write_bytes(data)
    _check(validate_submission(TESTSET, folder, max_bytes=2_000_000))
