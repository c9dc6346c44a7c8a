"""``enface testset import|list|release|hide|set|rename|delete|freeze|phenomena`` and ``enface rescore``: test sets and their scores.

Every organizer action of the test-set settings page, for scripts: exit 0 on success, 1 with a
sentence on stderr when the change is refused (unknown id, deadline before the opening, a
negative quota, a date that does not parse), 2 on a usage error.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ._common import fail, load_app


@click.group()
def testset():
    """Test sets."""


@testset.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--task", "task_name", required=True, help="task name (created if it does not exist)")
@click.option("--name", default=None, help="test set name (default: from testset.json; mt-metrics-eval: 'ROOT LP')")
@click.option("--lp", default=None, help="mt-metrics-eval root: the language pair to import (needed when it has several)")
@click.option("--as", "as_email", default=None,
              help="mt-metrics-eval root: the organizer whose baselines the system outputs become "
                   "(default: the first organizer account)")
@click.option("--include-human", is_flag=True,
              help="mt-metrics-eval root: import the human translations (outputs named like a reference) too")
def testset_import(directory, task_name, name, lp, as_email, include_human):
    """Import a test set in the scoring library's on-disk format, or a root in mt-metrics-eval's layout.

    A folder with ``documents/`` and ``sources/`` is read as mt-metrics-eval's layout (e.g. its
    ``wmt23`` folder): the test set of one language pair (``--lp``), its references in name order,
    and every system output as a baseline submission, validated and scored by the worker.

    Prints the new test set's id alone on stdout (ID=$(enface testset import ...)); what was
    imported, and a warning when the same data is already imported, go to stderr. The test set
    starts closed and hidden: open it with ``enface testset set ID --opens now``.
    """
    from ..services import ServiceError
    from ..services.mtme_import import is_mtme_root
    from ..services.testsets import import_testset, same_data_as

    app = load_app()
    with app.app_context():
        try:
            if is_mtme_root(directory):
                ts = _import_mtme(directory, task_name, name, lp, as_email, include_human)
            elif lp or as_email or include_human:
                fail("--lp, --as and --include-human are for a root in mt-metrics-eval's layout "
                     "(a folder with documents/ and sources/)")
            else:
                ts = import_testset(directory, task_name, name=name)
        except ServiceError as exc:
            fail(exc.message)
        from ..services.phenomena import count_phenomena

        tagged = count_phenomena(ts)
        click.echo(ts.id)
        click.echo(f"imported test set {ts.id}: {ts.name} ({ts.src_lang}-{ts.tgt_lang}, {ts.num_documents} "
                   f"documents, {ts.num_segments} segments, {ts.num_refs} references"
                   f"{f', {tagged} phenomena' if tagged else ''}) into task {task_name!r}; "
                   f"it is closed and hidden (enface testset set {ts.id} --opens now)", err=True)
        for other in same_data_as(ts):
            click.echo(f"warning: test set {other.id} ({other.title}) holds the same documents, sources and "
                       "references", err=True)


def _import_mtme(directory, task_name, name, lp, as_email, include_human):
    from sqlalchemy import select

    from ..extensions import db
    from ..models import User
    from ..services import accounts
    from ..services.mtme_import import import_mtme

    if as_email:
        user = accounts.get_user_by_email(as_email)
        if user is None or not user.is_organizer:
            fail(f"--as {as_email}: no organizer account with that e-mail")
    else:
        user = next((u for u in db.session.scalars(select(User).order_by(User.id)) if u.is_organizer), None)
        if user is None:
            fail("the system outputs become an organizer's baselines: create an organizer account first "
                 "(enface user create ... --role organizer) or give --as EMAIL")
    done = import_mtme(directory, task_name, lp=lp, name=name, organizer=user, include_human=include_human)
    click.echo(f"{len(done.submissions)} system outputs submitted as baselines of {user.email} "
               f"(submissions {', '.join(str(s.id) for s in done.submissions) or 'none'})"
               + (f"; human translations left out: {', '.join(done.skipped)} (--include-human imports them)"
                  if done.skipped else ""), err=True)
    return done.testset


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


@testset.command("freeze")
@click.argument("testset_id", type=int)
@click.option("--undo", is_flag=True, help="lift the freeze: everyone sees the live standings again")
def testset_freeze(testset_id, undo):
    """Freeze a test set's leaderboard now (at the deadline): the public sees these standings, organizers the live ones."""
    from ..services import ServiceError
    from ..services import freeze as freeze_svc
    from ..services.testsets import get_testset

    app = load_app()
    with app.app_context():
        try:
            ts = get_testset(testset_id)
            if undo:
                freeze_svc.unfreeze(ts)
                click.echo(f"test set {testset_id}: the freeze is lifted")
            else:
                ts = freeze_svc.freeze(ts)
                click.echo(f"test set {testset_id} frozen at {ts.frozen_at:%Y-%m-%d %H:%M} UTC "
                           f"({len(ts.frozen_board['rows'])} systems on the frozen leaderboard)")
        except ServiceError as exc:
            fail(exc.message)


@testset.command("list")
@click.option("--json", "as_json", is_flag=True, help="one JSON array, for scripts")
def testset_list(as_json):
    """Every test set: id, task, name, window, quotas, document level, released."""
    from ..services.testsets import list_testsets, settings_dict

    app = load_app()
    with app.app_context():
        rows = [settings_dict(ts) for ts in list_testsets()]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("no test sets (enface testset import DIR --task NAME)")
        return
    for r in rows:
        window = "open" if r["open"] else "closed"
        window += f", opens {r['opens_at']}" if r["opens_at"] else ", no opening set"
        window += f", deadline {r['deadline']}" if r["deadline"] else ", no deadline"
        quotas = "/".join("-" if q is None else str(q) for q in (r["daily_quota"], r["total_quota"]))
        click.echo(f"{r['id']:>4}  {r['task']}: {r['name']} ({r['src_lang']}-{r['tgt_lang']})  {window};  "
                   f"quota day/total {quotas};  document level {'yes' if r['document_level'] else 'no'};  "
                   f"{'released' if r['released'] else 'hidden'}")


@testset.command("release")
@click.argument("testset_id", metavar="ID", type=str)
def testset_release(testset_id):
    """Release the leaderboard of test set ID: every scored system becomes public."""
    _change(testset_id, "released", released=True)


@testset.command("hide")
@click.argument("testset_id", metavar="ID", type=str)
def testset_hide(testset_id):
    """Hide the leaderboard of test set ID again: only organizers and each team (its own rows) see it."""
    _change(testset_id, "hidden", released=False)


@testset.command("set")
@click.argument("testset_id", metavar="ID", type=str)
@click.option("--opens", metavar="ISO-DATETIME|now", help="when submissions open (UTC unless the time says otherwise)")
@click.option("--deadline", metavar="ISO-DATETIME|none", help="when submissions close; none: no deadline")
@click.option("--daily-quota", metavar="N|none", help="submissions per team and UTC day; none: no limit")
@click.option("--total-quota", metavar="N|none", help="submissions per team in all; none: no limit")
@click.option("--document-level/--no-document-level", default=None,
              help="accept document-level (not line-aligned) submissions, scored with d-BLEU only")
def testset_set(testset_id, opens, deadline, daily_quota, total_quota, document_level):
    """Change the settings of test set ID; options not given keep their value."""
    from ..services.testsets import parse_moment, parse_quota

    changes = {}
    try:
        if opens is not None:
            changes["opens_at"] = parse_moment(opens, "--opens", allow="now")
        if deadline is not None:
            changes["deadline"] = parse_moment(deadline, "--deadline", allow="none")
        if daily_quota is not None:
            changes["quota_per_day"] = parse_quota(daily_quota, "--daily-quota")
        if total_quota is not None:
            changes["quota_total"] = parse_quota(total_quota, "--total-quota")
    except ValueError as exc:
        fail(str(exc))
    if document_level is not None:
        changes["document_level_allowed"] = document_level
    if not changes:
        fail("nothing to change: give --opens, --deadline, --daily-quota, --total-quota or --document-level", 2)
    _change(testset_id, "updated", **changes)


@testset.command("rename")
@click.argument("testset_id", metavar="ID", type=str)
@click.argument("name")
def testset_rename(testset_id, name):
    """Rename test set ID (the name is unique within its task)."""
    from ..services import ServiceError
    from ..services.testset_changes import rename_testset

    app = load_app()
    with app.app_context():
        ts = _testset(testset_id)
        old = ts.name
        try:
            rename_testset(ts, name)
        except ServiceError as exc:
            fail(exc.message)
        click.echo(f"test set {ts.id} renamed: {old!r} -> {ts.name!r}")


@testset.command("delete")
@click.argument("testset_id", metavar="ID", type=str)
@click.option("--yes", is_flag=True, help="delete without asking (scripts)")
def testset_delete(testset_id, yes):
    """Delete test set ID with its documents and phenomena: only before anything is submitted to it."""
    from ..services import ServiceError
    from ..services.testset_changes import delete_testset, deletion_refusal

    app = load_app()
    with app.app_context():
        ts = _testset(testset_id)
        refusal = deletion_refusal(ts)
        if refusal is not None:
            fail(f"test set {ts.id} cannot be deleted: {refusal}")
        if not yes:
            click.confirm(f"Delete test set {ts.id} ({ts.title}: {ts.num_documents} documents, {ts.num_segments} "
                          "segments)?", abort=True, err=True)
        try:
            title = delete_testset(ts)
        except ServiceError as exc:
            fail(f"test set {testset_id} cannot be deleted: {exc.message}")
        click.echo(f"test set {testset_id} deleted: {title}")


def _testset(testset_id: str):
    """The test set of an ID argument, or exit 1 with a sentence."""
    from ..services import ServiceError, is_ascii_int
    from ..services.testsets import get_testset

    if not is_ascii_int(testset_id) or len(testset_id) > 9:
        fail(f"{testset_id!r} is not a test set id (a number; see enface testset list)")
    try:
        return get_testset(int(testset_id))
    except ServiceError:
        fail(f"there is no test set {testset_id} (see enface testset list)")


def _change(testset_id: str, done: str, **changes) -> None:
    """Apply ``changes`` to a test set through the same service as the web settings; exit 1 when refused."""
    from ..services import ServiceError, is_ascii_int
    from ..services.testsets import change_settings, get_testset, settings_dict

    if not is_ascii_int(testset_id):
        fail(f"{testset_id!r} is not a test set id (a number; see enface testset list)")
    app = load_app()
    with app.app_context():
        try:
            ts = change_settings(get_testset(int(testset_id)), **changes)
        except ServiceError as exc:
            if exc.code == "not_found":
                fail(f"there is no test set {testset_id} (see enface testset list)")
            fail(exc.message)
        row = settings_dict(ts)
    click.echo(f"test set {row['id']} {done}: {'open' if row['open'] else 'closed'}, "
               f"opens {row['opens_at'] or 'not set'}, deadline {row['deadline'] or 'none'}, "
               f"quota day/total {row['daily_quota'] if row['daily_quota'] is not None else '-'}/"
               f"{row['total_quota'] if row['total_quota'] is not None else '-'}, "
               f"document level {'yes' if row['document_level'] else 'no'}, "
               f"{'released' if row['released'] else 'hidden'}")


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
