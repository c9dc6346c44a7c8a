"""Why a score is n/a, as each reader may see it.

The scoring library explains an unavailable COMET to whoever runs it: which environment variable to
set, where a checkpoint was looked for (server paths), that the machine cannot download models.
That is an instruction for the operator; participants and the public read only that COMET is not
available here.
"""

from __future__ import annotations

from scoring.metrics.comet import ENV_VAR, HOW_TO_FIX

PUBLIC_COMET_REASON = "COMET is not available on this server (the organizers can set it up)"


def is_operator_detail(reason: str | None) -> bool:
    return bool(reason) and (HOW_TO_FIX in reason or ENV_VAR in reason or "COMET model" in reason
                             or "COMET checkpoint" in reason)


def public_reason(reason: str | None) -> str | None:
    """``reason`` for participants and the public: the operator's instruction (and its paths) left out."""
    return PUBLIC_COMET_REASON if is_operator_detail(reason) else reason


def reason_for(reason: str | None, user) -> str | None:
    """``reason`` as ``user`` may read it: organizers and admins get it whole."""
    if user is not None and getattr(user, "is_authenticated", False) and user.is_organizer:
        return reason
    return public_reason(reason)
