"""Reading a leaderboard page's HTML in tests: the systems in each group's order, the highlighted ones."""

from __future__ import annotations

import re


def leaderboard_page(client, testset_id: int) -> tuple[str, dict[str, list[str]], list[str]]:
    """(html, {group: systems in the page's order}, the highlighted (top) systems) of ``/leaderboard/<id>``."""
    html = client.get(f"/leaderboard/{testset_id}").get_data(as_text=True)
    bodies = dict(re.findall(r'<tbody class="group group-([a-z-]+)">(.*?)</tbody>', html, re.S))
    order = {g: re.findall(r'<td class="system"><a href="[^"]*">([^<]+)</a>', body) for g, body in bodies.items()}
    top = re.findall(r'<tr class="entry top">\s*<td class="team">[^<]*</td>\s*<td class="system"><a href="[^"]*">'
                     r'([^<]+)</a>', html)
    return html, order, top
