"""Blindness: nothing a reader can load names a system, a team, "human", "machine" or a reference.

A reader goes through the whole study (both books, both parts, the final questions) and at every
step the test loads what the reader can load: the list of books, each book's page, each book's
state JSON, every answer the server sends back, and every script and stylesheet the pages link
to. Allowed, as in LAIT: the origin question's options ("human-translated" / "machine-translated",
coded "human" / "machine", and the reader's own answers to it) and the final feedback after the
last book.
"""

from __future__ import annotations

import json
import re

from reader_api import Book
from reader_helpers import SYSTEMS, books_of, new_study

FORBIDDEN = [*SYSTEMS, "nightjar", "owlet", *{team for team, _l, _c in SYSTEMS.values()},
             "human", "machine", "reference", "ref1", "ref2", "submission"]
ALLOWED = ["human-translated", "machine-translated", '"human"', '"machine"', "value=\"human\"", "value=\"machine\"",
           "\\u201chuman\\u201d"]


def scrub_feedback_html(html: str) -> str:
    """The page without its feedback block and its embedded state (checked on its own, feedback scrubbed)."""
    html = re.sub(r'<div id="feedback".*?</div>', "", html, flags=re.S)
    return re.sub(r'<script id="reader-state" type="application/json">.*?</script>', "", html, flags=re.S)


def scrub_feedback_json(state: dict) -> dict:
    state = json.loads(json.dumps(state))
    if state.get("post"):
        state["post"].pop("feedback", None)
    return state


def leaks(text: str) -> list[str]:
    """Each forbidden word found, with some context."""
    for a in ALLOWED:
        text = text.replace(a, "")
    found = []
    for word in FORBIDDEN:
        m = re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w])", text, re.IGNORECASE)
        if m:
            found.append(f"{word}: …{text[max(0, m.start() - 60):m.end() + 30]}…")
    return found


class Crawler:
    def __init__(self, client):
        self.c = client
        self.seen: dict[str, str] = {}
        self.checked = 0
        self.assets: set[str] = set()

    def page(self, url: str, *, final: bool = False):
        r = self.c.get(url)
        assert r.status_code in (200, 423), (url, r.status_code)
        html = r.get_data(as_text=True)
        for ref in re.findall(r'(?:src|href)="(/(?:static|protocols)/[^"]+)"', html):
            self.assets.add(ref)
        self.check(url, scrub_feedback_html(html) if final else html)
        # the state embedded in the page
        m = re.search(r'<script id="reader-state" type="application/json">(.*?)</script>', html, re.S)
        if m and final:
            self.check(url + "#state", json.dumps(scrub_feedback_json(json.loads(m.group(1)))))

    def api(self, url: str, *, final: bool = False):
        r = self.c.get(url)
        assert r.status_code == 200, (url, r.status_code)
        state = r.get_json()
        self.check(url, json.dumps(scrub_feedback_json(state) if final else state, ensure_ascii=False))

    def answer(self, label: str, response):
        assert response.status_code == 200, response.get_json()
        self.check(label, response.get_data(as_text=True))

    def check(self, where: str, text: str):
        self.seen[where] = text
        self.checked += 1
        found = leaks(text)
        assert not found, f"{where} names {found}"

    def load_assets(self):
        assert any(a.endswith("reader.js") for a in self.assets) and any(a.endswith("autosave.js") for a in self.assets)
        for a in sorted(self.assets):
            r = self.c.get(a)
            assert r.status_code == 200, a
            text = r.get_data(as_text=True)
            if a.endswith(".css"):
                # class names (the site's .human-ranking) and comments show nothing
                text = re.sub(r"/\*.*?\*/", "", re.sub(r"\.[A-Za-z][\w-]*", "", text), flags=re.S)
            self.check(a, text)


def visit(crawler: Crawler, book: Book, final: bool = False):
    crawler.page(f"/annotate/item/{book.pid}", final=final)
    crawler.api(book.api, final=final)
    crawler.page("/annotate/")


def test_a_reader_never_learns_which_version_is_which(world, clock):
    cid = new_study(world, passphrase="evening lamp", versions=("ref1", "nightjar-mt"))
    c = world.client("reader1@example.org")
    crawler = Crawler(c)
    books = [Book(c, i["public_id"]) for i in books_of(world, cid, "reader1@example.org")]
    b1, b2 = books
    crawler.page("/annotate/")
    visit(crawler, b1)
    crawler.answer("passphrase", b1.put("passphrase", "", {"passphrase": "evening lamp"}, new=True))
    for b in books:
        visit(crawler, b)
        st = b.state()
        n = len(st["immersive"]["paragraphs"])
        crawler.answer("position", b.put("position", "1", {"para": n - 1, "furthest": n - 1}))
        crawler.answer("step", b.put("step", "immersive", {"step": 1}))
        visit(crawler, b)
        crawler.answer("single", b.put("single", "1", {"acceptability": 3, "origin": "machine"}))
        b.ok("single", "1", {"acceptability": 3, "smoothness": 3, "immersion": 3, "continue": 3, "positive": "p",
                             "negative": "n", "origin": "machine", "origin_confidence": 2})
        b.times(read_1=200_000)
        b.ok("step", "immersive", {"step": 2})
        visit(crawler, b)
        b.read("2")
        b.ok("step", "immersive", {"step": 3})
        visit(crawler, b)
        b.ok("single", "2", {"acceptability": 3, "smoothness": 3, "immersion": 3, "continue": 3, "positive": "p",
                             "negative": "n", "origin": "human", "origin_confidence": 2})
        b.ok("step", "immersive", {"step": 4})
        visit(crawler, b)
        b.ok("compare", "", {"dialogue": "1", "word_choice": "2", "continue_choice": "1-slightly",
                             "continue_why": "w", "ai_version": "1", "ai_confidence": 3, "ai_why": "y"})
        assert b.finish().status_code == 200
        visit(crawler, b)                       # the locked page (423)
    clock(hours=25)
    for b in books:
        visit(crawler, b)
        st = b.state()
        for chunk in st["close"]["chunks"]:
            t = chunk["texts"]["1"]
            crawler.answer("highlight", b.put("highlight", str(chunk["n"]),
                                              {"side": "1", "start": 0, "end": len(t.split()[0]), "label": "poor"},
                                              new=True))
            b.ok("chunk", str(chunk["n"]), {"preference": "2", "justification": "j", "difficulty": "similar"})
        visit(crawler, b)
        assert b.finish().status_code == 200
        visit(crawler, b, final=b is b2)        # after the last Part 2: the final questions and feedback
    assert b1.finish().get_json()["finished"]            # book 1: the final stage passes at once
    visit(crawler, b1)
    # the last book: final questions with the feedback (allowed), then done
    st = b2.state()
    assert st["view"] == "post" and st["post"]["feedback"]
    feedback = " ".join(f["text"] for f in st["post"]["feedback"])
    assert "machine" in feedback and "human" in feedback      # the one place it is said
    visit(crawler, b2, final=True)
    crawler.answer("post", b2.put("post", "", {"expectations": "e", "accuracy": "a", "opinion": "o"}))
    assert b2.finish().get_json()["finished"]
    visit(crawler, b2, final=True)
    visit(crawler, b1)
    crawler.load_assets()
    assert crawler.checked > 60 and len(crawler.assets) >= 4
    # the other reader's book is not reachable, and answers the same as an unknown id
    other = books_of(world, cid, "reader2@example.org")[0]["public_id"]
    assert c.get(f"/annotate/api/items/{other}").status_code == 404
    assert c.get("/annotate/api/items/nonexistent-id").status_code == 404


def test_guidelines_that_would_unblind_are_refused(world):
    from enface.services import ServiceError

    for text, word in (("Translation 1 is the human one.", "human"), ("One is by nightjar-mt.", "nightjar-mt"),
                       ("Team Heron made one.", "Heron"), ("Compare with the reference.", "reference")):
        try:
            new_study(world, guidelines=text, start=False)
        except ServiceError as exc:
            assert exc.details["field"] == "guidelines" and word in exc.message
        else:
            raise AssertionError(f"accepted guidelines naming {word!r}")
