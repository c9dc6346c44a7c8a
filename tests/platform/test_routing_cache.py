"""The tests' cache of werkzeug's routing (tests/support/routing_cache.py) builds and matches the same URLs."""

from __future__ import annotations

from urllib.parse import unquote

from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from tests.support import routing_cache


def _every_url(app) -> dict[str, tuple]:
    """Each rule's URL with and without unknown arguments (an id for a number, text with a space otherwise)."""
    built = {}
    for rule in app.url_map.iter_rules():
        values = {name: 7 if isinstance(conv, IntegerConverter) else "x y/é" for name, conv in rule._converters.items()}
        built[f"{rule.endpoint} {rule.rule}"] = (rule._build(**values), rule._build_unknown(**values, extra="a&b"))
    return built


def _compiled(app) -> dict[str, tuple]:
    """What ``Rule.compile`` left on each rule: the matcher's parts, the trace, the converters, the arguments."""
    return {f"{r.endpoint} {r.rule}": (r._parts, r._trace, sorted(r.arguments),
                                       {k: (type(c), c.regex, c.part_isolating, c.weight, c.map is app.url_map)
                                        for k, c in r._converters.items()})
            for r in app.url_map.iter_rules()}


def _matched(app, urls) -> dict[str, object]:
    adapter = app.url_map.bind("localhost")
    found = {}
    for url in urls:
        for method in ("GET", "POST"):
            try:
                found[f"{method} {url}"] = ("match", *adapter.match(url, method=method))
            except HTTPException as exc:   # 404, 405, and the redirect to a slash
                found[f"{method} {url}"] = (type(exc).__name__, getattr(exc, "new_url", None))
    return found


def _both_ways(make_app, measure):
    routing_cache.uninstall()
    try:
        plain = measure(make_app())
    finally:
        routing_cache.install()
    make_app()   # fills the cache
    return plain, measure(make_app())


def test_cached_builders_build_the_urls_werkzeug_builds(make_app):
    plain, cached = _both_ways(make_app, _every_url)
    assert len(plain) > 100
    assert cached == plain


def test_cached_rules_compile_and_match_as_werkzeug_does(make_app):
    plain, cached = _both_ways(make_app, _compiled)
    assert len(plain) > 100 and cached == plain
    urls = {unquote(path.split("?")[0]) for built in _every_url(make_app()).values() for _domain, path in built}
    urls |= {u.rstrip("/") for u in urls} | {u + "/" for u in urls} | {"/", "/nope", "/leaderboard/x", "/api/v1/"}
    plain, cached = _both_ways(make_app, lambda app: _matched(app, sorted(urls)))
    assert len(plain) > 400 and cached == plain
    seen = {v[0] for v in plain.values()}
    assert {"match", "NotFound", "MethodNotAllowed"} <= seen, seen


def test_an_app_built_after_another_reuses_its_builders(make_app):
    first, second = make_app(), make_app()
    rule = next(r for r in first.url_map.iter_rules() if r.endpoint == "auth.login")
    again = next(r for r in second.url_map.iter_rules() if r.endpoint == "auth.login")
    assert rule._build.__func__ is again._build.__func__
    assert rule is not again
    assert rule._parts == again._parts and rule._parts is not again._parts
    with_id = next(r for r in second.url_map.iter_rules() if r._converters)
    assert all(c.map is second.url_map for c in with_id._converters.values())
