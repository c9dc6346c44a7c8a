"""Migration ux01: an empty opening now means closed; test sets from before keep their window."""

from __future__ import annotations

from enface.migrate import alembic_config
from sqlalchemy import create_engine, text


def test_existing_test_sets_stay_open_and_closed_ones_stay_closed_on_the_way_down(tmp_path):
    from alembic import command

    url = f"sqlite:///{tmp_path / 'm.sqlite'}"
    cfg = alembic_config(url)
    command.upgrade(cfg, "core01")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO tasks (id, name, description, created_at) "
                          "VALUES (1, 'T', '', '2026-01-01 00:00:00')"))
        for ts_id, opens in ((1, None), (2, "2026-03-01 00:00:00")):
            conn.execute(text(
                "INSERT INTO testsets (id, task_id, name, src_lang, tgt_lang, description, meta, num_documents, "
                "num_segments, num_refs, fingerprint, opens_at, document_level_allowed, released, "
                "references_public, scores_version, created_at) VALUES (:id, 1, :name, 'en', 'de', '', '{}', 0, 0, "
                "0, '', :opens, 0, 0, 0, 0, '2026-02-01 10:00:00')"), {"id": ts_id, "name": f"ts{ts_id}",
                                                                       "opens": opens})
    command.upgrade(cfg, "ux01")
    with engine.connect() as conn:
        rows = dict(conn.execute(text("SELECT id, opens_at FROM testsets")).all())
    assert str(rows[1]).startswith("2026-02-01 10:00:00")      # was open at once: opens at its creation
    assert str(rows[2]).startswith("2026-03-01 00:00:00")      # a set opening is kept
    # A test set closed under ux01 (no opening) stays closed after a downgrade (far-future opening).
    with engine.begin() as conn:
        conn.execute(text("UPDATE testsets SET opens_at = NULL WHERE id = 2"))
    command.downgrade(cfg, "core01")
    with engine.connect() as conn:
        rows = dict(conn.execute(text("SELECT id, opens_at FROM testsets")).all())
    assert str(rows[2]).startswith("9999-12-31") and str(rows[1]).startswith("2026-02-01 10:00:00")
    engine.dispose()
