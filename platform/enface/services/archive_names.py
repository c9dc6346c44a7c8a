"""Names of the members of the archives the platform writes (the release zip, ``source.zip``).

Every part of a member's path comes from :func:`safe_part`: a name that enters an archive can never climb
out of it (``..``, ``/``, ``\\``), hide (a leading dot) or carry control characters, whatever the database
holds. Document names are checked where they enter (``scoring.testset.check_doc_name``), so a document's
part is its name unchanged and the test set in the archive reads back as it was; anything else (a legacy
name, a team's or a campaign's name) becomes a slug, with a short hash where the slug lost characters so
that two names never share a member.
"""

from __future__ import annotations

import hashlib
import re

from scoring.testset import TestSetError, check_doc_name

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str, max_len: int = 80) -> str:
    """Letters, digits, ``.``, ``_`` and ``-`` only, no leading or trailing dot or dash; ``x`` when nothing is left."""
    s = _UNSAFE.sub("-", text).strip("-.")
    return s[:max_len].rstrip("-.") or "x"


def safe_part(name: str) -> str:
    """One path component for an archive member: ``name`` itself where it is a valid document name, else its
    slug with eight hex digits of its hash (so that distinct names stay distinct)."""
    try:
        check_doc_name(name, "archive member")
    except TestSetError:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        return f"{slug(name, 60)}-{digest}"
    return name
