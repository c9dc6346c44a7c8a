"""ESA needs no table of its own: answers are the core's responses, attention checks live in assignment plans."""

from .suggestions import models as _suggestion_models  # noqa: E402,F401  (ESA^AI's tables join the metadata)
from .suggestions import running as _suggestion_run  # noqa: E402,F401  (and its llm-queue task registers)
