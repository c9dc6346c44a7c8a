"""Run by test_core_migration.py with the OLD code (commit f40ba2c, before the protocol core), never by pytest.

``python migration_old_world.py build OUT URL``: migrates URL to the old head (mqm01), builds two MQM
campaigns through the old services and API with the old test helpers (one released, one still open),
and writes what the old code shows of them into OUT: the exports, the results, the release snapshot,
the leaderboard's MQM info, the progress numbers, and facts.json (ids, users, invite secrets, items).

``python migration_old_world.py export OUT URL``: only writes those files again (a database that went
up to the protocol core and back down must show exactly the same).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

NOTE = "zu steif – «Straße» ≠ 'street' ✓ 日本語 🙂"


def dump(value) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False, indent=1)


def progress_numbers(p: dict) -> dict:
    """progress() without its ORM objects: every number and state it shows.

    ("pace", the reading-pace flag, and "reading" are new with the core: computed, not stored, so not compared.)
    """
    anns = [{**{k: v for k, v in a.items() if k not in ("annotator", "user", "last_active", "pace")},
             "email": a["user"].email, "last_active": a["last_active"].isoformat() if a["last_active"] else None}
            for a in p["annotators"]]
    items = [{"item_id": i["item"].id, "system": i["system"], "range": i["range"],
              "assignments": [{**{k: v for k, v in a.items() if k != "assignment"},
                               "public_id": a["assignment"].public_id} for a in i["assignments"]]}
             for i in p["items"]]
    return {"annotators": anns, "items": items, "total": p["total"], "finished": p["finished"]}


def write_views(out: Path, facts: dict) -> None:
    from enface.campaigns import services as svc

    for name, cid in facts["campaigns"].items():
        camp = svc.get_campaign(cid)
        (out / f"{name}.tsv").write_text(svc.export_tsv(camp), encoding="utf-8")
        (out / f"{name}.json").write_text(svc.export_json(camp), encoding="utf-8")
        (out / f"{name}.results.json").write_text(dump(svc.compute_results(camp)), encoding="utf-8")
        (out / f"{name}.progress.json").write_text(dump(progress_numbers(svc.progress(camp))), encoding="utf-8")
        (out / f"{name}.snapshot.json").write_text(dump(camp.results), encoding="utf-8")
    (out / "leaderboard_mqm.json").write_text(dump(svc.leaderboard_mqm(facts["testset_id"])), encoding="utf-8")


def annotate(world, cid: int, email: str, plan: dict, *, find_checks: bool, finish_upto: int,
             delete_one: bool = False) -> None:
    """plan: {assignment index: [mark bodies]}; "NT" is a Non-translation over segment 1.
    Items 0..finish_upto-1 are read and finished; the next one is half read; the rest are untouched."""
    from campaign_helpers import assignments_of, finish, put_mark, read_all

    c = world.client(email)
    mine = assignments_of(world, cid, email)
    for index, bodies in plan.items():
        pid = mine[index]["public_id"]
        for body in bodies:
            if body == "NT":
                target = c.get(f"/annotate/api/items/{pid}").get_json()["segments"][1]["target"]
                body = {"seg": 1, "start": 0, "end": len(target), "category": "Non-translation",
                        "severity": "Critical"}
            r, _uid = put_mark(c, pid, body)
            assert r.status_code == 200, r.get_json()
    if delete_one:   # a mark saved, changed, then deleted: a tombstone
        pid = mine[0]["public_id"]
        r, uid = put_mark(c, pid, {"seg": 0, "start": 0, "end": 3, "category": "Style",
                                   "subcategory": "Unidiomatic", "severity": "Minor", "note": "gone"})
        assert r.status_code == 200
        r, _ = put_mark(c, pid, {"seg": 0, "start": 0, "end": 3, "category": "Style",
                                 "subcategory": "Unidiomatic", "severity": "Major", "note": "gone"}, uid=uid, rev=2)
        assert r.status_code == 200
        assert c.delete(f"/annotate/api/items/{pid}/marks/{uid}", json={"rev": 3}).status_code == 200
    for a in mine:
        if find_checks and a["attention_seg"] is not None:
            r, _ = put_mark(c, a["public_id"], {"seg": a["attention_seg"], "start": a["attention_start"],
                                                "end": a["attention_end"], "category": "Accuracy",
                                                "subcategory": "Mistranslation", "severity": "Major"})
            assert r.status_code == 200, r.get_json()
    for k, a in enumerate(mine):
        n = a["segments"]
        times = {str(s): 1500 + 250 * s + 10 * k for s in range(n)}
        if k < finish_upto:
            r = c.post(f"/annotate/api/items/{a['public_id']}/progress",
                       json={"cursor": n - 1, "furthest": n - 1, "times": times})
            assert r.status_code == 200, r.get_json()
            assert read_all(c, a["public_id"], n).status_code == 200
            r = finish(c, a["public_id"])
            assert r.status_code == 200, r.get_json()
        elif k == finish_upto and n > 1:
            r = c.post(f"/annotate/api/items/{a['public_id']}/progress",
                       json={"cursor": 0, "furthest": 0, "times": {"0": 999}})
            assert r.status_code == 200, r.get_json()


def build(out: Path, url: str) -> None:
    from campaign_helpers import assignments_of, build_world, new_campaign
    from enface import create_app
    from enface.campaigns import services as svc
    from enface.config import TestConfig
    from enface.migrate import upgrade

    upgrade(url)
    app = create_app(TestConfig.for_dir(out / "data", url))
    world = build_world(app, out, annotators=4)
    major = {"category": "Accuracy", "subcategory": "Mistranslation", "severity": "Major"}

    # A: three annotators (one came by an invite link), redundancy 2, attention checks; released.
    a_id = new_campaign(world, annotators=("ann1@example.org", "ann2@example.org"), redundancy=2, attention=0.5,
                        start=False, seed=11, instructions="Lisez attentivement — «MQM» ✓")
    with world.ctx():
        (_inv, used), (_inv2, unused_a) = svc.create_invites(svc.get_campaign(a_id), count=2, label="Équipe Ω")
    c3 = world.client("ann3@example.org")
    assert c3.get(f"/annotate/join/{used}").status_code == 200
    assert c3.post(f"/annotate/join/{used}").status_code == 302
    with world.ctx():
        svc.start_campaign(svc.get_campaign(a_id))
    annotate(world, a_id, "ann1@example.org", {
        0: [{"seg": 0, "start": 4, "end": 8, **major, "note": NOTE}],
        1: ["NT"],
        2: [{"seg": 0, "side": "source", "start": 4, "end": 7, "category": "Accuracy", "subcategory": "Omission",
             "severity": "Critical"}],
    }, find_checks=True, finish_upto=3, delete_one=True)
    annotate(world, a_id, "ann2@example.org", {
        0: [{"seg": 1, "start": 0, "end": 8, "category": "Fluency", "subcategory": "Spelling", "severity": "Minor"}],
        2: [{"seg": 2, "start": 0, "end": 3, "category": "Others", "severity": "Neutral", "note": "ok?"}],
    }, find_checks=False, finish_upto=10)
    annotate(world, a_id, "ann3@example.org", {
        0: [{"seg": 0, "start": 0, "end": 5, "category": "Style", "subcategory": "Awkwardness", "severity": "Minor",
             "note": "Ünïcödé ‐ note"}],
        1: [{"seg": 1, "start": 2, "end": 6, **major}],
    }, find_checks=True, finish_upto=1)

    # B: still open, another scheme and settings, redundancy 1; an unused invite.
    b_id = new_campaign(world, annotators=("ann1@example.org", "ann4@example.org"), redundancy=1, attention=0.3,
                        systems=["zephyr-mt", "quokka-nmt-c"], scheme="google-mqm", source_words="whitespace",
                        attention_kind="words", significance_unit="doc", seed=5)
    annotate(world, b_id, "ann4@example.org", {
        0: [{"seg": 0, "start": 0, "end": 3, **major, "note": "B — première"}],
        1: [{"seg": 1, "start": 1, "end": 4, "category": "Fluency", "subcategory": "Grammar", "severity": "Minor"}],
    }, find_checks=True, finish_upto=1)
    annotate(world, b_id, "ann1@example.org", {}, find_checks=False, finish_upto=1)
    with world.ctx():
        [(_inv3, unused_b)] = svc.create_invites(svc.get_campaign(b_id), count=1, label="later", max_uses=3)
        svc.release(svc.get_campaign(a_id))
        facts = {"url": url, "testset_id": world.testset_id, "campaigns": {"A": a_id, "B": b_id},
                 "users": world.users, "subs": world.subs,
                 "invites": {"used": used, "unused_a": unused_a, "unused_b": unused_b},
                 "assignments": {name: {email: assignments_of(world, cid, email)
                                        for email in [a.user.email for a in svc.get_campaign(cid).annotators]}
                                 for name, cid in (("A", a_id), ("B", b_id))}}
        assert facts["assignments"]["A"]["ann3@example.org"], "ann3 joined A by the invite"
        write_views(out, facts)
    for name, secret in facts["invites"].items():
        facts.setdefault("join_status", {})[name] = app.test_client().get(f"/annotate/join/{secret}").status_code
    (out / "facts.json").write_text(json.dumps(facts, indent=1, ensure_ascii=False), encoding="utf-8")
    app.extensions["enface_db"][0].dispose()



def export(out: Path, url: str) -> None:
    from enface import create_app
    from enface.config import TestConfig

    facts = json.loads((out / "facts.json").read_text(encoding="utf-8"))
    app = create_app(TestConfig.for_dir(out / "data", url))
    with app.app_context():
        write_views(out, facts)
    # then new rows in every old table: their ids must go past the carried-back ones (PostgreSQL's sequences)
    from campaign_helpers import World, new_campaign
    from enface.campaigns import services as svc

    world = World(app=app, testset_id=facts["testset_id"], subs=facts["subs"], users=facts["users"])
    cid = new_campaign(world, annotators=("ann3@example.org", "ann4@example.org"), attention=0.5)
    with app.app_context():
        [(inv, _secret)] = svc.create_invites(svc.get_campaign(cid), count=1)
        camp = svc.get_campaign(cid)
        assert cid > max(facts["campaigns"].values()) and camp.items and camp.state == "open"
        old_assignments = [a["id"] for per in facts["assignments"].values() for mine in per.values() for a in mine]
        assert min(a.id for item in camp.items for a in item.assignments) > max(old_assignments)
        assert inv.id > len(facts["invites"])
    app.extensions["enface_db"][0].dispose()


if __name__ == "__main__":
    mode, folder, database = sys.argv[1:4]
    {"build": build, "export": export}[mode](Path(folder), database)
