"""The campaign's MQM settings and scheme, as the pages and the scores read them."""

from __future__ import annotations

import threading
from functools import lru_cache

import mqm
from mqm.words import MODES as WORD_MODES

from ....campaigns import reading
from ....campaigns.models import Campaign
from ....campaigns.services import (
    testset_docs,
)
from ....models import TestSet


def scheme_name(campaign: Campaign) -> str:
    return campaign.setting("scheme", mqm.DEFAULT_SCHEME)


def significance_unit(campaign: Campaign) -> str:
    return campaign.setting("significance_unit", "segment")


def words_per_second(campaign: Campaign) -> float:
    return campaign.setting("words_per_second", reading.DEFAULT_WORDS_PER_SECOND)


@lru_cache(maxsize=16)
def get_scheme(name: str) -> mqm.Scheme:
    return mqm.load_scheme(name)


def non_translation_severity(scheme: mqm.Scheme) -> str:
    """The severity a whole-segment Non-translation mark gets: the heaviest one of the scheme.

    (google-mqm weighs a Major Non-translation 25 by a rule, a Minor one 1, so the mark is Major; in
    wmt23-literary the heaviest severity, Critical, is 25 too.)
    """
    return max(scheme.severities, key=lambda s: s.weight).name


@lru_cache(maxsize=16)
def scheme_for_annotators(name: str) -> dict:
    """What the annotation page needs: categories with definitions, severities, and their order.

    Cached per scheme name (schemes are files that do not change while the server runs): treat it as read-only.
    """
    scheme = get_scheme(name)
    d = scheme.to_dict()
    # ranks for colours: 0 neutral (weight 0), then 1, 2, 3 by increasing weight (minor, major, critical)
    nonzero = sorted({s.weight for s in scheme.severities if s.weight > 0})
    severities = [{"name": s.name, "description": s.description, "short": s.short,
                   "rank": 0 if s.weight == 0 else min(3, nonzero.index(s.weight) + 1)}
                  for s in scheme.severities]
    omission = None
    for c in scheme.categories:
        for sub in c.subcategories:
            if sub.name.lower().startswith("omission"):
                omission = {"category": c.name, "subcategory": sub.name}
                break
        if omission:
            break
    return {"name": scheme.name, "title": scheme.title, "higher_is_better": scheme.higher_is_better,
            "categories": [c for c in d["categories"]], "severities": severities,
            "non_translation": {"category": mqm.model.NON_TRANSLATION, "severity": non_translation_severity(scheme)},
            "omission": omission}


def word_counter(campaign: Campaign) -> mqm.WordCounter:
    return mqm.WordCounter(campaign.setting("source_words", "auto"), lang=campaign.testset.src_lang)


_WORDS: dict[tuple, tuple[list[dict], str]] = {}


_WORDS_LOCK = threading.Lock()


def document_words(ts: TestSet, mode: str) -> tuple[list[dict], str]:
    """``[{name, segments, words}]`` per document, and the counting method; cached per test set and mode.

    (A test set's sources never change: the key holds its fingerprint all the same.)
    """
    mode = mode if mode in WORD_MODES else "auto"
    key = (ts.id, ts.fingerprint, ts.src_lang, mode)
    hit = _WORDS.get(key)
    if hit is None:
        counter = mqm.WordCounter(mode, lang=ts.src_lang)
        rows = [{"name": d.name, "segments": len(d.sources), "words": sum(counter(s) for s in d.sources)}
                for d in testset_docs(ts)]
        hit = (rows, counter.method)
        with _WORDS_LOCK:
            _WORDS[key] = hit
            while len(_WORDS) > 64:
                _WORDS.pop(next(iter(_WORDS)))
    return [dict(r) for r in hit[0]], hit[1]
