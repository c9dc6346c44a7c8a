"""Helpers the benchmark scripts share (they run as ``python bench/NAME.py``, so this imports as ``_common``)."""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence

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
