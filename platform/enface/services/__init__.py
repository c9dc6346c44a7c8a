"""The platform's queries and rules. Views, the API, the CLI and the jobs call these; they never query directly."""

from __future__ import annotations


def is_ascii_int(text: object, max_digits: int = 9) -> bool:
    """Whether ``text`` is a string of ASCII digits ("12"), short enough for a database integer (int4).

    Not ``str.isdigit()``: that accepts "²" and "𝟘", which ``int()`` then refuses.
    """
    return isinstance(text, str) and 0 < len(text) <= max_digits and text.isascii() and text.isdigit()


class ServiceError(Exception):
    """A refused request: a stable ``code``, a sentence for people, an HTTP status and optional details."""

    def __init__(self, code: str, message: str, status: int = 400, details: dict | list | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.details = details if details is not None else {}


class NotFound(ServiceError):
    def __init__(self, what: str = "resource"):
        super().__init__("not_found", f"no such {what}", 404)


class Forbidden(ServiceError):
    def __init__(self, message: str = "you may not do this", code: str = "forbidden"):
        super().__init__(code, message, 403)
