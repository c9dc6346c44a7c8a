"""phenomena.jsonl through the CLI (enface testset import / phenomena), the web import form and the
test set's page: checked with line-numbered errors, nothing stored when anything is wrong."""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pytest
from click.testing import CliRunner
from rubric_helpers import PHENOMENA_DIR


@pytest.fixture
def cli_env(app, database_url, tmp_path):
    return {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
            "ENFACE_SECRET_KEY": "cli-test"}


def copy_set(tmp_path, phenomena: str | None = None):
    folder = tmp_path / "set"
    shutil.copytree(PHENOMENA_DIR / "testset", folder)
    if phenomena is not None:
        (folder / "phenomena.jsonl").write_text(phenomena, encoding="utf-8")
    return folder


GOOD = json.dumps({"document": "tea-house", "segment": 1, "dimension": "idiom", "requirement": "童叟无欺"},
                  ensure_ascii=False)
BROKEN = [
    ('{"document": "tea-house", "segment": 1,', "phenomena.jsonl:2: not valid JSON"),
    ('{"document": "tea-house", "segment": 2, "dimension": "poetry", "requirement": "x"}',
     "phenomena.jsonl:2: unknown dimension 'poetry'"),
    ('{"document": "tea-house", "segment": 11, "dimension": "idiom", "requirement": "x"}',
     "phenomena.jsonl:2: segment 11 is out of range: 'tea-house' has segments 1-10"),
    ('{"document": "tea-house", "segment": 2, "dimension": "idiom"}', "phenomena.jsonl:2: missing field 'requirement'"),
    ('{"document": "teahouse", "segment": 2, "dimension": "idiom", "requirement": "x"}',
     "phenomena.jsonl:2: unknown document 'teahouse'"),
]


def count(app):
    from enface.extensions import db
    from enface.models import Phenomenon, TestSet
    from sqlalchemy import func, select

    with app.app_context():
        return (db.session.scalar(select(func.count()).select_from(TestSet)),
                db.session.scalar(select(func.count()).select_from(Phenomenon)))


def test_cli_import_stores_the_demo_phenomena(app, cli_env):
    from enface.commands import main

    r = CliRunner().invoke(main, ["testset", "import", str(PHENOMENA_DIR / "testset"), "--task", "T"], env=cli_env)
    assert r.exit_code == 0, r.output
    assert "20 segments, 2 references, 17 phenomena" in r.output
    assert count(app) == (1, 17)
    with app.app_context():
        from enface.extensions import db
        from enface.models import Phenomenon
        from sqlalchemy import select

        p = db.session.scalar(select(Phenomenon).where(Phenomenon.dimension == "tense", Phenomenon.context != ""))
        assert (p.document.name, p.position, p.line) == ("sect-trial", 2, 10)  # segment 3, 0-based 2
        assert p.context == "她才炼气三层，对手却已是筑基初期。"


@pytest.mark.parametrize("bad, message", BROKEN)
def test_cli_import_refuses_a_broken_file_whole(app, cli_env, tmp_path, bad, message):
    from enface.commands import main

    folder = copy_set(tmp_path, GOOD + "\n" + bad + "\n")
    r = CliRunner().invoke(main, ["testset", "import", str(folder), "--task", "T"], env=cli_env)
    assert r.exit_code == 1 and message in r.output, r.output
    assert count(app) == (0, 0)   # the test set is not imported either


def test_cli_reports_every_problem_and_rejects_unknown_rubric(app, cli_env, tmp_path):
    from enface.commands import main

    folder = copy_set(tmp_path, "\n".join(b for b, _ in BROKEN[1:]) + "\n")
    r = CliRunner().invoke(main, ["testset", "import", str(folder), "--task", "T"], env=cli_env)
    assert r.exit_code == 1
    for line, (_, message) in enumerate(BROKEN[1:], start=1):
        assert message.replace(":2:", f":{line}:") in r.output, r.output
    meta = json.loads((folder / "testset.json").read_text(encoding="utf-8"))
    (folder / "testset.json").write_text(json.dumps({**meta, "rubric": "nope"}), encoding="utf-8")
    (folder / "phenomena.jsonl").write_text(GOOD + "\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["testset", "import", str(folder), "--task", "T"], env=cli_env)
    assert r.exit_code == 1 and "testset.json: rubric: " in r.output and "'nope'" in r.output


def test_cli_phenomena_command_sets_and_replaces(app, cli_env, tmp_path):
    from enface.commands import main

    folder = copy_set(tmp_path)
    (folder / "phenomena.jsonl").unlink()
    run = CliRunner().invoke
    assert run(main, ["testset", "import", str(folder), "--task", "T"], env=cli_env).exit_code == 0
    assert count(app) == (1, 0)
    file = tmp_path / "p.jsonl"
    file.write_text(GOOD + "\n" + BROKEN[2][0] + "\n", encoding="utf-8")
    r = run(main, ["testset", "phenomena", "1", str(file)], env=cli_env)
    assert r.exit_code == 1 and f"{file}:2: segment 11 is out of range" in r.output
    file.write_text((PHENOMENA_DIR / "testset" / "phenomena.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    r = run(main, ["testset", "phenomena", "1", str(file)], env=cli_env)
    assert r.exit_code == 0 and "17 phenomena" in r.output
    file.write_text(GOOD + "\n", encoding="utf-8")
    assert run(main, ["testset", "phenomena", "1", str(file)], env=cli_env).exit_code == 0
    assert count(app) == (1, 1)
    file.write_bytes(b"\xff\xfe")
    r = run(main, ["testset", "phenomena", "1", str(file)], env=cli_env)
    assert r.exit_code == 1 and "not valid UTF-8" in r.output


def _zip_of(folder) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path in folder.rglob("*"):
            if path.is_file():
                z.write(path, str(path.relative_to(folder.parent)))
    return buf.getvalue()


def _organizer(app):
    from tests.support.campaigns import PASSWORD, fast_user

    with app.app_context():
        fast_user("org@example.org", "organizer", "Olga")
    client = app.test_client()
    client.post("/auth/login", data={"email": "org@example.org", "password": PASSWORD})
    return client


def _csrf(client, url):
    import re

    html = client.get(url).get_data(as_text=True)
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)


def test_web_import_form_reports_line_numbers(app, tmp_path):
    client = _organizer(app)
    folder = copy_set(tmp_path, GOOD + "\n" + BROKEN[1][0] + "\n")
    token = _csrf(client, "/admin/testsets/import")
    r = client.post("/admin/testsets/import", data={"csrf_token": token, "task": "T",
                                                    "archive": (io.BytesIO(_zip_of(folder)), "set.zip")},
                    content_type="multipart/form-data")
    assert r.status_code == 400
    assert "phenomena.jsonl:2: unknown dimension &#39;poetry&#39;" in r.get_data(as_text=True)
    assert count(app) == (0, 0)
    folder = copy_set(tmp_path / "ok")
    r = client.post("/admin/testsets/import", data={"csrf_token": token, "task": "T",
                                                    "archive": (io.BytesIO(_zip_of(folder)), "set.zip")},
                    content_type="multipart/form-data")
    assert r.status_code in (302, 303)
    assert count(app) == (1, 17)
    page = client.get("/admin/testsets/1").get_data(as_text=True)
    assert "17 phenomena" in page


def test_web_phenomena_form_on_the_testset_page(app, tmp_path):
    client = _organizer(app)
    folder = copy_set(tmp_path)
    (folder / "phenomena.jsonl").unlink()
    with app.app_context():
        from enface.services.testsets import import_testset

        import_testset(folder, "T")
    token = _csrf(client, "/admin/testsets/1")
    r = client.post("/admin/testsets/1/phenomena", data={"csrf_token": token, "file": (
        io.BytesIO((GOOD + "\n" + BROKEN[3][0] + "\n").encode()), "mine.jsonl")}, content_type="multipart/form-data")
    assert r.status_code == 400 and "mine.jsonl:2: missing field &#39;requirement&#39;" in r.get_data(as_text=True)
    assert count(app) == (1, 0)
    r = client.post("/admin/testsets/1/phenomena", data={"csrf_token": token, "file": (
        io.BytesIO((GOOD + "\n").encode()), "mine.jsonl")}, content_type="multipart/form-data")
    assert r.status_code in (302, 303) and count(app) == (1, 1)
    r = client.post("/admin/testsets/1/phenomena", data={"csrf_token": token}, content_type="multipart/form-data")
    assert r.status_code == 400 and "choose a phenomena.jsonl file" in r.get_data(as_text=True)


def test_phenomena_upload_is_for_organizers_and_frozen_once_a_campaign_starts(world, tmp_path):
    from rubric_helpers import new_rubric

    from tests.support.campaigns import PASSWORD

    annotator = world.client("ann1@example.org")
    r = annotator.post(f"/admin/testsets/{world.testset_id}/phenomena",
                       data={"file": (io.BytesIO(GOOD.encode()), "p.jsonl")}, content_type="multipart/form-data")
    assert r.status_code == 404
    new_rubric(world)   # started
    org = world.app.test_client()
    org.post("/auth/login", data={"email": "org@example.org", "password": PASSWORD})
    r = org.post(f"/admin/testsets/{world.testset_id}/phenomena",
                 data={"file": (io.BytesIO((GOOD + "\n").encode()), "p.jsonl")}, content_type="multipart/form-data")
    assert r.status_code == 409 and "has started" in r.get_data(as_text=True)
    assert count(world.app) == (1, 17)
