"""Language codes, normalised once for everything that depends on the language.

Test sets name their languages as their authors wrote them: ``zh``, ``zh-Hans``, ``zh_CN``,
``ZH-cn``, ``zho``, ``ja-JP``, ``jpn``. sacrebleu picks BLEU's tokenizer from the *bare*
primary code only (``zh`` → ``zh``, ``ja`` → ``ja-mecab``, ``ko`` → ``ko-mecab``, anything
else → ``13a``), so ``zh-Hans`` taken verbatim silently gets ``13a``, which scores Chinese
as one "word" per sentence. Every caller (BLEU, the validator's script check, the MQM word
counter) goes through :func:`primary_language`.
"""

from __future__ import annotations

import re

#: ISO 639-2/3 codes people write for languages whose 639-1 code decides something here.
ALIASES = {"zho": "zh", "chi": "zh", "cmn": "zh", "eng": "en", "deu": "de", "ger": "de", "fra": "fr",
           "fre": "fr", "jpn": "ja", "kor": "ko", "rus": "ru", "spa": "es", "ara": "ar", "heb": "he",
           "ces": "cs", "cze": "cs", "ukr": "uk", "pol": "pl", "ita": "it", "por": "pt", "nld": "nl", "dut": "nl"}

_SEPARATOR = re.compile(r"[-_]")


def primary_language(code: str | None) -> str:
    """The lower-case primary language subtag of ``code``, aliases mapped: ``zh-Hans`` → ``zh``,
    ``ja_JP`` → ``ja``, ``ZHO`` → ``zh``; ``""`` for an empty or missing code."""
    if not code:
        return ""
    primary = _SEPARATOR.split(code.strip().lower(), maxsplit=1)[0]
    return ALIASES.get(primary, primary)


def bleu_language(code: str | None) -> str:
    """The target-language code to give sacrebleu's BLEU (``trg_lang``), which chooses its tokenizer
    from it exactly as ``sacrebleu -l src-tgt`` does with the bare code."""
    return primary_language(code)
