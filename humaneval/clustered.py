"""A preference test that respects clustering: judgments by the same reader, or on the same document, are not independent.

The exact binomial test counts every judgment as an independent coin toss. In a reader
study 30 readers judge chunks of 15 books, so a reader who always prefers the human
translation, or a book whose translation is poor throughout, weighs as many
independent votes as it has judgments, and the p-value is far too small (LAIT's 772
chunk judgments: binomial p ≈ 6e-23 against the paper's mixed model, p = .011).

Here each judgment ``y`` (1: the reader chose the reference, 0: the system) is fitted
by a logistic regression ``logit P(y = 1) = b0 + b1 · order`` (``order`` = +1/2 when
the reference was shown or read first, -1/2 when second, 0 when unknown), with
standard errors that are **two-way cluster-robust** by reader and by document
(Cameron, Gelbach and Miller 2011; statsmodels' ``cov_type="cluster"`` with two group
columns). ``estimate`` is ``b0``: the log-odds of preferring the reference with the
reading order balanced out (0: no preference); ``p_value`` tests ``b0 = 0`` with a t
distribution on ``min(readers, documents) - 1`` degrees of freedom, statsmodels'
small-sample choice for few clusters. It is the cluster-robust counterpart of LAIT's
mixed-effects logistic model with random intercepts for readers and documents.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

METHOD = ("logistic regression chose_reference ~ 1 + reference_first, two-way cluster-robust standard "
          "errors by reader and document (statsmodels GLM, cov_type=cluster), t test on min(readers, documents)"
          " - 1 df")
MIN_CLUSTERS = 3


@dataclass(frozen=True)
class Judgment:
    """One binary preference: ``chose_reference``; ``reference_first`` is None when the order is unknown."""

    reader: Hashable
    document: Hashable
    chose_reference: bool
    reference_first: bool | None = None


@dataclass(frozen=True)
class ClusteredTest:
    method: str
    n: int
    readers: int
    documents: int
    estimate: float | None          # b0, log-odds of choosing the reference (order balanced)
    se: float | None
    p_value: float | None
    share: float | None             # expit(b0): the share preferring the reference, order balanced
    order_effect: float | None      # b1, log-odds added by showing the reference first
    order_p_value: float | None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _codes(values: Sequence[Hashable]) -> list[int]:
    index: dict[Hashable, int] = {}
    return [index.setdefault(v, len(index)) for v in values]


def clustered_preference_test(judgments: Sequence[Judgment]) -> ClusteredTest:
    """The test above; estimate and p-value are None (with the reason) when it cannot be fitted."""
    n = len(judgments)
    readers = len({j.reader for j in judgments})
    documents = len({j.document for j in judgments})

    def unavailable(reason: str) -> ClusteredTest:
        return ClusteredTest(METHOD, n, readers, documents, None, None, None, None, None, None, reason)

    if min(readers, documents) < MIN_CLUSTERS:
        return unavailable(f"{readers} reader(s) and {documents} document(s): a cluster-robust test needs at "
                           f"least {MIN_CLUSTERS} of each")
    y = [1.0 if j.chose_reference else 0.0 for j in judgments]
    if len(set(y)) < 2:
        return unavailable("every judgment chose the same side: the log-odds are infinite (perfect separation)")
    import numpy as np
    import statsmodels.api as sm

    order = [0.0 if j.reference_first is None else (0.5 if j.reference_first else -0.5) for j in judgments]
    with_order = len(set(order)) > 1
    x = np.column_stack([np.ones(n), order]) if with_order else np.ones((n, 1))
    groups = np.column_stack([_codes([j.reader for j in judgments]), _codes([j.document for j in judgments])])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = sm.GLM(np.array(y), x, family=sm.families.Binomial()).fit(
                cov_type="cluster", cov_kwds={"groups": groups}, use_t=True,
                df_correction=True)
    except (ValueError, np.linalg.LinAlgError) as exc:
        return unavailable(f"the model could not be fitted: {exc}")
    params, bse = np.asarray(fit.params), np.asarray(fit.bse)
    if not all(math.isfinite(v) for v in (*params, *bse)):
        return unavailable("the model did not converge (separation: one side chosen almost always)")
    from scipy.stats import t as student

    df = min(readers, documents) - 1

    def p(k: int) -> float:
        return float(2 * student.sf(abs(params[k] / bse[k]), df)) if bse[k] > 0 else 1.0

    b0 = float(params[0])
    return ClusteredTest(METHOD, n, readers, documents, b0, float(bse[0]), p(0), 1 / (1 + math.exp(-b0)),
                         float(params[1]) if with_order else None, p(1) if with_order else None)
