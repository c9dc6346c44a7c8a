"""The choices of a campaign's settings, with no import behind them: the tables check them
(:mod:`~enface.protocols.mqm.models`), the forms and the command line offer them (``enface campaign --help``
stays quick without SQLAlchemy)."""

ATTENTION_KINDS = ("mixed", "words", "letters")
SIGNIFICANCE_UNITS = ("segment", "doc")
