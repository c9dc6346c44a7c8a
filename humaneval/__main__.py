"""``python -m humaneval``: see :mod:`humaneval.cli`."""

import sys

from .cli import main

sys.exit(main())
