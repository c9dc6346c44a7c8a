"""The one error type for bad input files."""

from __future__ import annotations


class HumanEvalInputError(ValueError):
    """Bad input: names the file, the line and the problem."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message, self.path, self.line = message, path, line

    def __str__(self) -> str:
        where = ":".join(str(p) for p in (self.path, self.line) if p is not None)
        return f"{where}: {self.message}" if where else self.message
