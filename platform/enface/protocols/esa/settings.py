"""An ESA campaign's settings: attention checks, which annotators count, the tests of the results."""

from __future__ import annotations

from typing import Any

from humaneval.esa.attention import DEFAULT_ALPHA, DEFAULT_TEST
from humaneval.esa.attention import TESTS as ATTENTION_TESTS
from scoring.human_ranking import ALL_TESTS

from ...campaigns import reading
from ...campaigns.models import Campaign
from ...campaigns.services import bad, number
from ...services.accounts import check_text

#: the official ranking's test: the unpaired rank-sum test of the ESA analyses by default
DEFAULT_RANKING_TEST = "mannwhitney"
RANKING_BY = {"score": "mean score (0-100)", "z": "mean of per-annotator z-scores"}
DEFAULTS: dict[str, Any] = {
    "attention_share": 0.1,            # share of each annotator's items that get a BAD copy (at least one)
    "exclude_failing": True,           # WMT: annotators who fail the attention checks do not count
    "attention_test": DEFAULT_TEST,
    "attention_alpha": DEFAULT_ALPHA,
    "significance_test": DEFAULT_RANKING_TEST,
    "ranking_by": "score",
    "words_per_second": reading.DEFAULT_WORDS_PER_SECOND,
    "guidelines": "",
}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def flag(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise bad("invalid_field", f"{field} must be yes or no", field=field)


def clean_settings(data: dict[str, Any], testset) -> dict[str, Any]:
    given = {k: v for k, v in data.items() if v is not None and v != ""}
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise bad("invalid_field", f"unknown ESA setting(s): {', '.join(unknown)}", field=unknown[0])
    out = {**DEFAULTS, **given}
    out["attention_share"] = number(out["attention_share"], "attention_share", 0.0, 1.0)
    out["exclude_failing"] = flag(out["exclude_failing"], "exclude_failing")
    if out["attention_test"] not in ATTENTION_TESTS:
        raise bad("invalid_field", f"attention_test must be one of {', '.join(ATTENTION_TESTS)}",
                  field="attention_test")
    out["attention_alpha"] = number(out["attention_alpha"], "attention_alpha", 0.0001, 0.5)
    if out["significance_test"] not in ALL_TESTS:
        raise bad("invalid_field", f"significance_test must be one of {', '.join(ALL_TESTS)}",
                  field="significance_test")
    if out["ranking_by"] not in RANKING_BY:
        raise bad("invalid_field", f"ranking_by must be one of {', '.join(RANKING_BY)}", field="ranking_by")
    out["words_per_second"] = number(out["words_per_second"], "words_per_second", 0.5, 1000)
    out["guidelines"] = check_text(str(out["guidelines"]).strip(), "guidelines", max_len=20000, required=False,
                                   multiline=True)
    return out


def settings_of(campaign: Campaign) -> dict[str, Any]:
    """The campaign's settings with the defaults filled in (campaigns made before a setting existed)."""
    return {**DEFAULTS, **(campaign.settings or {})}


def summary(campaign: Campaign) -> list[tuple[str, str]]:
    s = settings_of(campaign)
    return [("Attention checks", f"{s['attention_share']:.0%} of each annotator's items get a BAD copy "
                                 "(at least one)" if s["attention_share"] else "none"),
            ("Annotator quality", f"{ATTENTION_TESTS[s['attention_test']]}, pass at p < {s['attention_alpha']:g}"),
            ("Failing annotators", "excluded from the results (as WMT)" if s["exclude_failing"] else "counted"),
            ("Official ranking", f"{ALL_TESTS.get(s['significance_test'], s['significance_test'])} on the "
                                 f"{RANKING_BY[s['ranking_by']]}"),
            ("Minimum reading time", f"{s['words_per_second']:g} words/s")]
