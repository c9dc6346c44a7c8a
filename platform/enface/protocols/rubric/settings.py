"""A rubric campaign's settings: the rubric itself (a snapshot, so editing a file never changes a
running campaign), whether annotators see the reference, and the guidelines."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from humaneval.errors import HumanEvalInputError
from humaneval.rubric import DEFAULT_RUBRIC, Rubric, available_rubrics, load_rubric, parse_rubric
from scoring.human_ranking import DEFAULT_TEST, TESTS

from ...campaigns.services import bad
from ...services.accounts import check_text
from ...services.phenomena import testset_phenomena

DEFAULTS: dict[str, Any] = {"rubric": DEFAULT_RUBRIC, "show_reference": True, "guidelines": "",
                            "significance_test": DEFAULT_TEST}
TRUE = (True, "1", "true", "on", "yes")


def rubric_from(value: Any) -> Rubric:
    """A shipped rubric's name, a rubric's JSON text, or its parsed dict; errors name the field."""
    try:
        if isinstance(value, dict):
            return parse_rubric(value, "rubric")
        text = str(value).strip()
        if text.startswith("{"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise bad("invalid_field", f"rubric: not valid JSON: {exc.msg} (line {exc.lineno}, column "
                          f"{exc.colno})", field="rubric") from None
            return parse_rubric(data, "rubric")
        if text not in available_rubrics():
            raise bad("invalid_field", f"unknown rubric {text!r} (shipped: {', '.join(available_rubrics())}; or "
                      "paste a rubric file's JSON)", field="rubric")
        return load_rubric(text)
    except HumanEvalInputError as exc:
        raise bad("invalid_field", str(exc), field="rubric") from None


def clean_settings(data: dict[str, Any], testset) -> dict[str, Any]:
    given = {k: v for k, v in data.items() if v is not None and v != ""}
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise bad("invalid_field", f"unknown rubric setting(s): {', '.join(unknown)}", field=unknown[0])
    out = {**DEFAULTS, **given}
    rubric = rubric_from(out["rubric"])
    out["rubric"] = rubric.to_dict()
    out["show_reference"] = out["show_reference"] in TRUE
    if out["significance_test"] not in TESTS:   # the official ranking's paired test (as MQM's)
        raise bad("invalid_field", f"significance test must be one of {', '.join(TESTS)}", field="significance_test")
    out["guidelines"] = check_text(str(out["guidelines"]).strip(), "guidelines", max_len=20000, required=False,
                                   multiline=True)
    phenomena = testset_phenomena(testset)
    if not phenomena:
        raise bad("no_phenomena", f"test set {testset.name!r} has no phenomenon tags: import it with a "
                  "phenomena.jsonl file, or add one with `enface testset phenomena` or on its page", field="testset")
    foreign = sorted({p.dimension for p in phenomena} - set(rubric.keys))
    if foreign:
        raise bad("invalid_field", f"the test set tags dimension(s) {', '.join(foreign)}, which the rubric "
                  f"{rubric.name!r} lacks (it has {', '.join(rubric.keys)})", field="rubric")
    return out


@lru_cache(maxsize=64)
def _parsed(snapshot: str) -> Rubric:
    return parse_rubric(json.loads(snapshot), "campaign settings")


def campaign_rubric(campaign) -> Rubric:
    """The campaign's rubric (its snapshot, parsed once per process)."""
    stored = campaign.setting("rubric") or load_rubric().to_dict()
    return _parsed(json.dumps(stored, sort_keys=True, ensure_ascii=False))
