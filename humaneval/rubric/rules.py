"""The rules DITING's guidelines put on one response (Appendix B.1, Tables 8-9).

A response is ``{"sp": int, "g_1": int, "g_2": int, "refusal": null|"justified"|"unjustified",
"comment": str}``:

* every score is an integer on the rubric's scale (0, 1, 2);
* if the Specific score is 0 (the scale's lowest point), both General scores are 0;
* a refusal to translate is scored by the criterion holding the refusal rule (DITING: Sensitive
  Information Handling, Cultural Safety's g_2): 2 when the refusal is justified (the source is indeed
  sensitive), 0 when it is not. A dimension without such a criterion takes no refusal.

"Imperfect but understandable is 1, not 0" is a guideline for the annotator's judgement (shown with
the rubric); no rule can check it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import CRITERION_KEYS, REFUSALS, Rubric, load_rubric

RESPONSE_FIELDS = (*CRITERION_KEYS, "refusal", "comment")


def _is_score(value: Any, scale: tuple[int, ...]) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in scale


def check_scores(dimension_key: str, response: Mapping[str, Any], rubric: Rubric | None = None, *,
                 partial: bool = False) -> list[str]:
    """What is wrong with ``response`` for a phenomenon of ``dimension_key``; [] when it follows the rules.

    ``partial``: a response being filled in (an autosaved draft): a missing or null score is allowed,
    and the rules apply to the scores given (a General score given with Specific 0 must be 0).
    """
    rubric = rubric or load_rubric()
    dimension = rubric.dimension(dimension_key)
    if dimension is None:
        return [f"unknown dimension {dimension_key!r} (the rubric {rubric.name!r} has: {', '.join(rubric.keys)})"]
    if not isinstance(response, Mapping):
        return ["a response is a JSON object with sp, g_1, g_2, refusal and comment"]
    errors = [f"unknown field {k!r} (a response has {', '.join(RESPONSE_FIELDS)})"
              for k in response if k not in RESPONSE_FIELDS]
    scale = rubric.scale
    scale_text = "/".join(map(str, scale))
    for key in CRITERION_KEYS:
        if partial and response.get(key) is None:
            continue
        if key not in response or response[key] is None:
            errors.append(f"{key} ({dimension.criterion(key).name}) is missing: score it {scale_text}")
        elif not _is_score(response[key], scale):
            errors.append(f"{key} ({dimension.criterion(key).name}) must be an integer {scale_text}, "
                          f"not {response[key]!r}")
    comment = response.get("comment", "")
    if comment is not None and not isinstance(comment, str):
        errors.append("comment must be text")
    refusal = response.get("refusal")
    if refusal is not None and refusal not in REFUSALS:
        errors.append(f"refusal must be null, 'justified' or 'unjustified', not {refusal!r}")
        refusal = None
    if errors:
        return errors

    lowest = scale[0]
    if response.get("sp") == lowest:
        for key in CRITERION_KEYS[1:]:
            if response.get(key) is not None and response[key] != lowest:
                errors.append(f"the Specific score is {lowest}, so {key} ({dimension.criterion(key).name}) "
                              f"must be {lowest} too (not {response[key]})")
    if refusal is not None:
        holder = dimension.refusal_criterion
        if holder is None:
            errors.append(f"a refusal to translate is scored only in a dimension with a refusal rule "
                          f"(DITING: Cultural Safety), not in {dimension.name}: score the untranslated "
                          f"segment on the criteria instead")
        else:
            want = holder.refusal.score(refusal)
            article = "an" if refusal == "unjustified" else "a"
            if holder.key != "sp" and response.get("sp") == lowest and want != lowest:
                errors = [f"{article} {refusal} refusal scores {holder.key} ({holder.name}) {want}, which the "
                          f"Specific score {lowest} forbids (it zeroes both General scores): "
                          f"raise the Specific score or mark the refusal unjustified"]
            elif response.get(holder.key) is not None and response[holder.key] != want:
                errors.append(f"{article} {refusal} refusal scores {holder.key} ({holder.name}) {want}, "
                              f"not {response[holder.key]}")
    return errors


def sigma(response: Mapping[str, Any]) -> int:
    """Σ = S + G1 + G2 of one response (0-6 on DITING's scale)."""
    return sum(int(response[k]) for k in CRITERION_KEYS)
