"""The one error of the meta-evaluation: bad input, naming the file when there is one."""

from __future__ import annotations

from pathlib import Path


class MetaInputError(ValueError):
    """Bad input to the meta-evaluation; ``path`` names the file when there is one."""

    def __init__(self, message: str, path: str | Path | None = None):
        self.path = None if path is None else str(path)
        super().__init__(f"{path}: {message}" if path is not None else message)
