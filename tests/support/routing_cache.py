"""The tests build some 3,000 apps, and werkzeug spends most of ``create_app`` generating and compiling
the same URL-builder functions for the same 136 rules each time (``Rule._compile_builder``: an AST per
rule, ``compile()``, ``exec``; 45-85 ms an app). The builder it makes depends only on the rule's text,
its parsed parts and its defaults: it looks the converters up on the rule when called. So a builder is
made once per process and reused by every app's equal rule; the URLs are the same
(tests/platform/test_routing_cache.py builds every rule's URLs both ways and compares them).

The rest of ``Rule.compile`` (parsing the rule into the matcher's parts: ~10 ms an app) is kept per
process too: the parts, the trace and the arguments depend only on the rule's text, its host or
subdomain and the map's converter classes; the converters themselves are made again for each rule
(they belong to its map). test_routing_cache.py compares every rule's compiled state and what each
app matches both ways.

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


_ORIGINAL_COMPILE = rules.Rule.compile
_COMPILED: dict[tuple, tuple] = {}


def _compile(self: rules.Rule) -> None:
    domain = (self.host if self.map.host_matching else self.subdomain) or ""
    key = (self.rule, domain, self.merge_slashes, type(self),
           tuple(sorted((name, id(cls)) for name, cls in self.map.converters.items())))
    hit = _COMPILED.get(key)
    if hit is None:
        made: list[tuple] = []
        before = set(self.arguments)
        get_converter = self.get_converter

        def recording(variable, converter, args, kwargs):
            made.append((variable, converter, args, kwargs))
            return get_converter(variable, converter, args, kwargs)

        self.get_converter = recording   # (an attribute of this rule only, removed below)
        try:
            _ORIGINAL_COMPILE(self)
        finally:
            del self.get_converter
        _COMPILED[key] = (tuple(self._parts), tuple(self._trace), tuple(made), frozenset(self.arguments - before))
        return
    parts, trace, made, arguments = hit
    self._parts, self._trace = list(parts), list(trace)
    self._converters = {variable: self.get_converter(variable, converter, args, kwargs)
                        for variable, converter, args, kwargs in made}
    self.arguments.update(arguments)
    self._build = self._compile_builder(False).__get__(self, None)
    self._build_unknown = self._compile_builder(True).__get__(self, None)


def install() -> None:
    rules.Rule._compile_builder = _compile_builder
    rules.Rule.compile = _compile


def uninstall() -> None:
    rules.Rule._compile_builder = _ORIGINAL
    rules.Rule.compile = _ORIGINAL_COMPILE
