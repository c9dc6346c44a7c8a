"""The tests build some 3,000 apps, and werkzeug spends most of ``create_app`` generating and compiling
the same URL-builder functions for the same 136 rules each time (``Rule._compile_builder``: an AST per
rule, ``compile()``, ``exec``; 45-85 ms an app). The builder it makes depends only on the rule's text,
its parsed parts and its defaults: it looks the converters up on the rule when called. So a builder is
made once per process and reused by every app's equal rule; the URLs are the same
(tests/platform/test_routing_cache.py builds every rule's URLs both ways and compares them).

Installed by tests/conftest.py for the test process only: a served app never builds a second app.
"""

from __future__ import annotations

from werkzeug.routing import rules

_ORIGINAL = rules.Rule._compile_builder
_BUILDERS: dict[tuple, object] = {}


def _key(rule: rules.Rule, append_unknown: bool) -> tuple | None:
    defaults = rule.defaults or {}
    if any(is_dynamic and data in defaults for is_dynamic, data in rule._trace):
        return None   # a default for a part of the URL is converted ahead of time by the rule's converter
    # (the other defaults' values are not in the builder: it takes their names as arguments)
    return rule.rule, tuple(rule._trace), append_unknown, tuple(sorted(defaults))


def _compile_builder(self: rules.Rule, append_unknown: bool = True):
    key = _key(self, append_unknown)
    if key is None:
        return _ORIGINAL(self, append_unknown)
    builder = _BUILDERS.get(key)
    if builder is None:
        builder = _BUILDERS[key] = _ORIGINAL(self, append_unknown)
    return builder


def install() -> None:
    rules.Rule._compile_builder = _compile_builder


def uninstall() -> None:
    rules.Rule._compile_builder = _ORIGINAL
