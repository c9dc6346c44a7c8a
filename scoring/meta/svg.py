"""Scatter plots as SVG text (pure Python: no plotting library at request time).

The axes show the raw scores (not oriented), each with its direction in the
axis title; a point is one system, red when its rank differs between the metric
and the humans. Every name is XML-escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 360, 260
LEFT, RIGHT, TOP, BOTTOM = 58, 12, 12, 44


def _ticks(low: float, high: float, n: int = 4) -> list[float]:
    if high == low:
        return [low]
    return [low + (high - low) * k / n for k in range(n + 1)]


def _fmt(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def scatter_svg(points: Sequence[dict], *, x_label: str, y_label: str, flipped: Sequence[str] = (),
                title: str = "") -> str:
    """An SVG scatter plot of ``points`` (``{"system", "human", "metric"}``): human on x, metric on y."""
    xs = [float(p["human"]) for p in points]
    ys = [float(p["metric"]) for p in points]
    if not points:
        return ""

    def span(vals: list[float]) -> tuple[float, float]:
        low, high = min(vals), max(vals)
        pad = (high - low) * 0.08 or (abs(high) * 0.05 or 1.0)
        return low - pad, high + pad

    (x0, x1), (y0, y1) = span(xs), span(ys)
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0) * pw

    def py(y: float) -> float:
        return TOP + ph - (y - y0) / (y1 - y0) * ph

    flip = set(flipped)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
             f'height="{HEIGHT}" role="img" aria-label="{escape(title or f"{y_label} against {x_label}")}" '
             f'class="meta-scatter">',
             f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fff" stroke="#999"/>']
    for t in _ticks(x0, x1):
        parts.append(f'<line x1="{px(t):.1f}" y1="{TOP + ph}" x2="{px(t):.1f}" y2="{TOP + ph + 4}" stroke="#999"/>'
                     f'<text x="{px(t):.1f}" y="{TOP + ph + 15}" font-size="10" text-anchor="middle">'
                     f'{escape(_fmt(t))}</text>')
    for t in _ticks(y0, y1):
        parts.append(f'<line x1="{LEFT - 4}" y1="{py(t):.1f}" x2="{LEFT}" y2="{py(t):.1f}" stroke="#999"/>'
                     f'<text x="{LEFT - 6}" y="{py(t) + 3:.1f}" font-size="10" text-anchor="end">'
                     f'{escape(_fmt(t))}</text>')
    parts.append(f'<text x="{LEFT + pw / 2:.1f}" y="{HEIGHT - 6}" font-size="11" text-anchor="middle">'
                 f'{escape(x_label)}</text>')
    parts.append(f'<text transform="translate(12 {TOP + ph / 2:.1f}) rotate(-90)" font-size="11" '
                 f'text-anchor="middle">{escape(y_label)}</text>')
    for p, x, y in zip(points, xs, ys, strict=True):
        name = str(p["system"])
        colour = "#c0392b" if name in flip else "#2c6fbb"
        # a label right of its point, or left of it in the right half (so that it stays inside the plot)
        right = px(x) > LEFT + pw * 0.55
        label_x, anchor = (px(x) - 6, "end") if right else (px(x) + 6, "start")
        parts.append(f'<g class="point{" flip" if name in flip else ""}"><title>{escape(name)}: human {x:.4g}, '
                     f'metric {y:.4g}</title><circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="{colour}"/>'
                     f'<text x="{label_x:.1f}" y="{py(y) - 5:.1f}" font-size="9" fill="#333" '
                     f'text-anchor="{anchor}">{escape(name)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
