"""The protocol contract's typed parts: the export table, the declared options, the registry's order."""

from __future__ import annotations

import pytest
from enface.campaigns.contract import Export
from enface.campaigns.options import Option
from enface.campaigns.protocol import Protocol, export_table
from enface.services import NotFound


class _Tables(Protocol):
    key = "contract-tables"

    def exports(self):
        return {"txt": Export("text/plain", "txt", "Text", lambda campaign: f"campaign {campaign}")}


class _OldTuples(Protocol):
    """A protocol written against the older contract: tuples, and an export() of its own."""

    key = "contract-tuples"

    def exports(self):
        return {"csv": ("text/csv", "csv", "CSV")}

    def export(self, campaign, fmt):
        if fmt == "csv":
            return f"csv of {campaign}"
        return super().export(campaign, fmt)


class _Broken(Protocol):
    key = "contract-broken"

    def exports(self):
        return {"csv": ("text/csv", "csv", "CSV")}   # a tuple and no export(): nothing writes it


def test_one_export_table_serves_every_caller():
    assert _Tables().export(7, "txt") == "campaign 7"
    with pytest.raises(NotFound):
        _Tables().export(7, "csv")
    table = export_table(_OldTuples())
    assert table["csv"].mimetype == "text/csv" and table["csv"].writer(3) == "csv of 3"
    with pytest.raises(TypeError, match="has no writer"):
        export_table(_Broken())


def test_an_option_reads_its_form_field():
    from werkzeug.datastructures import MultiDict

    posted = MultiDict([("n", " 4 "), ("flag", "1"), ("many", "a"), ("many", " "), ("many", "b")])
    assert Option("n", int, 2).from_form(posted) == "4"
    assert Option("missing", int, 2).from_form(posted) == 2
    assert Option("flag", bool, False).from_form(posted) is True and Option("off", bool).from_form(posted) is False
    assert Option("many", str, (), multiple=True).from_form(posted) == ["a", "b"]
    assert Option("words_per_second", float).cli_flag == "--words-per-second"
    assert Option("sample_docs", int, flag="--docs").cli_flag == "--docs"


def test_the_missing_install_metadata_says_what_to_run(monkeypatch):
    from enface.campaigns import discovery

    monkeypatch.setattr(discovery, "entry_points", lambda group: [])
    with pytest.raises(discovery.ProtocolsMissing, match="make install"):
        discovery.load_protocols()


def test_an_entry_point_must_give_its_protocol():
    from importlib.metadata import EntryPoint

    from enface.campaigns import discovery

    wrong = EntryPoint(name="other", value="enface.protocols.mqm.protocol:PROTOCOL", group=discovery.GROUP)
    with pytest.raises(ValueError, match="its protocol's key"):
        discovery._protocol_object(wrong)
    not_one = EntryPoint(name="mqm", value="enface.campaigns.options:Option", group=discovery.GROUP)
    with pytest.raises(TypeError, match="is not a Protocol"):
        discovery._protocol_object(not_one)
