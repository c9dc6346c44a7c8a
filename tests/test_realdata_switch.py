"""Real-data tests go through the same strict switch as services: absent data skips on a laptop and
fails under ENFACE_STRICT_SERVICES=1 (CI), so a CI without ../shared/data cannot stay green."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import realdata
from tests.support.services import require_module


def test_absent_real_data_skips_on_a_laptop(tmp_path, monkeypatch):
    monkeypatch.delenv("ENFACE_STRICT_SERVICES", raising=False)
    with pytest.raises(pytest.skip.Exception, match="real data not available"):
        realdata.require(tmp_path / "absent.tsv.gz")


def test_absent_real_data_fails_in_ci(tmp_path, monkeypatch):
    monkeypatch.setenv("ENFACE_STRICT_SERVICES", "1")
    with pytest.raises(pytest.fail.Exception, match="ENFACE_STRICT_SERVICES=1: CI must provide it"):
        realdata.require(tmp_path / "absent.tsv.gz")
    with pytest.raises(pytest.fail.Exception):
        list(realdata.ter_pairs(tmp_path / "absent.tsv.gz"))


def test_present_real_data_is_returned(tmp_path, monkeypatch):
    monkeypatch.setenv("ENFACE_STRICT_SERVICES", "1")
    present = tmp_path / "present.tsv.gz"
    present.write_bytes(b"")
    assert realdata.require(present) == present


def test_a_missing_reference_library_fails_in_ci(monkeypatch):
    monkeypatch.setenv("ENFACE_STRICT_SERVICES", "1")
    with pytest.raises(pytest.fail.Exception, match="ENFACE_STRICT_SERVICES=1"):
        require_module("enface_no_such_module.raw", "reference library not installed")
    monkeypatch.delenv("ENFACE_STRICT_SERVICES")
    with pytest.raises(pytest.skip.Exception, match="reference library not installed"):
        require_module("enface_no_such_module.raw", "reference library not installed")
    assert require_module("json", "stdlib").dumps([]) == "[]"


def test_no_test_skips_on_an_import_that_the_strict_switch_cannot_see():
    """``pytest.importorskip`` skips even under ENFACE_STRICT_SERVICES=1: the tests use require_module."""
    tests = Path(__file__).resolve().parent
    offenders = [f"{path.relative_to(tests)}:{n}" for path in sorted(tests.rglob("*.py")) if path != Path(__file__)
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if "importorskip(" in line]
    assert not offenders, f"pytest.importorskip in {offenders}: use tests.support.services.require_module"
