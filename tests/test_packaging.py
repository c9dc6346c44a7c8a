"""The wheel carries what the package reads at run time, found through importlib.resources.

The full check (build, twine check, install outside the checkout, demo, crawl every page) is
``.ci/wheel-smoke``, run by ``.ci/run``; these are its fast tripwires.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import tomllib
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "platform" / "enface"
LINKS = {"templates": ROOT / "templates", "migrations": ROOT / "migrations", "demo": ROOT / "data" / "demo"}


def _tracked(*paths: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", *paths], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_package_links_to_the_top_level_folders():
    for name, target in LINKS.items():
        link = PACKAGE / name
        assert link.is_symlink(), f"platform/enface/{name} must link to {target.relative_to(ROOT)}"
        assert link.resolve() == target.resolve()


def test_resources_are_found_in_the_package():
    from enface import resources

    for name, found in (("templates", resources.templates_dir()), ("migrations", resources.migrations_dir()),
                        ("demo", resources.demo_dir())):
        assert found == PACKAGE / name
        assert found.is_dir()
    assert (resources.templates_dir() / "base.html").is_file()
    assert (resources.migrations_dir() / "env.py").is_file()
    assert (resources.demo_dir() / "testset").is_dir()


def test_a_missing_resource_is_a_sentence():
    import pytest
    from enface.resources import package_dir

    with pytest.raises(RuntimeError, match="missing from the installed package"):
        package_dir("no-such-folder")


def test_nothing_reaches_the_checkout_through_file_paths():
    """Run-time files come from the package (enface.resources), never from parents of a module's path."""
    for path in _tracked("platform/enface", "scoring", "mqm", "humaneval"):
        if not path.endswith(".py"):
            continue
        text = (ROOT / path).read_text(encoding="utf-8")
        assert not re.search(r"__file__\)[^\n]*\.parents\[", text), f"{path} finds files through the checkout"


def test_package_data_rules_cover_every_tracked_file():
    """What pyproject's package-data globs select (as setuptools does) includes every file git tracks in the
    packages, the linked folders included, so that a new template, migration or protocol file ships."""
    rules = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped: set[Path] = set()
    for package, patterns in rules.items():
        base = PACKAGE if package == "enface" else ROOT / package
        for pattern in patterns:
            shipped |= {p.relative_to(ROOT) for p in base.glob(pattern) if p.is_file()}
    missing = []
    for path in _tracked("platform/enface", "scoring", "mqm", "humaneval", "templates", "migrations", "data/demo"):
        inside = Path(path)
        for name, target in LINKS.items():
            if inside.is_relative_to(target.relative_to(ROOT)):
                inside = PACKAGE.relative_to(ROOT) / name / inside.relative_to(target.relative_to(ROOT))
        if inside.suffix in (".py", ".c") and not inside.is_relative_to("platform/enface/migrations"):
            continue   # modules ship as packages; the TER source is compiled
        if (ROOT / path).is_symlink() or inside.name == ".gitignore":
            continue
        if inside not in shipped:
            missing.append(path)
    assert not missing, f"pyproject's package-data misses {missing}"


def test_version_comes_from_the_installed_metadata():
    from importlib.metadata import version

    from enface.commands import main

    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"enface {version('enface')}"


def test_campaign_create_help_names_every_protocol():
    from enface.campaigns.discovery import load_protocols
    from enface.commands import main

    result = CliRunner().invoke(main, ["campaign", "create", "--help"])
    assert result.exit_code == 0
    for key, protocol in load_protocols().items():
        assert key in result.output and protocol.title in result.output


def test_the_built_in_protocols_are_entry_points():
    """pyproject.toml declares each protocol folder as an entry point of the group enface.protocols."""
    from importlib.metadata import entry_points

    declared = {ep.name: ep.value for ep in entry_points(group="enface.protocols")}
    folders = {p.name for p in (ROOT / "platform" / "enface" / "protocols").iterdir()
               if (p / "protocol.py").is_file()}
    assert folders <= set(declared), "a protocol folder without an entry point (run make install?)"
    for key in folders:
        assert declared[key] == f"enface.protocols.{key}.protocol:PROTOCOL"
