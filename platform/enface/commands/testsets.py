"""``enface testset import`` and ``enface rescore``: test sets and their scores."""

from __future__ import annotations

from pathlib import Path

import click

from ._common import fail, load_app


@click.group()
def testset():
    """Test sets."""


@testset.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--task", "task_name", required=True, help="task name (created if it does not exist)")
@click.option("--name", default=None, help="test set name (default: from testset.json)")
def testset_import(directory, task_name, name):
    """Import a test set in the scoring library's on-disk format."""
    from ..services import ServiceError
    from ..services.testsets import import_testset

    app = load_app()
    with app.app_context():
        try:
            ts = import_testset(directory, task_name, name=name)
        except ServiceError as exc:
            fail(exc.message)
        from ..services.phenomena import count_phenomena

        tagged = count_phenomena(ts)
        click.echo(f"imported test set {ts.id}: {ts.name} ({ts.src_lang}-{ts.tgt_lang}, {ts.num_documents} "
                   f"documents, {ts.num_segments} segments, {ts.num_refs} references"
                   f"{f', {tagged} phenomena' if tagged else ''}) into task {task_name!r}")


@testset.command("phenomena")
@click.argument("testset_id", type=int)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def testset_phenomena(testset_id, file):
    """Set or replace a test set's phenomenon tags from a phenomena.jsonl file (before any campaign starts)."""
    from ..services import ServiceError
    from ..services.phenomena import replace_phenomena
    from ..services.testsets import get_testset

    app = load_app()
    with app.app_context():
        try:
            text = file.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            fail(f"{file}: not valid UTF-8 ({exc})")
        try:
            n = replace_phenomena(get_testset(testset_id), text, str(file))
        except ServiceError as exc:
            fail(exc.message)
        click.echo(f"test set {testset_id}: {n} phenomena from {file}")


@click.command()
@click.option("--testset", "testset_id", type=int, help="re-score every scored or failed submission of a test set")
@click.option("--submission", "submission_id", type=int, help="re-score one submission")
def rescore(testset_id, submission_id):
    """Queue submissions for re-scoring (a worker does the work)."""
    from ..extensions import db as database
    from ..models import Submission
    from ..services import ServiceError
    from ..services import submissions as subs
    from ..services.testsets import get_testset

    if (testset_id is None) == (submission_id is None):
        fail("give --testset ID or --submission ID", 2)
    app = load_app()
    with app.app_context():
        try:
            if submission_id is not None:
                sub = database.session.get(Submission, submission_id)
                if sub is None:
                    fail(f"no submission {submission_id}")
                subs.rescore(None, sub, who="enface rescore")
                click.echo(f"submission {submission_id} queued for re-scoring")
            else:
                n = subs.rescore_testset(None, get_testset(testset_id), who="enface rescore")
                click.echo(f"{n} submission(s) of test set {testset_id} queued for re-scoring")
        except ServiceError as exc:
            fail(exc.message)
