"""The plain-text report that the meta-evaluation command prints (without its --json option)."""

from __future__ import annotations

from typing import Any


def _fmt(stat: dict[str, Any] | None) -> str:
    if not stat or stat.get("value") is None:
        return "n/a"
    low, high = stat.get("ci", [None, None])
    ci = f" [{low:+.3f}, {high:+.3f}]" if low is not None else ""
    return f"{stat['value']:+.3f}{ci}"


def _direction(hib: bool) -> str:
    return "higher" if hib else "lower"


def _system_block(r: dict[str, Any]) -> list[str]:
    lines = [f"  {r['name']} ({_direction(r['metric_higher_is_better'])} is better), {r['n_systems']} systems"]
    flips = r["rank_flips"]["systems"]
    if flips:
        lines.append("    rank flips (metric rank - human rank):")
        lines += [f"      {f['system']}: human {f['human_rank']:g}, metric {f['metric_rank']:g} ({f['difference']:+g})"
                  for f in flips]
    else:
        lines.append("    rank flips: none (the metric ranks the systems as the humans do)")
    sp, pa = r["spearman"], r["pairwise_accuracy"]
    ve = f", variance explained {sp['variance_explained']:.1f}%" if sp["variance_explained"] is not None else ""
    return lines + [f"    Pearson r           {_fmt(r['pearson'])}",
                    f"    Spearman rho        {_fmt(sp)}{ve}",
                    f"    Kendall {r['kendall']['variant']:<11} {_fmt(r['kendall'])}",
                    f"    pairwise accuracy   {_fmt(pa)} ({pa['n_pairs']} pairs)",
                    f"      untied variant    {_fmt(r['pairwise_accuracy_untied'])} "
                    f"({r['pairwise_accuracy_untied']['n_pairs']} pairs)",
                    *_soft(r.get("soft_pairwise_accuracy"))]


def _soft(spa: dict | None) -> list[str]:
    if not spa or spa.get("value") is None:
        return []
    return [f"    soft pairwise acc.  {spa['value']:.4f} ({spa['n_items']} segments)"]


def _source_block(src: dict[str, Any], variant: str) -> list[str]:
    lines = ["", f"== {src['label']} ({_direction(src['higher_is_better'])} is better)"]
    um = src["unmatched"]
    if um["human_only"]:
        lines.append(f"  systems with human scores but no metric score: {', '.join(um['human_only'])}")
    if um["metrics_only"]:
        lines.append(f"  systems with metric scores but no human score: {', '.join(um['metrics_only'])}")
    if src["metrics"]:
        lines.append("system level (95% bootstrap intervals over systems):")
        for r in src["metrics"].values():
            lines += _system_block(r)
    for key, why in src["skipped"].items():
        lines.append(f"  {key}: system level skipped: {why}")
    items = src["item_level"]
    if items["available"]:
        lines.append(f"item level ({items['unit']}s, pooled over systems and items):")
        for r in items["metrics"].values():
            if r["available"]:
                sp = r["spearman"]
                ve = f" ({sp['variance_explained']:.1f}%)" if sp["variance_explained"] is not None else ""
                lines.append(f"  {r['name']}: n={r['n']}  Pearson {_fmt(r['pearson'])}  Spearman {_fmt(sp)}{ve}  "
                             f"Kendall {_fmt(r['kendall'])}")
            else:
                lines.append(f"  {r['name']}: n/a: {r['reason']}")
    elif items.get("reason") and src["kind"] != "reader":
        lines.append(f"item level: {items['reason']}")
    chunks = src["chunk_level"]
    if chunks["metrics"]:
        lines.append(f"chunk level (Kendall {variant} between the metric's version-1 minus version-2 difference and "
                     "the readers' choices, +1 = version 1):")
        for r in chunks["metrics"].values():
            if r["available"]:
                tau = "n/a" if r["kendall"] is None else f"{r['kendall']:+.3f}"
                lines.append(f"  {r['name']}: {r['n']} judgements, tau {tau}, prefers the readers' choice in "
                             f"{r['agreements']}/{r['n']} ({r['agreement']:.1%}); metric prefers version 1 in "
                             f"{r['metric_prefers']['1']} chunks, version 2 in {r['metric_prefers']['2']}")
            else:
                lines.append(f"  {r['name']}: n/a: {r['reason']}")
    return lines


def format_text(result: dict[str, Any]) -> str:
    lines = [f"Meta-evaluation: scores oriented so that higher = better on both sides; Kendall "
             f"{result['kendall_variant']}; pairwise accuracy: {result['pairwise_accuracy_ties']}."]
    for src in result["sources"]:
        lines += _source_block(src, result["kendall_variant"])
    return "\n".join(lines)
