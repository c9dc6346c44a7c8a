"""A distribution a test writes, builds as a wheel and installs into a folder of its own (never into
the venv), then puts on the import path for as long as the test needs it: how a third-party plug-in
reaches Enface through its entry points."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def build_and_install(src: Path, wheel_glob: str, tmp: Path) -> Path:
    """Builds ``src`` (a folder with a pyproject.toml) with pip, installs the wheel into ``tmp/site``."""
    wheels, target = tmp / "wheels", tmp / "site"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(src)],
                   check=True, timeout=300)
    wheel = next(wheels.glob(wheel_glob))
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
                   check=True, timeout=300)
    return target


@contextmanager
def importable(target: Path, package: str) -> Iterator[Path]:
    """``target`` on the import path (its metadata, entry points included, found by importlib.metadata);
    afterwards the package's modules are forgotten again."""
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    try:
        yield target
    finally:
        sys.path.remove(str(target))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()
