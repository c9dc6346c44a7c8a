"""The tests' cache of werkzeug's URL builders (tests/support/routing_cache.py) builds the same URLs."""

from __future__ import annotations

from werkzeug.routing import IntegerConverter

from tests.support import routing_cache


def _every_url(app) -> dict[str, tuple]:
    """Each rule's URL with and without unknown arguments (an id for a number, text with a space otherwise)."""
    built = {}
    for rule in app.url_map.iter_rules():
        values = {name: 7 if isinstance(conv, IntegerConverter) else "x y/é" for name, conv in rule._converters.items()}
        built[f"{rule.endpoint} {rule.rule}"] = (rule._build(**values), rule._build_unknown(**values, extra="a&b"))
    return built


def test_cached_builders_build_the_urls_werkzeug_builds(make_app):
    routing_cache.uninstall()
    try:
        plain = _every_url(make_app())
    finally:
        routing_cache.install()
    make_app()   # fills the cache
    cached = _every_url(make_app())
    assert len(plain) > 100
    assert cached == plain


def test_an_app_built_after_another_reuses_its_builders(make_app):
    first, second = make_app(), make_app()
    rule = next(r for r in first.url_map.iter_rules() if r.endpoint == "auth.login")
    again = next(r for r in second.url_map.iter_rules() if r.endpoint == "auth.login")
    assert rule._build.__func__ is again._build.__func__
    assert rule is not again
