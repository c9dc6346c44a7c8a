"""``python -m mqm``: see :mod:`mqm.cli`."""

import sys

from .cli import main

sys.exit(main())
