"""MQM error annotation: the first protocol of the campaign core.

``protocol`` (the :class:`~enface.campaigns.protocol.Protocol`, registered on import),
``models`` (marks, attention checks), ``services``, ``views`` (its own routes),
``constants`` (the settings' choices, importable without SQLAlchemy for a quick ``--help``).
"""
