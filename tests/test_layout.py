"""Tripwires for the project layout (see DESIGN.md, "The platform name")."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_stdlib_platform_module_is_not_shadowed():
    import platform

    assert platform.__file__.endswith("platform.py")
    assert callable(platform.python_version)
    assert not (ROOT / "platform" / "__init__.py").exists()


def test_platform_module_not_shadowed_from_project_root():
    # `python -c` from the project root puts '' on sys.path, as gunicorn and pytest do.
    out = subprocess.run([sys.executable, "-c", "import platform; print(platform.__file__)"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("platform.py")


def test_libraries_never_import_the_app_or_web_stack():
    for pkg in ("scoring", "mqm", "humaneval"):
        for path in (ROOT / pkg).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for banned in ("import flask", "from flask", "import sqlalchemy", "from sqlalchemy",
                           "import enface", "from enface"):
                assert banned not in text.lower(), f"{path} imports {banned.split()[-1]}"


def test_ruff_flags_stdlib_shadowing():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"A"' in text  # rule family A includes A005 (module shadows a standard-library module)


def test_the_test_tree_mirrors_the_source_without_sys_path_tricks():
    """tests/ is a package; the library tests are its packages (tests.mqm.test_cli, tests.scoring.test_cli),
    helpers are imported from tests.support. tests/platform is never a regular package: one named
    ``platform`` would shadow the standard library wherever tests/ is on sys.path (``python -m pytest``
    run from tests/). Its tests and tests/protocols' are imported by file name, so those names are unique."""
    tests = ROOT / "tests"
    for pkg in (tests, tests / "support", tests / "mqm", tests / "scoring"):
        assert (pkg / "__init__.py").is_file(), pkg
    assert not list((tests / "platform").rglob("__init__.py"))
    by_name: dict[str, list[Path]] = {}
    for path in tests.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        # (the one exception: a plug-in's wheel, installed into a folder of its own, is found only there)
        if path.name != "test_layout.py" and path != tests / "support" / "distributions.py":
            assert "sys.path" not in text, f"{path}: import helpers from tests.support instead of changing sys.path"
        if not (path.parent / "__init__.py").exists() and path.name != "conftest.py":
            by_name.setdefault(path.name, []).append(path)
    assert not {name: paths for name, paths in by_name.items() if len(paths) > 1}
