"""Helpers of the fuzz tests (tests/platform/fuzz): the budget, JSON strategies, row counts, rejections.

The budget: ``ENFACE_FUZZ_EXAMPLES`` generated inputs per fuzz test (default 25: what CI runs);
``make fuzz`` sets it so that a run makes at least 10,000 inputs in all. Every fuzz test counts
the inputs it really sent in ``SENT`` (printed at the end of the session by the fuzz conftest).

The strategies include what issue 11 found crashing (finding 3): lone surrogates and superscript
digits (Unicode category No) in strings and integers beyond 64 bits; JSON nested deeper than a few
levels has its own regression tests.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from . import DEMO

SENT: Counter = Counter()       # inputs sent, per target
ANSWERS: Counter = Counter()    # (target, status) of some targets: what the inputs got, not counted twice


def budget() -> int:
    raw = os.environ.get("ENFACE_FUZZ_EXAMPLES", "").strip()
    return int(raw) if raw else 25


def fuzz_settings(share: float = 1.0):
    """Hypothesis settings for one fuzz test: ``share`` of the budget, no deadline, no database of examples."""
    return settings(max_examples=max(5, int(budget() * share)), deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), derandomize=False)


# Code points a file can hold (no lone surrogates, Cs, which UTF-8 cannot encode), superscript digits
# ("²".isdigit() but int() fails) included; JSON strings take any code point: lone surrogates crashed saves once.
SAFE_CHARS = st.characters(blacklist_categories=("Cs",))
text = st.text(st.characters(), max_size=40)
# A form field's value (multipart or urlencoded) is UTF-8 text on the wire: the test client cannot encode a
# lone surrogate there (hypothesis found one, and the test crashed before sending anything).
form_text = st.text(SAFE_CHARS, max_size=40)
small_ints = st.integers(min_value=-(2 ** 62), max_value=2 ** 62) | st.integers()
scalars = st.none() | st.booleans() | small_ints | st.floats(allow_nan=False, allow_infinity=False) | text
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(text, inner, max_size=4), max_leaves=12)


# The demo system strong-mt: what a near-valid submission is mutated from.
REAL = {p.name: p.read_bytes() for p in sorted((DEMO / "systems" / "strong-mt").glob("*.txt"))}
NAMES = sorted(REAL)
JUNK = [b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\r", b"\r\n", b"\xc3\x28", b"\xed\xa0\x80", b"\t", b"\x0b",
        b"\xe2\x80\xa8", b"\n\n", b"<script>", b"\xf0\x9f\x98\x80"]


@st.composite
def mutated(draw, name: str) -> bytes:
    lines = REAL[name].split(b"\n")
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["drop", "double", "junk", "join", "empty", "long"]))
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "drop" and lines:
            del lines[i]
        elif op == "double" and lines:
            lines.insert(i, lines[i])
        elif op == "junk" and lines:
            pos = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:pos] + draw(st.sampled_from(JUNK)) + lines[i][pos:]
        elif op == "join" and len(lines) > i + 1:
            lines[i:i + 2] = [lines[i] + b" " + lines[i + 1]]
        elif op == "empty" and lines:
            lines[i] = b""
        elif op == "long" and lines:
            lines[i] = lines[i] * draw(st.integers(2, 50))
    return b"\n".join(lines)


names = (st.sampled_from(NAMES) | st.sampled_from(["../x.txt", "/etc/passwd", "a/b/" + NAMES[0], "X.TXT", "",
                                                   NAMES[0].upper(), NAMES[0] + ".bak", "con.txt", " .txt"])
         | st.text(SAFE_CHARS, max_size=30))


@st.composite
def submissions(draw) -> dict[str, bytes]:
    """{file name: bytes}: real files, mutated files, random bytes, under right and wrong names."""
    files: dict[str, bytes] = {}
    for name in draw(st.lists(names, max_size=len(NAMES) + 2)):
        if name in REAL and draw(st.booleans()):
            files[name] = draw(mutated(name))
        else:
            files[name] = draw(st.binary(max_size=300) | st.just(REAL[NAMES[0]]))
    return files



def row_counts(app) -> dict[str, int]:
    """Rows per table: a rejected request must leave every count as it was (no partial write)."""
    from enface.extensions import db
    from enface.models import Base
    from sqlalchemy import func, select

    with app.app_context():
        return {t.name: db.session.scalar(select(func.count()).select_from(t)) for t in Base.metadata.sorted_tables}


def api_error_message(resp) -> str:
    """The sentence of a JSON error: ``{"error": {"code", "message", "details"}}``; '' when absent."""
    try:
        body = json.loads(resp.get_data(as_text=True))
    except ValueError:
        return ""
    err = body.get("error") if isinstance(body, dict) else None
    return err.get("message", "") if isinstance(err, dict) else ""


FLASH_ERROR = re.compile(r'class="flash error"[^>]*>([^<]+)<')


def page_error_message(resp) -> str:
    """The sentence of a form page's error (a flash, or a field's error)."""
    html = resp.get_data(as_text=True)
    found = FLASH_ERROR.search(html) or re.search(r'class="error-text"[^>]*>([^<]+)<', html)
    return found.group(1).strip() if found else ""


def pytest_terminal_summary(terminalreporter):
    """A pytest hook (tests/conftest.py registers this module): the inputs the fuzz tests sent, per target."""
    if not SENT:
        return
    terminalreporter.section(f"fuzz inputs sent (ENFACE_FUZZ_EXAMPLES={budget()})")
    for target, n in sorted(SENT.items()):
        terminalreporter.write_line(f"{n:8d}  {target}")
    terminalreporter.write_line(f"{sum(SENT.values()):8d}  in all")
    for (target, status), n in sorted(ANSWERS.items()):
        terminalreporter.write_line(f"{n:8d}  {target} answered {status}")
