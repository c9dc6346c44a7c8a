"""CSV files written for people: no cell runs as a spreadsheet formula (CSV injection).

Spreadsheet programs run a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and some a tab or a carriage
return first) as a formula, so a team's system name, a description or a judge's comment could run one on
an organizer's machine. :func:`safe_cell` prefixes such a text with an apostrophe (OWASP's advice), which
spreadsheets show as the text itself; a number written as text (``-0.25``, ``+1e-3``) stays a number.
:func:`writer` and :func:`dict_writer` are :mod:`csv`'s writers with every cell passed through it: every
CSV the platform and the libraries write for people uses them.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from typing import Any

TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n")


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def safe_cell(value: Any) -> Any:
    """``value`` as a cell that no spreadsheet runs: text starting with a formula character gets a leading
    apostrophe, unless it is a plain number; other values (numbers, None) are left as they are."""
    if isinstance(value, str) and value[:1] in TRIGGERS and not _is_number(value):
        return "'" + value
    return value


class _SafeWriter:
    def __init__(self, inner):
        self._inner = inner

    def writerow(self, row: Iterable[Any]):
        return self._inner.writerow([safe_cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


class _SafeDictWriter:
    def __init__(self, inner: csv.DictWriter):
        self._inner = inner

    def writeheader(self):
        return self._inner.writeheader()

    def writerow(self, row: Mapping[str, Any]):
        return self._inner.writerow({k: safe_cell(v) for k, v in row.items()})

    def writerows(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out, **kwargs) -> _SafeWriter:
    """``csv.writer(out, **kwargs)`` whose every cell goes through :func:`safe_cell`."""
    return _SafeWriter(csv.writer(out, **kwargs))


def dict_writer(out, fieldnames, **kwargs) -> _SafeDictWriter:
    """``csv.DictWriter(out, fieldnames, **kwargs)`` whose every cell goes through :func:`safe_cell`."""
    return _SafeDictWriter(csv.DictWriter(out, fieldnames, **kwargs))
