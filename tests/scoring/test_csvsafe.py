"""One helper neutralises spreadsheet formulas in every CSV written for people (issue 15, finding 4)."""

from __future__ import annotations

import ast
import csv
import io

import pytest

from scoring import csvsafe
from tests.support import ROOT


@pytest.mark.parametrize(("cell", "written"), [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
    ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\t=1", "'\t=1"), ("\r=1", "'\r=1"),
    ("-0.25", "-0.25"), ("+1e-3", "+1e-3"), ("plain", "plain"), ("", ""), ("a=b", "a=b"), ("-inf", "'-inf"),
    (3, 3), (-1.5, -1.5), (None, None)])
def test_safe_cell(cell, written):
    assert csvsafe.safe_cell(cell) == written


def test_the_writers_pass_every_cell_through_it():
    out = io.StringIO()
    w = csvsafe.writer(out, lineterminator="\n")
    w.writerow(["=1+1", -3, "-3", "ok"])
    d = csvsafe.dict_writer(out, ["a", "b"], lineterminator="\n")
    d.writeheader()
    d.writerow({"a": "@x", "b": "-0.5"})
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [["'=1+1", "-3", "-3", "ok"], ["a", "b"], ["'@x", "-0.5"]]


#: modules that write a data format other programs read, byte for byte as its tool does (the docs say so)
DATA_FORMATS = {"humaneval/esa/appraise.py": "Appraise's score export (no header, twelve columns, as Appraise)"}


def test_no_csv_is_written_around_the_helper():
    """Every module of the platform and the libraries writes CSV for people through scoring.csvsafe, none
    with csv's own writers (tests and benchmarks aside; data formats read by their tools are listed)."""
    offenders = []
    for folder in ("platform/enface", "scoring", "humaneval", "mqm"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "csvsafe.py" or str(path.relative_to(ROOT)) in DATA_FORMATS:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute) and node.attr in ("writer", "DictWriter") and \
                        isinstance(node.value, ast.Name) and node.value.id == "csv":
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, f"csv written without scoring.csvsafe: {offenders}"
