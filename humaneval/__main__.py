"""``python -m humaneval``: see :mod:`humaneval.cli`."""

import sys

from .cli import main

if __name__ == "__main__":   # (not on import: the API reference imports every module)
    sys.exit(main())
