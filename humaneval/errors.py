"""The one error type for bad input files, and reading a text file with it."""

from __future__ import annotations

from pathlib import Path


class HumanEvalInputError(ValueError):
    """Bad input: names the file, the line and the problem."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message, self.path, self.line = message, path, line

    def __str__(self) -> str:
        where = ":".join(str(p) for p in (self.path, self.line) if p is not None)
        return f"{where}: {self.message}" if where else self.message


def read_text(path: str | Path) -> str:
    """A UTF-8 file's text (a BOM dropped); an unreadable file or invalid UTF-8 is a HumanEvalInputError."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise HumanEvalInputError(f"cannot read the file: {exc.strerror or exc}", name) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise HumanEvalInputError(f"not valid UTF-8 (byte {raw[exc.start]:#04x})", name, line) from None
