"""Rubric results as plain text, Table 7 style: a row per dimension × criterion, a column per system."""

from __future__ import annotations

from typing import Any

from .agreement import AGREEMENT_CRITERIA
from .model import CRITERION_KEYS, Rubric

LABELS = {"sp": "S", "g_1": "G1", "g_2": "G2", "sigma": "Σ"}
FIGURES = (("simple_agreement", "agreement"), ("kappa", "kappa"), ("kappa_linear", "linear κ"),
           ("kappa_quadratic", "quadratic κ"), ("icc", "ICC(3,1)"))


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def results_table(results: dict[str, Any], rubric: Rubric) -> str:
    systems = results["systems"]
    names = [s["system"] for s in systems]
    width = max([len("Average Σ")] + [len(d.name) + 5 for d in rubric.dimensions])
    col = max([6] + [len(n) for n in names])
    lines = [" " * width + "  " + "  ".join(n.rjust(col) for n in names)]
    for dim in rubric.dimensions:
        if not any(dim.key in s["dimensions"] for s in systems):
            continue
        for key in (*CRITERION_KEYS, "sigma"):
            cells = [_num(s["dimensions"].get(dim.key, {}).get(key)) for s in systems]
            lines.append(f"{dim.name} {LABELS[key]}".ljust(width) + "  " + "  ".join(c.rjust(col) for c in cells))
    lines.append("Average Σ".ljust(width) + "  " + "  ".join(_num(s["overall"]).rjust(col) for s in systems))
    agreement = results.get("agreement")
    if agreement:
        lines += ["", "Agreement".ljust(10) + "".join(label.rjust(13) for _, label in FIGURES) + "  items"]
        for key in AGREEMENT_CRITERIA:
            row = agreement[key]
            lines.append(LABELS[key].ljust(10) + "".join(
                ("—" if row[f] is None else f"{row[f]:.3f}").rjust(13) for f, _ in FIGURES) + f"  {row['items']:>5}")
    return "\n".join(lines)
