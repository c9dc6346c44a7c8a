"""No file of the core names a protocol: outside ``platform/enface/protocols/`` the core asks the installed
protocols (their entry points) for their parts, as the import-cycle tripwire keeps the layers apart.

What counts as naming a protocol (``KEY``: the key of an installed protocol), read from the source:

* Python: a string literal that is the key (``"mqm"``) or starts with it and a separator (``"mqm.results"``,
  ``"rubric/item.html"``, ``"mqm_nav"``), and a dotted name ``protocols.KEY``;
* templates, scripts and styles: a quoted key or a quoted name starting with it and a separator
  (``'mqm'``, ``"rubric/_x.html"``, ``'mqm.errors_svg'``), an attribute ``x.KEY`` (``board.mqm``), a name
  built on it (``_lb_KEY_``, ``KEY_nav``), a path ``protocols/KEY``.

Prose (a sentence that says "MQM" or "the reader") and the libraries (``import mqm``, ``humaneval.rubric``)
are not names of a protocol. The demo commands build the demo's campaigns of named protocols: they are
the one exception.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "platform" / "enface"
PROTOCOLS = CORE / "protocols"
#: the demo commands and data (they create the demo's MQM, reader and rubric campaigns by name)
EXCEPTIONS = ("platform/enface/commands/demo.py", "platform/enface/commands/demo_judge.py",
              "platform/enface/commands/demo_phenomena.py", "platform/enface/commands/demo_esa_ai.py",
              "platform/enface/commands/demo_crowd.py",
              "platform/enface/demo/")
SUFFIXES = {".py", ".html", ".js", ".css", ".svg", ".txt", ".json"}


def installed_keys() -> list[str]:
    from enface.campaigns.discovery import load_protocols

    return sorted(load_protocols())


def core_files() -> list[Path]:
    """Every file of the core (templates/ and migrations/ are links into the repository: followed once)."""
    seen, out = set(), []
    for folder in (CORE, ROOT / "templates"):
        for path in sorted(folder.rglob("*")):
            real = path.resolve()
            if not path.is_file() or path.suffix not in SUFFIXES or real in seen or "__pycache__" in path.parts:
                continue
            seen.add(real)
            if PROTOCOLS in real.parents:
                continue
            rel = real.relative_to(ROOT).as_posix()
            if rel.startswith(EXCEPTIONS) or rel.startswith("migrations/"):
                continue
            out.append(real)
    return out


def _python_names(text: str, key: str) -> list[str]:
    named = re.compile(rf"^(?:[rbuf]|rb|br|fr|rf)?(['\"]{{1,3}}){re.escape(key)}(?:[/._:-]\w[^'\"]*)?\1$", re.I)
    found, previous = [], []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING and named.match(tok.string):
            found.append(f"{tok.start[0]}: {tok.string}")
        if tok.type == tokenize.NAME and tok.string == key and previous[-2:] == ["protocols", "."]:
            found.append(f"{tok.start[0]}: protocols.{key}")
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = (previous + [tok.string])[-2:]
    return found


def _template_names(text: str, key: str) -> list[str]:
    k = re.escape(key)
    pattern = re.compile(rf"""['"]{k}(?:['"]|[/._:-]\w)|(?<=[\w\])])\.{k}\b|_{k}_|\b{k}_\w|protocols[/.]{k}\b""")
    return [f"{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in pattern.finditer(text)]


def names_in(path: Path, keys: list[str]) -> list[str]:
    text = path.read_text(encoding="utf-8")
    finder = _python_names if path.suffix == ".py" else _template_names
    return [f"{name}" for key in keys for name in finder(text, key)]


def offenders(keys: list[str]) -> dict[str, list[str]]:
    out = {}
    for path in core_files():
        found = names_in(path, keys)
        if found:
            out[path.relative_to(ROOT).as_posix()] = found
    return out


def test_the_core_names_no_protocol():
    keys = installed_keys()
    assert keys, "no protocol installed"
    found = offenders(keys)
    assert not found, "files outside platform/enface/protocols/ name a protocol (ask the protocol instead):\n" + \
        "\n".join(f"  {path}: {', '.join(names)}" for path, names in found.items())


def test_the_tripwire_sees_names():
    """The rules catch what they are meant to, and leave prose and libraries alone."""
    assert _python_names('x = protocol_of("mqm")\n', "mqm") and _python_names("y = 'rubric/item.html'\n", "rubric")
    assert _python_names("from ..protocols.mqm import cli\n", "mqm")
    assert not _python_names('import mqm\nz = "the mqm library"\nw = humaneval.rubric\n', "mqm")
    assert _template_names("{% if board.mqm %}", "mqm") and _template_names("{% include 'campaigns/_lb_mqm_x' %}",
                                                                              "mqm")
    assert _template_names("url_for('mqm.results')", "mqm") and _template_names('class="mqm"', "mqm")
    assert not _template_names("<p>MQM error spans and reader highlights</p>", "reader")
