"""The findings paper's tables from a leaderboard: automatic metrics (WMT23's Table 2) and the
human ranking (Table 3), as LaTeX (booktabs) and CSV.

Written here because the library's ``scoring.tables`` was not available on this branch; the
input is the leaderboard dict the page shows (:func:`enface.services.leaderboard.visible_leaderboard`).
"""

from __future__ import annotations

import csv
import io

from ..services.leaderboard import grouped

_LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                   "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in str(text))


def _num(value, places: int = 2) -> str:
    return "" if value is None else f"{value:.{places}f}"


def automatic_rows(board: dict) -> list[dict]:
    """One row per system in the page's order: group, team, system, constrained, then each metric."""
    out = []
    for g in grouped(board):
        for r in g["rows"]:
            out.append({"group": g["title"], "team": r["team"], "system": r["system"],
                        "constrained": r["constrained"],
                        **{c["key"]: r["scores"][c["key"]]["score"] for c in board["columns"]}})
    return out


def automatic_csv(board: dict) -> str:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["group", "team", "system", "constrained", *[c["name"] for c in board["columns"]]])
    for r in automatic_rows(board):
        w.writerow([r["group"], r["team"], r["system"], "yes" if r["constrained"] else "no",
                    *[_num(r[c["key"]], 4) for c in board["columns"]]])
    return out.getvalue()


def automatic_latex(board: dict) -> str:
    cols = board["columns"]
    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             r"\begin{tabular}{ll" + "r" * len(cols) + "}", r"\toprule",
             "Team & System & " + " & ".join(
                 latex_escape(c["name"]) + (r"$\uparrow$" if c["higher_is_better"] else r"$\downarrow$")
                 for c in cols) + r" \\", r"\midrule"]
    for g in grouped(board):
        if not g["rows"]:
            continue
        lines.append(r"\multicolumn{" + str(2 + len(cols)) + "}{l}{\\textit{" + latex_escape(g["title"]) + r"}} \\")
        for r in g["rows"]:
            cells = []
            for c in cols:
                s = r["scores"][c["key"]]
                cell = _num(s["score"]) or "n/a"
                cells.append(r"\textbf{" + cell + "}" if s.get("best") else cell)
            star = "" if r["constrained"] else r"$^\star$"
            lines.append(f"{latex_escape(r['team'])} & {latex_escape(r['system'])}{star} & " + " & ".join(cells)
                         + r" \\")
        lines.append(r"\midrule")
    if lines[-1] == r"\midrule":
        lines[-1] = r"\bottomrule"
    else:
        lines.append(r"\bottomrule")
    caption = (f"Automatic evaluation of {latex_escape(board['testset'])} ({board['src_lang']}"
               f"$\\rightarrow${board['tgt_lang']}). Bold: best in its group; $^\\star$: unconstrained.")
    lines += [r"\end{tabular}", r"\caption{" + caption + "}", r"\label{tab:automatic}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def human_rows(board: dict) -> list[dict]:
    """The released human ranking, group by group: rank, rank range, cluster, system, team, score."""
    human = board.get("mqm") or {}
    out = []
    for g in human.get("groups", []):
        for r in g["rows"]:
            out.append({"group": g["title"], "rank": r["rank"], "rank_range": r["rank_range"],
                        "cluster": r["cluster"], "system": r["system"], "team": r.get("team", ""),
                        "score": r["score"]})
    return out


def human_csv(board: dict) -> str:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["group", "rank", "rank_range", "cluster", "team", "system", "mqm"])
    for r in human_rows(board):
        w.writerow([r["group"], r["rank"], r["rank_range"], r["cluster"], r["team"], r["system"],
                    _num(r["score"], 4)])
    return out.getvalue()


def human_latex(board: dict) -> str:
    """Clusters separated by a rule, as in the WMT findings."""
    human = board.get("mqm") or {}
    arrow = r"$\uparrow$" if human.get("higher_is_better", True) else r"$\downarrow$"
    lines = [r"\begin{table}[t]", r"\centering", r"\small", r"\begin{tabular}{rlllr}", r"\toprule",
             r"Rank & Range & Team & System & MQM" + arrow + r" \\", r"\midrule"]
    for g in human.get("groups", []):
        if not g["rows"]:
            continue
        lines.append(r"\multicolumn{5}{l}{\textit{" + latex_escape(g["title"]) + r"}} \\")
        previous = None
        for r in g["rows"]:
            if previous is not None and r["cluster"] != previous:
                lines.append(r"\midrule")
            previous = r["cluster"]
            lines.append(f"{r['rank']} & {latex_escape(r['rank_range'])} & {latex_escape(r.get('team', ''))} & "
                         f"{latex_escape(r['system'])} & {_num(r['score'])}" + r" \\")
        lines.append(r"\midrule")
    if lines[-1] == r"\midrule":
        lines[-1] = r"\bottomrule"
    else:
        lines.append(r"\bottomrule")
    name = latex_escape((human.get("campaign") or {}).get("name", ""))
    lines += [r"\end{tabular}", r"\caption{Human evaluation (MQM" + (f", {name}" if name else "") +
              r"): systems in one cluster are not significantly different; rules separate clusters.}",
              r"\label{tab:human}", r"\end{table}"]
    return "\n".join(lines) + "\n"
