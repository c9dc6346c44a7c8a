"""Visit every page a running Enface links to, as each demo account, and fail on a server error.

    python -P .ci/crawl_pages.py URL DATA_DIR

Run by ``.ci/wheel-smoke`` with the interpreter of a virtual environment that has the wheel installed
(``-P``: the checkout is never on ``sys.path``). It logs in as every account in DATA_DIR's
``demo-logins.json`` (and browses anonymously), follows every same-site link, stylesheet, script and
image breadth first (at most a few URLs per route, so that per-document pages do not dominate), and
exits 1 when a page answers 5xx, a linked asset is missing, or a blueprint of the app was never reached.
"""

from __future__ import annotations

import collections
import json
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import requests

PER_ROUTE = 4          # distinct URLs visited per route (endpoint) and account
# an item page is each protocol's own page under one route: every item an annotator is given, so that each
# protocol's page (and its assets) is reached however many items the campaigns before it hold
PER_ROUTE_OF = {"annotate.item": 150}
MAX_PER_ACCOUNT = 400  # pages per account, a guard against link loops
SKIP = ("/auth/logout",)
# The short addresses (/login, /leaderboards) are typed by people, never linked: seeded like the front page.
SEEDS = ("/", "/healthz", "/leaderboard/", "/browse/", "/campaigns/", "/annotate/", "/admin/", "/team/", "/auth/tokens",
         "/api/v1/testsets", "/login", "/leaderboards")


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.pages: list[str] = []
        self.assets: list[str] = []
        self.csrf = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.pages.append(a["href"])
        elif tag == "link" and a.get("href"):
            self.assets.append(a["href"])
        elif tag in ("script", "img") and a.get("src"):
            self.assets.append(a["src"])
        elif tag == "input" and a.get("name") == "csrf_token":
            self.csrf = a.get("value") or ""


def parse(html: str) -> Links:
    links = Links()
    links.feed(html)
    return links


def login(session: requests.Session, base: str, email: str, password: str) -> None:
    form = parse(session.get(base + "/auth/login", timeout=30).text)
    resp = session.post(base + "/auth/login", data={"email": email, "password": password, "csrf_token": form.csrf},
                        timeout=30, allow_redirects=False)
    if resp.status_code != 302:
        raise SystemExit(f"crawl: could not log in as {email}: HTTP {resp.status_code}")


def crawl(base: str, session: requests.Session, who: str, adapter, failures: list[str]) -> set[str]:
    """Breadth-first over the site; returns the endpoints reached."""
    host = urlsplit(base).netloc
    reached: set[str] = set()
    per_route: collections.Counter[str] = collections.Counter()
    seen: set[str] = set()
    queue = collections.deque((base + seed, "page", "(seed)") for seed in SEEDS)
    visited = 0
    while queue and visited < MAX_PER_ACCOUNT:
        url, kind, referrer = queue.popleft()
        parts = urlsplit(url)
        if parts.netloc != host or parts.path in SKIP or url in seen:
            continue
        seen.add(url)
        try:
            endpoint = adapter.match(parts.path, method="GET")[0]
        except Exception:
            endpoint = "(no route)"
        if kind == "page":
            if per_route[endpoint] >= PER_ROUTE_OF.get(endpoint, PER_ROUTE):
                continue
            per_route[endpoint] += 1
        visited += 1
        resp = session.get(url, timeout=60, allow_redirects=True)
        if resp.status_code >= 500:
            failures.append(f"{who}: {url} answered {resp.status_code} (linked from {referrer})")
        elif kind == "asset" and resp.status_code != 200:
            failures.append(f"{who}: asset {url} answered {resp.status_code} (linked from {referrer})")
        if resp.status_code < 400:
            reached.add(endpoint)
        if kind == "page" and resp.headers.get("Content-Type", "").startswith("text/html"):
            links = parse(resp.text)
            final = resp.url
            for href in links.pages:
                queue.append((urljoin(final, href).split("#")[0], "page", url))
            for src in links.assets:
                queue.append((urljoin(final, src).split("#")[0], "asset", url))
    print(f"crawl: {who}: {visited} URLs, {len(reached)} routes")
    return reached


def main(base: str, data_dir: Path) -> int:
    import enface
    from enface import create_app

    print(f"crawl: the app under test is {Path(enface.__file__).parent}")
    app = create_app()
    adapter = app.url_map.bind("localhost")
    get_routes = {rule.endpoint for rule in app.url_map.iter_rules() if "GET" in (rule.methods or ())}
    logins = json.loads((data_dir / "demo-logins.json").read_text())
    failures: list[str] = []
    reached: set[str] = set()
    reached |= crawl(base, requests.Session(), "anonymous", adapter, failures)
    for email, password in logins.items():
        session = requests.Session()
        login(session, base, email, password)
        reached |= crawl(base, session, email, adapter, failures)
    blueprints = {e.split(".")[0] for e in get_routes if "." in e}
    unreached_blueprints = sorted(b for b in blueprints if not any(e.startswith(b + ".") for e in reached))
    print(f"crawl: {len(reached & get_routes)} of {len(get_routes)} GET routes reached; never reached: "
          + ", ".join(sorted(get_routes - reached)))
    for line in failures:
        print("crawl: FAIL " + line)
    if unreached_blueprints:
        print("crawl: FAIL no page of these blueprints was reached: " + ", ".join(unreached_blueprints))
    return 1 if failures or unreached_blueprints else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    raise SystemExit(main(sys.argv[1].rstrip("/"), Path(sys.argv[2])))
