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
