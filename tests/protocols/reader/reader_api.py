"""Driving a reader's book through the JSON API, as the page does (stable ids per answer, growing revisions)."""

from __future__ import annotations

from reader_helpers import uid

SINGLE = {"acceptability": 4, "smoothness": 3, "immersion": 4, "continue": 5, "positive": "Vivid dialogue.",
          "negative": "Some stiff sentences.", "origin": "human", "origin_confidence": 3}
COMPARE = {"dialogue": "1", "word_choice": "none", "continue_choice": "2-slightly",
           "continue_why": "T2 flowed better and kept me inside the story.", "ai_version": "2", "ai_confidence": 4,
           "ai_why": "T2 felt more literal in places."}
POST = {"expectations": "I expected it to be clumsy.", "accuracy": "A little surprised.",
        "opinion": "Better than I thought.", "comments": ""}


class Book:
    def __init__(self, client, public_id: str):
        self.c = client
        self.pid = public_id
        self.ids: dict[tuple[str, str], list] = {}

    @property
    def api(self) -> str:
        return f"/annotate/api/items/{self.pid}"

    def state(self) -> dict:
        r = self.c.get(self.api)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def put(self, kind: str, key: str, data, *, new: bool = False):
        entry = self.ids.get((kind, key)) if not new else None
        if entry is None:
            entry = [uid(), 0]
            if not new:
                self.ids[(kind, key)] = entry
        entry[1] += 1
        return self.c.put(f"{self.api}/responses/{entry[0]}", json={"rev": entry[1], "kind": kind, "key": key,
                                                                    "data": data})

    def ok(self, kind: str, key: str, data):
        r = self.put(kind, key, data)
        assert r.status_code == 200, (kind, key, r.get_json())
        return r

    def times(self, **parts):
        r = self.c.post(f"{self.api}/progress", json={"times": {k.replace("_", ":", 1): v for k, v in parts.items()}})
        assert r.status_code == 200, r.get_json()

    def finish(self):
        return self.c.post(f"{self.api}/finish", json={})

    # -- whole stages
    def read(self, label: str, ms: int = 300_000):
        st = self.state()
        n = len(st["immersive"]["paragraphs"])
        self.ok("position", label, {"para": n - 1, "furthest": n - 1})
        self.times(**{f"read_{label}": ms})

    def immersive(self, single=SINGLE, compare=COMPARE, ms: int = 300_000):
        self.read("1", ms)
        self.ok("step", "immersive", {"step": 1})
        self.ok("single", "1", single)
        self.ok("step", "immersive", {"step": 2})
        self.read("2", ms)
        self.ok("step", "immersive", {"step": 3})
        self.ok("single", "2", single)
        self.ok("step", "immersive", {"step": 4})
        self.ok("compare", "", compare)
        r = self.finish()
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def close(self, preference: str = "1", difficulty: str = "better", highlight: bool = True,
              justification: str | None = None):
        st = self.state()
        assert st["view"] == "close", st["view"]
        for chunk in st["close"]["chunks"]:
            n = str(chunk["n"])
            if highlight:
                text = chunk["texts"]["1"]
                word = text.split()[0]
                self.put("highlight", n, {"side": "1", "start": 0, "end": len(word), "label": "good", "text": word},
                         new=True)
                t2 = chunk["texts"]["2"]
                end = t2.index(" ", 5)
                r = self.put("highlight", n, {"side": "2", "start": 0, "end": end, "label": "poor", "text": t2[:end]},
                             new=True)
                assert r.status_code == 200, r.get_json()
            self.ok("chunk", n, {"preference": preference,
                                 "justification": justification or f"T{preference} reads better here.",
                                 "difficulty": difficulty})
            self.times(**{f"chunk_{n}": 120_000})
        r = self.finish()
        assert r.status_code == 200, r.get_json()
        return r.get_json()
