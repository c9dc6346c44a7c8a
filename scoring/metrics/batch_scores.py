"""Vectorised copies of sacrebleu's score functions (BLEU, chrF, TER) over many rows of summed
statistics: the paired tests' resamples and the segment scores. A module of its own, so that both
``scoring.significance`` and ``scoring.metrics.sacrebleu_metrics`` import it without a cycle.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

BatchScoreFn = Callable[[np.ndarray], "np.ndarray | None"]

# Vectorised copies of sacrebleu's score functions. They take int64/float64
# sums (the randomisation test's) and repeat sacrebleu's float64 operations in
# the same order, so the results are the same doubles. float32 sums (the
# bootstrap's) go through sacrebleu itself: numpy's float32 scalar promotion
# rules are not worth imitating.


def _exact_input(summed: np.ndarray) -> np.ndarray | None:
    if summed.dtype.kind == "i" or summed.dtype == np.float64:
        return summed.astype(np.float64, copy=False)
    return None


def _chrf_batch(metric) -> BatchScoreFn:
    order, factor, eps_smoothing = metric.order, metric.beta ** 2, metric.eps_smoothing
    eps = 1e-16

    def batch(summed: np.ndarray) -> np.ndarray | None:
        st = _exact_input(summed)
        if st is None:
            return None
        m = st.shape[0]
        score = np.zeros(m)
        avg_prec, avg_rec = np.zeros(m), np.zeros(m)
        effective_order = np.zeros(m, dtype=np.int64)
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(order):
                n_hyp, n_ref, n_match = st[:, 3 * i], st[:, 3 * i + 1], st[:, 3 * i + 2]
                prec = np.where(n_hyp > 0, n_match / n_hyp, eps)
                rec = np.where(n_ref > 0, n_match / n_ref, eps)
                denom = factor * prec + rec
                score = score + np.where(denom > 0, (1 + factor) * prec * rec / denom, eps)
                both = (n_hyp > 0) & (n_ref > 0)
                avg_prec = np.where(both, avg_prec + prec, avg_prec)
                avg_rec = np.where(both, avg_rec + rec, avg_rec)
                effective_order += both
            if eps_smoothing:
                return 100 * score / order
            nonzero = effective_order > 0
            avg_prec = np.where(nonzero, avg_prec / effective_order, 0.0)
            avg_rec = np.where(nonzero, avg_rec / effective_order, 0.0)
            f = (1 + factor) * avg_prec * avg_rec
            f = f / ((factor * avg_prec) + avg_rec)
            return np.where(avg_prec + avg_rec != 0, 100 * f, 0.0)

    return batch


def _ter_batch(metric) -> BatchScoreFn:
    def batch(summed: np.ndarray) -> np.ndarray | None:
        st = _exact_input(summed)
        if st is None:
            return None
        edits, ref_len = st[:, 0], st[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.where(ref_len > 0, edits / ref_len, np.where(edits > 0, 1.0, 0.0))
        return 100 * score

    return batch


def _bleu_batch(metric) -> BatchScoreFn | None:
    method, order, effective = metric.smooth_method, metric.max_ngram_order, metric.effective_order
    if method not in ("exp", "none", "floor"):
        return None
    value = metric.smooth_value
    if value is None:
        value = type(metric).SMOOTH_DEFAULTS[method]

    def batch(summed: np.ndarray) -> np.ndarray | None:
        if _exact_input(summed) is None:
            return None
        st = summed
        sys_len = st[:, 0].astype(np.int64)
        ref_len = st[:, 1].astype(np.int64)
        correct = st[:, 2:2 + order].astype(np.float64)
        total = st[:, 2 + order:2 + 2 * order].astype(np.float64)
        alive = np.cumprod(total != 0, axis=1).astype(bool)       # orders before the first empty one
        zero = correct == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            if method == "exp":
                smooth = np.power(2.0, np.cumsum(zero & alive, axis=1))
                smoothed = 100. / (smooth * total)
            elif method == "floor":
                smoothed = 100. * value / total
            else:
                smoothed = np.zeros_like(total)
            precisions = np.where(alive, np.where(zero, smoothed, 100. * correct / total), 0.0)
        any_correct = (~zero).any(axis=1)
        # effective order (sentence BLEU): only the orders before the first empty one count
        alive_orders = alive.sum(axis=1)
        kept = np.where(alive_orders > 0, alive_orders, order) if effective else np.full(len(st), order)
        out = np.zeros(st.shape[0])
        for r, (p_row, s, rl, ok, k) in enumerate(zip(precisions.tolist(), sys_len.tolist(), ref_len.tolist(),
                                                      any_correct.tolist(), kept.tolist(), strict=True)):
            if not ok:
                continue
            bp = 1.0
            if s < rl:
                bp = math.exp(1 - rl / s) if s > 0 else 0.0
            out[r] = bp * math.exp(sum([math.log(p) if p != 0.0 else -9999999999 for p in p_row[:k]]) / k)
        return out

    return batch


def batch_score_fn_for(metric) -> BatchScoreFn | None:
    """A vectorised, bit-identical copy of a sacrebleu metric's score function, where we have one.

    A type check, so that subclasses (the compiled TER, ``CompiledTER``) take the fast path too,
    as long as they keep sacrebleu's own score function (only their statistics may differ).
    """
    from sacrebleu.metrics import BLEU, CHRF, TER

    for cls, make in ((CHRF, _chrf_batch), (TER, _ter_batch), (BLEU, _bleu_batch)):
        if isinstance(metric, cls):
            if type(metric)._compute_score_from_stats is not cls._compute_score_from_stats:
                return None
            return make(metric)
    return None
