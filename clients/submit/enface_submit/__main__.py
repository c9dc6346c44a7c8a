"""``python -m enface_submit submit ...``."""

import sys

from .cli import main

sys.exit(main())
