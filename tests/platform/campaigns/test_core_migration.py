"""Migration core01 (MQM-only campaign tables -> the protocol core) loses nothing.

The OLD code (commit f40ba2c, the last before the core) is taken out of git and run in a subprocess
(migration_old_world.py beside this file, run in the old tree, whose helpers were tests/campaigns/campaign_helpers.py): it builds a database at revision mqm01 with two realistic
MQM campaigns through the old services and API (one released, one open) and writes what it shows of
them. The database is then upgraded to head and the NEW code must show exactly the same, byte for
byte; the downgrade must give back the old tables' rows unchanged, and the old code must again show
the same. SQLite always; PostgreSQL too when ENFACE_TEST_POSTGRES_URL is set.

Without git or without that commit (a shallow clone) the tests skip, and fail under
ENFACE_STRICT_SERVICES=1 (CI has a full clone).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from migration_old_world import dump, progress_numbers

from tests.support.campaigns import World, put_mark, require_service

ROOT = Path(__file__).resolve().parents[3]
OLD_COMMIT = "f40ba2c"
OLD_PATHS = ("platform", "mqm", "scoring", "migrations", "alembic.ini", "tests", "templates")
OLD_TABLES = ("mqm_campaigns", "mqm_campaign_systems", "mqm_campaign_invites", "mqm_campaign_annotators",
              "mqm_items", "mqm_assignments", "mqm_marks")
MQM_SETTINGS = ("scheme", "attention_share", "attention_kind", "source_words", "significance_unit")
VIEWS = [f"{c}.{kind}" for c in "AB" for kind in ("tsv", "json", "results.json", "progress.json",
                                                      "snapshot.json")] + ["leaderboard_mqm.json"]
PG_URL = (os.environ.get("ENFACE_TEST_POSTGRES_URL", "").strip()
          or next((u for u in [os.environ.get("ENFACE_TEST_DATABASE_URL", "").strip()]
                   if u.startswith("postgresql")), ""))

pytestmark = pytest.mark.slow


# --------------------------------------------------------------------------- the old tree and its database


def _old_tree(dest: Path) -> Path:
    """The old code at OLD_COMMIT, extracted into ``dest`` (skips without git or the commit)."""
    git = shutil.which("git")
    require_service(git is not None, "git is not installed: the old code cannot be extracted")
    has = subprocess.run([git, "-C", str(ROOT), "cat-file", "-e", f"{OLD_COMMIT}^{{commit}}"],
                         capture_output=True)
    require_service(has.returncode == 0, f"commit {OLD_COMMIT} (before the protocol core) is not in this "
                                         "checkout (a shallow clone?): the migration cannot be replayed")
    archive = subprocess.run([git, "-C", str(ROOT), "archive", OLD_COMMIT, *OLD_PATHS], capture_output=True)
    assert archive.returncode == 0, archive.stderr.decode()
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    shutil.copy(Path(__file__).with_name("migration_old_world.py"), dest / "migration_old_world.py")
    return dest


def _run_old(old: Path, mode: str, out: Path, url: str) -> None:
    # the old code, and the old tests' campaign_helpers (which the script imports)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(old / "platform"), str(old),
                                                        str(old / "tests" / "campaigns")])}
    r = subprocess.run([sys.executable, str(old / "migration_old_world.py"), mode, str(out), url], cwd=old,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"the old code failed ({mode}):\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"


class Postgres:
    def __init__(self, url: str):
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        self.url, self.text = make_url(url), text
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT", pool_size=1)
        self.names: list[str] = []

    def create(self, template: str | None = None) -> tuple[str, str]:
        name = f"enface_mig_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as conn:
            conn.execute(self.text(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")))
        self.names.append(name)
        return name, self.url.set(database=name).render_as_string(hide_password=False)

    def close(self) -> None:
        with self.admin.connect() as conn:
            for name in reversed(self.names):
                conn.execute(self.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        self.admin.dispose()


@dataclass
class OldWorld:
    backend: str
    old: Path                  # the old tree
    out: Path                  # what the old code wrote (views, facts.json)
    facts: dict
    tables: dict               # the old tables' rows, as the old code left them
    schema: dict               # every table's columns, keys, indexes and checks at mqm01
    source: str                # the SQLite file or the PostgreSQL template database
    pg: Postgres | None = None

    def fresh_url(self, folder: Path) -> str:
        if self.pg is not None:
            return self.pg.create(template=self.source)[1]
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.source, folder / "enface.sqlite")
        return f"sqlite:///{folder / 'enface.sqlite'}"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def old_world(request, tmp_path_factory):
    backend = request.param
    if backend == "postgresql":
        require_service(bool(PG_URL), "ENFACE_TEST_POSTGRES_URL is not set: the migration is replayed on SQLite only")
    old = _old_tree(tmp_path_factory.mktemp("old-tree"))
    out = tmp_path_factory.mktemp("old-world")
    pg = Postgres(PG_URL) if backend == "postgresql" else None
    try:
        if pg is not None:
            source, url = pg.create()
        else:
            source = str(out / "enface.sqlite")
            url = f"sqlite:///{source}"
        _run_old(old, "build", out, url)
        yield OldWorld(backend, old, out, json.loads((out / "facts.json").read_text(encoding="utf-8")),
                       _rows(url, OLD_TABLES), _schema(url), source, pg)
    finally:
        if pg is not None:
            pg.close()


# --------------------------------------------------------------------------- reading databases raw


def _engine(url: str):
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    return create_engine(url, poolclass=NullPool)


def _rows(url: str, tables) -> dict[str, list[dict]]:
    """Every row of ``tables`` as the driver returns it (SQLite: the stored text of dates and JSON)."""
    from sqlalchemy import inspect, text

    engine = _engine(url)
    try:
        with engine.connect() as conn:
            out = {}
            for table in tables:
                key = ", ".join(inspect(conn).get_pk_constraint(table)["constrained_columns"])
                out[table] = [dict(r) for r in conn.execute(text(f"SELECT * FROM {table} ORDER BY {key}")).mappings()]
            return out
    finally:
        engine.dispose()


def _schema(url: str) -> dict:
    from sqlalchemy import inspect

    engine = _engine(url)
    try:
        insp = inspect(engine)
        out = {}
        for table in sorted(insp.get_table_names()):
            if table == "alembic_version":
                continue
            out[table] = {
                "columns": [(c["name"], repr(c["type"]), c["nullable"]) for c in insp.get_columns(table)],
                "pk": insp.get_pk_constraint(table)["constrained_columns"],
                "fks": sorted((fk["name"], tuple(fk["constrained_columns"]), fk["referred_table"],
                               tuple(fk["referred_columns"]), fk.get("options", {}).get("ondelete"))
                              for fk in insp.get_foreign_keys(table)),
                "unique": sorted((u["name"], tuple(u["column_names"])) for u in insp.get_unique_constraints(table)),
                "indexes": sorted((i["name"], tuple(i["column_names"]), bool(i["unique"]))
                                  for i in insp.get_indexes(table)),
                "checks": sorted((c["name"], " ".join(c["sqltext"].split()))
                                 for c in insp.get_check_constraints(table)),
            }
        return out
    finally:
        engine.dispose()


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the tests


def test_upgrade_keeps_every_row_view_link_and_item(old_world, tmp_path):
    from enface import create_app
    from enface.campaigns import services as svc
    from enface.campaigns.models import Campaign
    from enface.config import TestConfig
    from enface.extensions import db
    from enface.migrate import upgrade
    from enface.protocols.mqm import services as mqm_svc
    from enface.protocols.mqm.models import AttentionCheck, Mark
    from enface.services import leaderboard
    from sqlalchemy import func, select

    facts, old = old_world.facts, old_world.tables
    url = old_world.fresh_url(tmp_path / "data")
    upgrade(url)

    # ---- every row, raw: same ids, same values
    new = _rows(url, ("campaigns", "campaign_versions", "campaign_invites", "campaign_annotators", "campaign_items",
                      "campaign_item_versions", "campaign_assignments", "mqm_attention_checks", "mqm_marks",
                      "campaign_responses"))
    shared = ("id", "testset_id", "name", "redundancy", "instructions", "ranges", "seed", "state", "created_by_id",
              "created_at", "started_at", "closed_at", "released_at", "results")
    assert len(new["campaigns"]) == len(old["mqm_campaigns"]) == 2
    for o, n in zip(old["mqm_campaigns"], new["campaigns"], strict=True):
        assert {k: n[k] for k in shared} == {k: o[k] for k in shared}
        assert (n["protocol"], n["strategy"]) == ("mqm", "redundancy")
        assert _json(n["settings"]) == {k: o[k] for k in MQM_SETTINGS}
    assert [(r["id"], r["campaign_id"], r["submission_id"], r["reference"], r["position"])
            for r in new["campaign_versions"]] == [(r["id"], r["campaign_id"], r["submission_id"], None, r["position"])
                                                   for r in old["mqm_campaign_systems"]]
    assert new["campaign_invites"] == old["mqm_campaign_invites"] and len(new["campaign_invites"]) == 3
    assert new["campaign_annotators"] == old["mqm_campaign_annotators"] and len(new["campaign_annotators"]) == 5
    assert [r for r in old["mqm_campaign_annotators"] if r["invite_id"] is not None], "one joined by an invite"
    version_sub = {r["id"]: r["submission_id"] for r in new["campaign_versions"]}
    item_sub = {r["item_id"]: version_sub[r["version_id"]] for r in new["campaign_item_versions"] if r["slot"] == 1}
    assert len(new["campaign_item_versions"]) == len(new["campaign_items"])
    assert [{**r, "submission_id": item_sub[r["id"]]} for r in new["campaign_items"]] == old["mqm_items"]
    attention = {f"attention_{k}": k for k in ("seg", "kind", "text", "start", "end", "result")}
    plain = [{k: v for k, v in r.items() if k not in attention} for r in old["mqm_assignments"]]
    assert [{k: v for k, v in r.items() if k not in ("stage", "opens_at", "plan")}
            for r in new["campaign_assignments"]] == plain
    assert {(r["stage"], r["opens_at"], str(_json(r["plan"]))) for r in new["campaign_assignments"]} == {(0, None, "{}")}
    checks = [{"assignment_id": r["id"], "seg": r["attention_seg"], "kind": r["attention_kind"],
               "text": r["attention_text"], "start_pos": r["attention_start"], "end_pos": r["attention_end"],
               "result": r["attention_result"]} for r in old["mqm_assignments"] if r["attention_seg"] is not None]
    assert new["mqm_attention_checks"] == checks
    assert {c["result"] for c in checks} == {"found", "missed", None}    # found, missed and not yet finished
    assert new["mqm_marks"] == old["mqm_marks"] and any(m["deleted"] for m in new["mqm_marks"])
    assert new["campaign_responses"] == []
    assert {r["state"] for r in plain} == {"pending", "started", "finished"}

    # ---- the new code shows exactly what the old code showed
    app = create_app(TestConfig.for_dir(tmp_path / "data", url))
    try:
        with app.app_context():
            views = {}
            for name, cid in facts["campaigns"].items():
                camp = svc.get_campaign(cid)
                assert camp.protocol == "mqm"
                assert camp.settings == {k: o[k] for o in old["mqm_campaigns"] if o["id"] == cid for k in MQM_SETTINGS}
                views[f"{name}.tsv"] = mqm_svc.export_tsv(camp)
                views[f"{name}.json"] = mqm_svc.export_json(camp)
                views[f"{name}.results.json"] = dump(mqm_svc.compute_results(camp))
                views[f"{name}.progress.json"] = dump(progress_numbers(mqm_svc.progress(camp)))
                views[f"{name}.snapshot.json"] = dump(camp.results)
            released = svc.released_campaign(facts["testset_id"])
            assert released is not None and released.id == facts["campaigns"]["A"]
            views["leaderboard_mqm.json"] = dump(mqm_svc.leaderboard_mqm(released))
            for view in VIEWS:
                if view.endswith(".results.json"):   # issue 10 ranks all systems together: see _same_results
                    _same_results(views[view], _read(old_world.out / view), view)
                    continue
                assert views[view] == _read(old_world.out / view), f"{view} differs after the upgrade"
            assert "Non-translation" in views["A.tsv"] and "日本語" in views["A.tsv"]
            assert json.loads(views["A.snapshot.json"])["systems"] and views["B.snapshot.json"] == "null"
            assert db.session.scalar(select(func.count(Mark.id))) == len(old["mqm_marks"])
            assert db.session.scalar(select(func.count()).select_from(AttentionCheck)) == len(checks)

        # ---- invite links: the stored hashes still open (or refuse) the same links
        anon = app.test_client()
        for name, secret in facts["invites"].items():
            assert anon.get(f"/annotate/join/{secret}").status_code == facts["join_status"][name], name
        assert anon.get("/annotate/join/inv_bogus").status_code == 404
        world = World(app=app, testset_id=facts["testset_id"], subs=facts["subs"], users=facts["users"])
        ann2 = world.client("ann2@example.org")
        assert ann2.post(f"/annotate/join/{facts['invites']['unused_b']}").status_code == 302
        with app.app_context():
            b = svc.get_campaign(facts["campaigns"]["B"])
            assert "ann2@example.org" in [a.user.email for a in b.annotators]
            assert [i.uses for i in b.invites] == [1]
            assert max(a.id for a in b.annotators) > max(r["id"] for r in old["mqm_campaign_annotators"])

        # ---- every annotator still opens their items; an unfinished one still takes a new mark
        for name, per_user in facts["assignments"].items():
            for email, items in per_user.items():
                c = world.client(email)
                for a in items:
                    r = c.get(f"/annotate/item/{a['public_id']}")
                    assert r.status_code == 200, (name, email, a["number"], r.status_code)
                    api = c.get(f"/annotate/api/items/{a['public_id']}").get_json()
                    assert len(api["segments"]) == a["segments"]
        ann1 = world.client("ann1@example.org")
        rows = {r["public_id"]: r for r in old["mqm_assignments"]}
        todo = next(a for a in facts["assignments"]["B"]["ann1@example.org"] if rows[a["public_id"]]["state"] != "finished")
        r, uid = put_mark(ann1, todo["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Accuracy",
                                                    "subcategory": "Mistranslation", "severity": "Minor",
                                                    "note": "nach dem Upgrade ✓"})
        assert r.status_code == 200, r.get_json()
        marks = [m for m in ann1.get(f"/annotate/api/items/{todo['public_id']}").get_json()["marks"]
                 if not m["deleted"]]
        assert [m["uuid"] for m in marks] == [uid]
        # a finished item of the released campaign stays locked, as before
        done = next(a for a in facts["assignments"]["A"]["ann1@example.org"] if rows[a["public_id"]]["state"] == "finished")
        r, _ = put_mark(ann1, done["public_id"], {"seg": 0, "start": 0, "end": 3, "category": "Style",
                                                  "subcategory": "Unidiomatic", "severity": "Minor"})
        assert r.status_code == 409

        # ---- new rows after the upgrade: a new campaign (ids past the carried-over ones: sequences moved on)
        from tests.support.campaigns import new_campaign

        cid = new_campaign(world, annotators=("ann3@example.org", "ann4@example.org"), attention=0.5)
        with app.app_context():
            assert cid > max(r["id"] for r in old["mqm_campaigns"])
            camp = db.session.get(Campaign, cid)
            assert camp.state == "open" and camp.items and camp.invites == []
    finally:
        app.extensions["enface_db"][0].dispose()
        leaderboard.clear_cache()


def _same_results(new: str, old: str, view: str) -> None:
    """Live results after the upgrade: everything as before but the ranking, which issue 10 changed on
    purpose from one ranking per group ("groups", "order" group by group) to one across all systems
    ("ranking", "order" by score): the same systems with the same scores, best first."""
    new_res, old_res = json.loads(new), json.loads(old)
    new_ranking, old_groups = new_res.pop("ranking"), old_res.pop("groups")
    new_order, old_order = new_res.pop("order"), old_res.pop("order")
    assert sorted(new_order) == sorted(old_order), view
    scored = [s for s in new_order if new_res["systems"][s]["score"] is not None]
    assert scored == sorted(scored, key=lambda s: new_res["systems"][s]["score"],
                            reverse=new_res["higher_is_better"]), view
    assert "groups" not in new_res and dump(new_res) == dump(old_res), f"{view} differs after the upgrade"
    old_rows = {r["system"]: r["score"] for g in old_groups for r in g["rows"]}
    assert {r["system"]: r["score"] for r in (new_ranking or {"rows": []})["rows"]} == old_rows, view
    if new_ranking:
        scores = [r["score"] for r in new_ranking["rows"]]
        assert scores == sorted(scores, reverse=new_res["higher_is_better"]), view


def test_downgrade_gives_back_the_old_tables(old_world, tmp_path):
    from alembic import command
    from enface.migrate import alembic_config, current_revision, upgrade

    url = old_world.fresh_url(tmp_path / "data")
    upgrade(url)
    assert current_revision(url) != "mqm01"
    command.downgrade(alembic_config(url), "mqm01")
    assert current_revision(url) == "mqm01"
    assert _rows(url, OLD_TABLES) == old_world.tables
    assert _schema(url) == old_world.schema
    # and the old code shows exactly what it showed before the round trip
    out = tmp_path / "again"
    out.mkdir()
    shutil.copy(old_world.out / "facts.json", out / "facts.json")
    _run_old(old_world.old, "export", out, url)
    for view in VIEWS:
        assert _read(out / view) == _read(old_world.out / view), f"{view} differs after upgrade + downgrade"
