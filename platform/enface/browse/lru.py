"""Small thread-safe LRU caches kept per app (in ``app.extensions``), so that two apps in one process
(the tests make one per database) never share an entry."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from flask import current_app


class LRU:
    def __init__(self, size: int):
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key):
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


def app_cache(name: str, size: int) -> LRU:
    caches = current_app.extensions.setdefault("enface_browse_caches", {})
    cache = caches.get(name)
    if cache is None:
        cache = caches.setdefault(name, LRU(size))
    return cache
