"""DITING-style rubric evaluation of phenomenon-tagged segments (see :mod:`~enface.protocols.rubric.protocol`)."""
