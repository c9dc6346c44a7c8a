"""A text's writing direction, for the pages that show it ("rtl" or "ltr" in the dir attribute)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

RTL_LANGS = {"ar", "arc", "ckb", "dv", "fa", "he", "iw", "ku", "ps", "sd", "syr", "ug", "ur", "yi"}


def text_direction(lang: str | None, sample: Iterable[str] = ()) -> str:
    """"rtl" or "ltr" for a language code (falls back on the script of ``sample``)."""
    base = (lang or "").lower().replace("_", "-").split("-")[0]
    if base in RTL_LANGS:
        return "rtl"
    if not base:
        for text in sample:
            for ch in text:
                bidi = unicodedata.bidirectional(ch)
                if bidi in ("R", "AL"):
                    return "rtl"
                if bidi == "L":
                    return "ltr"
    return "ltr"
