"""argparse types shared by the ``python -m humaneval`` subcommands: a bad value is a usage error (exit 2)
that names the value and the rule."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _parsed(text: str, kind: type, noun: str):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None


def whole_number(minimum: int) -> Callable[[str], int]:
    """A whole number at least ``minimum``."""

    def parse(text: str) -> int:
        value = _parsed(text, int, "a whole number")
        if value < minimum:
            rule = "must not be negative" if minimum == 0 else f"must be at least {minimum}"
            raise argparse.ArgumentTypeError(f"{rule}, not {text}")
        return value

    return parse


def non_negative(text: str) -> float:
    """A number of 0 or more."""
    value = _parsed(text, float, "a number")
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def open_fraction(text: str) -> float:
    """A number strictly between 0 and 1 (a significance level)."""
    value = _parsed(text, float, "a number")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {text}")
    return value
