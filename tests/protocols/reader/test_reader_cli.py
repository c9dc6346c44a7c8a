"""``enface campaign create --protocol reader`` and the other campaign commands on a reader study."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from reader_api import Book
from reader_helpers import books_of


@pytest.fixture
def cli_env(world, database_url, tmp_path):
    return {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
            "ENFACE_SECRET_KEY": "cli-test"}


def test_reader_study_from_the_command_line(world, cli_env, tmp_path):
    from enface.commands import main

    from humaneval.export import load_export

    run = CliRunner().invoke
    guidelines = tmp_path / "guidelines.txt"
    guidelines.write_text("Read both translations with care. Passphrase: quiet harbour.", encoding="utf-8")
    sub = world.subs["owlet-nmt"]
    r = run(main, ["campaign", "create", "--protocol", "reader", "--testset", str(world.testset_id), "--name",
                   "CLI readers", "--version", "ref1", "--version", str(sub), "--range", "lantern", "--range",
                   "harbour", "--lock-hours", "0", "--chunk-words", "60", "--passphrase", "quiet harbour",
                   "--guidelines", str(guidelines), "--seed", "4"], env=cli_env)
    assert r.exit_code == 0, r.output
    assert "version 1 = reference 1, version 2 = owlet-nmt" in r.output
    cid = int(r.output.strip().splitlines()[-1])
    for email in ("reader1@example.org", "reader2@example.org"):
        assert run(main, ["campaign", "add-annotator", str(cid), email], env=cli_env).exit_code == 0
    r = run(main, ["campaign", "start", str(cid)], env=cli_env)
    assert r.exit_code == 0 and "2 items, 4 assignments" in r.output, r.output
    # refusals
    r = run(main, ["campaign", "create", "--protocol", "reader", "--testset", str(world.testset_id), "--name", "x",
                   "--version", "ref1", "--version", "ref1"], env=cli_env)
    assert r.exit_code == 1 and "two different versions" in r.output
    r = run(main, ["campaign", "create", "--protocol", "reader", "--testset", str(world.testset_id), "--name", "x",
                   "--passphrase", "the human one"], env=cli_env)
    assert r.exit_code == 1 and "passphrase" in r.output
    # a reader works through book 1
    c = world.client("reader1@example.org")
    book = Book(c, books_of(world, cid, "reader1@example.org")[0]["public_id"])
    book.ok("passphrase", "", {"passphrase": "Quiet Harbour"})
    book.immersive()
    r = run(main, ["campaign", "status", str(cid), "--json"], env=cli_env)
    assert r.exit_code == 0, r.output
    status = json.loads(r.output)
    assert status["protocol"] == "reader" and status["counts"]["close"] == 1 and len(status["books"]) == 4
    out = tmp_path / "answers.jsonl"
    r = run(main, ["campaign", "export", str(cid), "-o", str(out)], env=cli_env)
    assert r.exit_code == 0, r.output
    export = load_export(out)
    assert len(export.excerpts) == 1 and export.excerpts[0].versions["2"].label == "owlet-nmt"
    r = run(main, ["campaign", "export", str(cid), "--format", "tsv"], env=cli_env)
    assert r.exit_code == 1 and "jsonl, csv" in r.output
    r = run(main, ["campaign", "export", str(cid), "--format", "csv"], env=cli_env)
    assert r.exit_code == 0 and r.output.startswith("record,study,document,reader")
    r = run(main, ["campaign", "release", str(cid)], env=cli_env)
    assert r.exit_code == 0 and "released" in r.output
