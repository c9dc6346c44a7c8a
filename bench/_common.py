"""Helpers the benchmark scripts share (they run as ``python bench/NAME.py``, so this imports as ``_common``)."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the metrics ``sacrebleu -m bleu chrf ter -b`` prints, in its order
CLI_METRICS = ("bleu", "chrf", "ter")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli_numbers(out: str) -> list[float]:
    """The scores ``sacrebleu -b`` prints (BLEU, chrF, TER)."""
    return [float(x.strip().strip(",")) for x in out.strip().strip("[]").split()]


def identical(scores: Mapping[str, float], cli: Sequence[float]) -> bool:
    """Whether our BLEU, chrF and TER equal the command line's to 16 decimals (``-w 16``)."""
    return len(cli) == len(CLI_METRICS) and all(
        f"{scores[m]:.16f}" == f"{c:.16f}" for m, c in zip(CLI_METRICS, cli))


def timed(cmd: list[str]) -> tuple[float, str]:
    """(wall seconds, standard output) of a command run in the project root; stops the bench if it fails."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return elapsed, proc.stdout
