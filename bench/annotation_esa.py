"""The ESA document page for bench/annotation.py (``--page esa``): an ESA^AI campaign and its annotators.

The same annotators get an ESA campaign beside the MQM one, with suggestions uploaded for every
segment (one minor span on the first word: the ESA^AI page's pre-filled spans), and save as the
ESA page does: one answer record per segment (PUT of the core's responses, a fresh revision each
time) whose spans keep, edit or delete the suggestion, add a span of the annotator's own, and
whose score moves on the slider; and the reading clock (POST progress).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
import uuid


def setup_esa(org, ts, subs: list[int], anns: list, ranges: str, seed: int) -> dict[str, list[dict]]:
    """Creates and starts the ESA^AI campaign; returns {email: [{id, segments, targets, suggestions}]}."""
    from enface.campaigns import services as svc
    from enface.protocols.esa.suggestions.page import assignment_suggestions
    from enface.protocols.esa.suggestions.source import upload_file
    from enface.protocols.esa.suggestions.targets import campaign_targets
    from enface.protocols.esa.texts import segment_texts

    camp = svc.create_campaign(org, ts, svc.CampaignInput(
        name="Bench ESA^AI", submission_ids=subs, redundancy=2, protocol="esa", strategy="redundancy", ranges=ranges,
        seed=seed,
        settings={"attention_share": 0.0}))
    lines = []
    for t in campaign_targets(svc.get_campaign(camp.id)):
        word = re.match(r"\S+", t.translation)
        spans = [{"start": word.start(), "end": word.end(), "severity": "minor"}] if word else []
        lines.append(json.dumps({"item": t.item, "system": t.system, "spans": spans, "score": 70}))
    upload_file(svc.get_campaign(camp.id), "bench.jsonl", ("\n".join(lines) + "\n").encode())
    for user in anns:
        svc.add_annotator(svc.get_campaign(camp.id), user)
    svc.start_campaign(svc.get_campaign(camp.id))
    out = {}
    for user in anns:
        out[user.email] = [{"id": a.public_id, "segments": a.item.num_segments,
                            "targets": [s["target"] for s in segment_texts(a)],
                            "suggestions": assignment_suggestions(a, segment_texts(a))}
                           for a in svc.annotator_assignments(user) if a.item.campaign_id == camp.id]
    return out


def _record(rng: random.Random, text: str, suggested: list[dict], mine: dict | None) -> tuple[dict, list[dict]]:
    """The next answer record of a segment: the suggestion kept, edited or deleted, maybe a span of one's own."""
    spans = []
    for s in suggested:
        roll = rng.random()
        if roll < 0.5:
            spans.append({**s, "provenance": "kept", "suggestion": s})
        elif roll < 0.8:
            spans.append({**s, "severity": "major", "provenance": "edited", "suggestion": s})
        else:
            spans.append({**s, "provenance": "deleted", "suggestion": s})
    taken = max((s["end"] for s in suggested if isinstance(s["end"], int)), default=-1)
    if mine is None and len(text) > taken + 3 and rng.random() < 0.5:
        start = rng.randrange(taken + 1, len(text) - 1)
        mine = {"start": start, "end": min(len(text) - 1, start + rng.randint(0, 8)), "severity": "minor",
                "provenance": "human", "suggestion": None}
    if mine is not None:
        spans.append(mine)
    now = int(time.time() * 1000)
    return {"score": rng.randint(0, 100), "spans": spans, "started_ms": now - 5000, "ended_ms": now}, (
        [mine] if mine else [])


def esa_annotator(base: str, user: dict, saves: int, seed: int, barrier: threading.Barrier, out: list,
                  errors: list, think: float = 0.0):
    """One annotator on the ESA page: the page, the reading clock, then ``saves`` save requests."""
    from annotation import open_item, timed

    rng = random.Random(seed)
    opened = open_item(base, user, user["esa_items"], barrier, errors)
    if opened is None:
        return
    s, headers, item = opened
    api = f"{base}/annotate/api/items/{item['id']}"
    n_segs = item["segments"]
    times = {str(k): 120_000 for k in range(n_segs)}      # every segment read (the dwell rule) before scoring
    r = s.post(f"{api}/progress", json={"cursor": 0, "furthest": n_segs - 1, "times": times}, headers=headers,
               timeout=60)
    if r.status_code != 200:
        errors.append(f"{user['email']}: ESA progress {r.status_code}")
        barrier.abort()
        return
    records: dict[int, list] = {}                           # seg -> [uuid, rev, own span]
    try:
        barrier.wait(timeout=60)
    except threading.BrokenBarrierError:
        return
    for n in range(saves):
        if think:
            time.sleep(rng.expovariate(1 / think))
        seg = rng.randrange(n_segs)
        if n % 6 == 5:
            kind, method, url = "progress", "POST", f"{api}/progress"
            body = {"cursor": seg, "furthest": n_segs - 1, "times": times}
        else:
            uid, rev, mine = records.get(seg, [str(uuid.uuid4()), 0, None])
            data, own = _record(rng, item["targets"][seg], item["suggestions"].get(str(seg), []), mine)
            records[seg] = [uid, rev + 1, own[0] if own else None]
            kind, method, url = "segment", "PUT", f"{api}/responses/{uid}"
            body = {"rev": rev + 1, "kind": "segment", "key": str(seg), "data": data}
        out.append((kind, timed(s, method, url, body, headers, f"{user['email']} {kind}", errors), n))
