"""Real-data tests go through the same strict switch as services: absent data skips on a laptop and
fails under ENFACE_STRICT_SERVICES=1 (CI), so a CI without ../shared/data cannot stay green."""

from __future__ import annotations

import pytest

from tests.support import realdata


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
