"""Figure 4 of the WMT 2023 findings as server-rendered SVG geometry: errors per category and severity."""

from __future__ import annotations

import mqm

from .scheme import scheme_for_annotators

LEGEND_STEP = 90       # px per severity in the legend
SEVERITY_COLORS = {0: "#6b7280", 1: "#f2b705", 2: "#c2410c", 3: "#7b1fa2"}   # as static/campaigns.css --r0..--r3


def error_chart(results: dict, scheme: mqm.Scheme) -> dict:
    """Geometry for Figure 4: per system, bars per top-level category stacked by severity."""
    errors = results.get("errors") or {}
    info = scheme_for_annotators(scheme.name)
    sev_order = sorted(info["severities"], key=lambda s: s["rank"])
    cats = [c["name"] for c in info["categories"]]
    for counts in errors.values():
        for c in counts:
            if c not in cats:
                cats.append(c)
    short = {c: (c[:3] + ".") if len(c) > 4 else c for c in cats}
    systems = sorted(errors, key=lambda s: (results["systems"].get(s, {}).get("group", ""), s))
    top = max([sum(v.values()) for counts in errors.values() for v in counts.values()] + [1])
    step = max(1, -(-top // 5))
    axis_max = step * (-(-top // step))
    if axis_max - top < step / 2:   # room above the tallest bar for its count
        axis_max += step
    bar_w, gap, left, height, panel_gap = 16, 6, 34, 150, 24
    panel_w = len(cats) * (bar_w + gap) + gap
    per_row = max(1, min(len(systems), 4))
    panels = []
    for n, system in enumerate(systems):
        col, row = n % per_row, n // per_row
        x0 = left + col * (panel_w + panel_gap + left)
        y0 = 28 + row * (height + 56)
        bars = []
        for k, cat in enumerate(cats):
            counts = errors[system].get(cat, {})
            y = y0 + height
            segs = []
            for s in sev_order:
                c = counts.get(s["name"], 0)
                if not c:
                    continue
                h = height * c / axis_max
                y -= h
                segs.append({"y": round(y, 1), "h": round(h, 1), "color": SEVERITY_COLORS[s["rank"]],
                             "title": f"{system}: {cat}, {s['name']}: {c}"})
            bars.append({"x": x0 + gap + k * (bar_w + gap), "w": bar_w, "segs": segs, "label": short[cat],
                         "total": sum(counts.values())})
        ticks = [{"y": round(y0 + height - height * v / axis_max, 1), "v": v} for v in range(0, axis_max + 1, step)]
        panels.append({"system": system, "x": x0, "y": y0, "w": panel_w, "h": height, "bars": bars, "ticks": ticks})
    rows = -(-len(systems) // per_row) if systems else 0
    legend = [{"name": s["name"], "color": SEVERITY_COLORS[s["rank"]], "x": k * LEGEND_STEP}
              for k, s in enumerate(sev_order)]
    # as wide as the panels or the legend: one system's panel is narrower than four severities' names
    width = max(left + per_row * (panel_w + panel_gap + left), left + len(legend) * LEGEND_STEP)
    return {"panels": panels, "width": width, "height": 28 + rows * (height + 56) + 8, "legend": legend,
            "categories": [{"short": short[c], "name": c} for c in cats]}
