"""Scoring many items with a bounded number in flight, results kept in input order."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping, Sequence, TypeVar

from .debate import ItemResult, Judge

T = TypeVar("T")
R = TypeVar("R")


def run_bounded(work: Callable[[T], R], items: Sequence[T], concurrency: int = 1,
                on_result: Callable[[R], None] | None = None, name: str = "judge") -> list[R]:
    """``work(item)`` for every item with at most ``concurrency`` in flight, results in input order;
    ``on_result`` is called as each item finishes (any thread)."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")

    def one(item: T) -> R:
        result = work(item)
        if on_result is not None:
            on_result(result)
        return result

    if concurrency == 1:
        return [one(item) for item in items]
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=name) as pool:
        return list(pool.map(one, items))


def judge_items(judge: Judge, items: Sequence[Mapping[str, Any]], dimensions: Mapping[str, Mapping[str, Any]],
                concurrency: int = 1,
                on_result: Callable[[ItemResult], None] | None = None) -> list[ItemResult]:
    """Score ``items`` (each names its ``dimension``, a key of ``dimensions``) with at most
    ``concurrency`` items in flight; ``on_result`` is called as each item finishes (any thread)."""
    return run_bounded(lambda item: judge.score(item, dimensions[item["dimension"]]), items, concurrency,
                       on_result)
