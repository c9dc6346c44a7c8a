"""Designing a reader study: chunks for side-by-side comparison, and counterbalanced reading orders.

The LAIT study has readers read the opening of a book in two versions (a human
and a machine translation), then compare the versions chunk by chunk, about
300 words at a time. Two readers read each document; for each document one
reads version 1 first and the other version 2 first, and each reader reads
version 1 first for one of their two documents and version 2 first for the
other. :func:`counterbalance` builds that design for any counts.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from typing import NamedTuple

from .words import count_words


def chunk_segments(segments: list[str], target_words: int = 300, lang: str = "en") -> list[tuple[int, int]]:
    """Group consecutive segments (paragraphs, never split) into chunks of about ``target_words``.

    Returns half-open ``(start, end)`` segment indices covering every segment in
    order; every chunk holds at least one segment. Words are counted in the
    given segments (version 1's text) by :func:`humaneval.words.count_words`:
    whitespace tokens, or non-whitespace characters for Chinese and Japanese.

    A chunk grows one segment at a time while the next segment brings its word
    count strictly closer to the target (a segment without words always
    joins); otherwise the next segment starts a new chunk. So a chunk stops
    below the target when the next segment would overshoot it by more, and a
    single long segment is a chunk of its own. Last, a short tail joins the
    chunk before it when the merged chunk is closer to the target than the
    tail alone would be (no 20-word chunk at the end).
    """
    if target_words < 1:
        raise ValueError(f"target_words must be positive, got {target_words}")
    counts = [count_words(s, lang) for s in segments]
    chunks: list[tuple[int, int]] = []
    start, words = 0, 0
    for i, n in enumerate(counts):
        if i > start and n and abs(words + n - target_words) >= abs(words - target_words):
            chunks.append((start, i))
            start, words = i, 0
        words += n
    if segments:
        chunks.append((start, len(segments)))
    if len(chunks) >= 2:
        (a, b), (_, end) = chunks[-2], chunks[-1]
        previous, tail = sum(counts[a:b]), sum(counts[b:end])
        if abs(previous + tail - target_words) < abs(tail - target_words):
            chunks[-2:] = [(a, end)]
    return chunks


class Slot(NamedTuple):
    """One reader reads one document, starting with version 1 or 2."""

    reader: str
    document: str
    first_version: int  # 1 or 2


def counterbalance(readers: list[str], documents: list[str], readers_per_document: int = 2,
                   documents_per_reader: int = 2, seed: int = 0) -> list[Slot]:
    """Assign readers to documents and reading orders, balanced both ways.

    Every document gets exactly ``readers_per_document`` distinct readers, split
    between the two orders as evenly as possible (the counts differ by at most
    one); each reader's documents are split between the orders as evenly as
    possible too, and so is the whole design. Readers' loads differ by at most
    one and never exceed ``documents_per_reader``; everyone gets exactly that
    many when ``len(documents) * readers_per_document == len(readers) *
    documents_per_reader``. ValueError when the design is impossible.

    Which reader gets which document and order is drawn with ``seed``; the same
    seed gives the same design. Slots come in the order of ``documents``, then
    of ``readers``.
    """
    _check_names(readers, "readers")
    _check_names(documents, "documents")
    per_doc, per_reader = readers_per_document, documents_per_reader
    for name, value in (("readers_per_document", per_doc), ("documents_per_reader", per_reader)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not documents:
        return []
    if per_doc > len(readers):
        raise ValueError(f"{per_doc} readers per document, but there are only {len(readers)} readers "
                         "(a reader cannot read the same document twice)")
    needed, available = len(documents) * per_doc, len(readers) * per_reader
    if needed > available:
        raise ValueError(f"{len(documents)} documents x {per_doc} readers each need {needed} readings, but "
                         f"{len(readers)} readers x {per_reader} documents each allow only {available}: "
                         "add readers or raise documents_per_reader")
    rng = random.Random(seed)
    shuffled_readers, shuffled_docs = list(readers), list(documents)
    rng.shuffle(shuffled_readers)
    rng.shuffle(shuffled_docs)
    # Walking the readers cyclically gives each document consecutive, hence distinct,
    # readers (per_doc <= readers) and every reader floor or ceil of needed/readers documents.
    pairs = [(shuffled_readers[(d * per_doc + j) % len(readers)], doc)
             for d, doc in enumerate(shuffled_docs) for j in range(per_doc)]
    colours = _balanced_two_colouring(pairs, rng)
    reader_rank = {r: i for i, r in enumerate(readers)}
    doc_rank = {d: i for i, d in enumerate(documents)}
    slots = [Slot(r, d, 1 + c) for (r, d), c in zip(pairs, colours)]
    return sorted(slots, key=lambda s: (doc_rank[s.document], reader_rank[s.reader]))


def _check_names(names: Sequence[str], what: str) -> None:
    repeated = [n for n, c in Counter(names).items() if c > 1]
    if repeated:
        raise ValueError(f"{what} must be distinct; repeated: {', '.join(map(str, repeated))}")


def _balanced_two_colouring(pairs: list[tuple[str, str]], rng: random.Random) -> list[int]:
    """Colour reader-document edges 0/1 so each reader and each document has balanced colours (±1).

    Every bipartite graph has such a colouring. Odd-degree documents are joined to
    a dummy reader and odd-degree readers to a dummy document (and the two dummies
    to each other when both are odd), so that every degree is even while the graph
    stays bipartite. Each component then has an Euler circuit of even length, and
    colouring its edges alternately gives every vertex as many edges of each
    colour. Dropping the dummy edges costs each real vertex at most one edge. The
    dummy reader's own balance also keeps the design's total within one.
    """
    dummy_reader, dummy_doc = ("reader", None), ("document", None)
    edges: list[tuple[tuple[str, Hashable], tuple[str, Hashable]]] = [
        (("reader", r), ("document", d)) for r, d in pairs]
    degree: Counter = Counter()
    for a, b in edges:
        degree[a] += 1
        degree[b] += 1
    odd = [v for v in degree if degree[v] % 2]  # insertion order: deterministic
    edges += [(dummy_reader, v) for v in odd if v[0] == "document"]
    edges += [(v, dummy_doc) for v in odd if v[0] == "reader"]
    if sum(1 for v in odd if v[0] == "document") % 2:
        edges.append((dummy_reader, dummy_doc))

    incident: dict[tuple[str, Hashable], list[int]] = defaultdict(list)
    for e, (a, b) in enumerate(edges):
        incident[a].append(e)
        incident[b].append(e)
    used = [False] * len(edges)
    colour = [0] * len(edges)
    for vertex in list(incident):
        circuit = _euler_circuit(vertex, edges, incident, used)
        first = rng.randrange(2)
        for position, e in enumerate(circuit):
            colour[e] = (first + position) % 2
    return colour[:len(pairs)]


def _euler_circuit(start: tuple[str, Hashable], edges: list, incident: dict, used: list[bool]) -> list[int]:
    """Hierholzer: the unused edges of ``start``'s component as one closed trail (every degree even)."""
    stack: list[tuple[tuple[str, Hashable], int | None]] = [(start, None)]
    position: dict = defaultdict(int)
    circuit: list[int] = []
    while stack:
        vertex, arrived_by = stack[-1]
        around = incident[vertex]
        while position[vertex] < len(around) and used[around[position[vertex]]]:
            position[vertex] += 1
        if position[vertex] < len(around):
            e = around[position[vertex]]
            used[e] = True
            a, b = edges[e]
            stack.append((b if a == vertex else a, e))
        else:
            stack.pop()
            if arrived_by is not None:
                circuit.append(arrived_by)
    return circuit
