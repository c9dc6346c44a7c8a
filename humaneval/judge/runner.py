"""Scoring many items with a bounded number in flight, results kept in input order."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping, Sequence

from .debate import ItemResult, Judge


def judge_items(judge: Judge, items: Sequence[Mapping[str, Any]], dimensions: Mapping[str, Mapping[str, Any]],
                concurrency: int = 1,
                on_result: Callable[[ItemResult], None] | None = None) -> list[ItemResult]:
    """Score ``items`` (each names its ``dimension``, a key of ``dimensions``) with at most
    ``concurrency`` items in flight; ``on_result`` is called as each item finishes (any thread)."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")

    def one(item: Mapping[str, Any]) -> ItemResult:
        result = judge.score(item, dimensions[item["dimension"]])
        if on_result is not None:
            on_result(result)
        return result

    if concurrency == 1:
        return [one(item) for item in items]
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="judge") as pool:
        return list(pool.map(one, items))
