"""JSON from requests, parsed so that no body can crash a view: every refusal is a ValueError naming the problem.

``json.loads`` raises RecursionError (not a ValueError, so Flask's ``get_json(silent=True)`` lets it
through as a 500) on deeply nested input, and it accepts lone surrogates ("\\ud800"), which then
fail when a database or a file encodes them as UTF-8. :func:`loads` refuses both, and
:class:`SafeJSONProvider` makes it the app's JSON parser, so ``request.get_json()`` anywhere answers
a 400 for them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask.json.provider import DefaultJSONProvider

#: Deeper than any body the platform takes (an answer's data is a few levels deep).
MAX_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONInputError(ValueError):
    """A JSON body refused; ``field`` is the top-level field that holds the problem (None: the body)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message, self.field = message, field


def loads(data: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON text, refusing nesting deeper than ``max_depth`` and strings with lone surrogates."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise JSONInputError(f"the JSON is nested too deeply (more than {max_depth} levels)") from None
    except UnicodeDecodeError as exc:
        raise JSONInputError(f"the request body is not UTF-8 (byte {exc.start})") from None
    except ValueError as exc:
        raise JSONInputError(f"the request body is not valid JSON ({exc})") from None
    check(value, max_depth)
    return value


def check(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Walks a parsed value without recursion (a deep value cannot overflow the stack here)."""
    stack: list[tuple[Any, int, str | None]] = [(value, 1, None)]
    while stack:
        item, depth, field = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > max_depth:
                raise JSONInputError(f"the JSON is nested too deeply (more than {max_depth} levels)", field)
            if isinstance(item, dict):
                for key, sub in item.items():
                    top = key if field is None else field
                    _text(key, top)
                    stack.append((sub, depth + 1, top))
            else:
                stack.extend((sub, depth + 1, field) for sub in item)
        elif isinstance(item, str):
            _text(item, field)


def _text(text: str, field: str | None) -> None:
    m = _SURROGATE.search(text)
    if m is not None:
        where = f"{field}: " if field is not None else ""
        raise JSONInputError(f"{where}a lone surrogate (U+{ord(m.group()):04X}) at character {m.start() + 1} is "
                             "not valid Unicode text; send UTF-8 text", field)


class SafeJSONProvider(DefaultJSONProvider):
    """Flask's JSON with :func:`loads` for parsing (``request.get_json()`` then answers 400 for bad bodies)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)
