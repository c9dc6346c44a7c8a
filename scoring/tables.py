"""The findings paper's tables: automatic metrics (WMT23 Table 2 style) and the human ranking (Table 3 style).

LaTeX (``booktabs``: ``\\usepackage{booktabs}`` in the preamble) and CSV, from plain rows,
so that the platform's downloads and the release bundle produce the same tables:

* :func:`latex_automatic` / :func:`csv_automatic`, ``rows`` in the leaderboard's order::

      {"system": "lantern-nmt", "team": "Lantern Lab", "group": "primary-constrained",
       "constrained": True, "scores": {"bleu": 31.2, "comet": None},
       "rank_ranges": {"bleu": "1–2"}}                   # optional: the metric's significance rank range

  ``metrics``: ``[{"key": "bleu", "name": "BLEU", "higher_is_better": True}, ...]`` (the leaderboard's
  columns); ``group`` is one of :data:`GROUP_TITLES` (rows are set in that order, one block per group).
* :func:`latex_human` / :func:`csv_human`, ``rows`` best first as :func:`scoring.human_ranking.rank_systems`
  gives them (``rank_range``, ``system``, ``score``, ``cluster``, and ``team``/``kind``/``constrained``
  when known); a rule separates clusters.

A missing score is ``n/a`` in LaTeX and an empty cell in CSV.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

from . import csvsafe

GROUP_TITLES = {"baseline": "Baselines", "primary-constrained": "Primary systems, constrained",
                "primary-unconstrained": "Primary systems, unconstrained", "contrastive": "Contrastive systems"}
KIND_TITLES = {"baseline": "baseline", "primary-constrained": "primary", "primary-unconstrained": "primary ⋆",
               "contrastive": "contrastive", "reference": "human reference"}

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "–": "--", "—": "---", "⋆": r"$^\star$", "↑": r"$\uparrow$", "↓": r"$\downarrow$",
                  # pdflatex without a Unicode set-up stops at these (a caption's "zh→en", a column's Σ)
                  "→": r"$\rightarrow$", "←": r"$\leftarrow$", "Σ": r"$\Sigma$", "−": "$-$", "×": r"$\times$",
                  "·": r"$\cdot$", "±": r"$\pm$", "ρ": r"$\rho$", "τ": r"$\tau$", "²": r"\textsuperscript{2}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _number(value: float | None, decimals: int) -> str:
    return "n/a" if value is None else f"{value:.{decimals}f}"


def _csv_number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _check_metrics(rows: Sequence[Mapping], metrics: Sequence[Mapping]) -> None:
    if not metrics:
        raise ValueError("no metrics: give the table's columns")
    for i, row in enumerate(rows):
        for key in ("system", "scores"):
            if key not in row:
                raise ValueError(f"row {i + 1}: no {key!r}")
        if row.get("group", "primary-constrained") not in GROUP_TITLES:
            raise ValueError(f"row {i + 1} ({row['system']}): unknown group {row['group']!r}")


def _by_group(rows: Sequence[Mapping]) -> list[tuple[str, list[Mapping]]]:
    out = []
    for key, title in GROUP_TITLES.items():
        members = [r for r in rows if r.get("group", "primary-constrained") == key]
        if members:
            out.append((title, members))
    return out


def latex_automatic(rows: Sequence[Mapping], metrics: Sequence[Mapping], *, decimals: int = 2,
                    caption: str = "Automatic evaluation.", label: str = "tab:automatic") -> str:
    """The automatic metrics table: one block per group, each score with its rank range as a subscript."""
    _check_metrics(rows, metrics)
    names = " & ".join(latex_escape(m["name"] + ("↑" if m.get("higher_is_better", True) else "↓")) for m in metrics)
    n_cols = 2 + len(metrics)
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{ll" + "r" * len(metrics) + "}", r"\toprule",
             f"System & Team & {names} \\\\"]
    for title, members in _by_group(rows):
        lines += [r"\midrule", f"\\multicolumn{{{n_cols}}}{{l}}{{\\textit{{{latex_escape(title)}}}}} \\\\"]
        for r in members:
            cells = []
            for m in metrics:
                value = r["scores"].get(m["key"])
                cell = _number(value, decimals)
                rank = (r.get("rank_ranges") or {}).get(m["key"])
                if value is not None and rank:
                    cell += f"\\textsubscript{{{latex_escape(rank)}}}"
                cells.append(cell)
            system = latex_escape(r["system"]) + ("" if r.get("constrained", True) else r"$^\star$")
            lines.append(f"{system} & {latex_escape(r.get('team', ''))} & {' & '.join(cells)} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{latex_escape(caption)}}}",
              f"\\label{{{latex_escape(label)}}}", r"\end{table}", ""]
    return "\n".join(lines)


def csv_automatic(rows: Sequence[Mapping], metrics: Sequence[Mapping]) -> str:
    """The automatic table as CSV: numbers in the metric columns (empty when n/a), a rank-range column each."""
    _check_metrics(rows, metrics)
    out = io.StringIO()
    writer = csvsafe.writer(out)
    writer.writerow(["group", "team", "system", "constrained",
                     *[c for m in metrics for c in (m["name"], f"{m['name']} rank range")]])
    for _title, members in _by_group(rows):
        for r in members:
            cells = []
            for m in metrics:
                cells += [_csv_number(r["scores"].get(m["key"])), (r.get("rank_ranges") or {}).get(m["key"], "")]
            writer.writerow([r.get("group", "primary-constrained"), r.get("team", ""),
                             r["system"], "yes" if r.get("constrained", True) else "no", *cells])
    return out.getvalue()


def _check_human(rows: Sequence[Mapping]) -> None:
    for i, row in enumerate(rows):
        for key in ("system", "score", "rank_range", "cluster"):
            if key not in row:
                raise ValueError(f"human ranking row {i + 1}: no {key!r}")


def latex_human(rows: Sequence[Mapping], *, name: str = "MQM", higher_is_better: bool = True, decimals: int = 2,
                caption: str = "Human evaluation.", label: str = "tab:human") -> str:
    """The human ranking table: rank range, system, team, type, score; a rule between clusters."""
    _check_human(rows)
    arrow = "↑" if higher_is_better else "↓"
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{rlllr}", r"\toprule",
             f"Rank & System & Team & Type & {latex_escape(name + arrow)} \\\\", r"\midrule"]
    for i, r in enumerate(rows):
        if i and r["cluster"] != rows[i - 1]["cluster"]:
            lines.append(r"\midrule")
        system = latex_escape(r["system"])
        if r.get("kind") in ("baseline", "reference"):
            system = f"\\textit{{{system}}}"
        if not r.get("constrained", True):
            system += r"$^\star$"
        kind = latex_escape(KIND_TITLES.get(r.get("kind", ""), r.get("kind", "")))
        lines.append(f"{latex_escape(r['rank_range'])} & {system} & {latex_escape(r.get('team', ''))} & {kind} & "
                     f"{_number(r['score'], decimals)} \\\\")
    lines += [r"\bottomrule", r"\end{tabular}", f"\\caption{{{latex_escape(caption)}}}",
              f"\\label{{{latex_escape(label)}}}", r"\end{table}", ""]
    return "\n".join(lines)


def csv_human(rows: Sequence[Mapping], *, name: str = "MQM") -> str:
    """The human ranking as CSV, best first."""
    _check_human(rows)
    out = io.StringIO()
    writer = csvsafe.writer(out)
    writer.writerow(["rank", "rank range", "cluster", "system", "team", "type", name])
    for i, r in enumerate(rows, 1):
        writer.writerow([r.get("rank", i), r["rank_range"], r["cluster"], r["system"],
                         r.get("team", ""), r.get("kind", ""), _csv_number(r["score"])])
    return out.getvalue()
