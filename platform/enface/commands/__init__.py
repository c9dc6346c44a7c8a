"""The ``enface`` command: a root group, and one module per command group.

    enface db upgrade|current                                          db.py
    enface create-user --role participant|annotator|organizer|admin EMAIL [--team NAME] [--password PW] [--token]
    enface reset-password EMAIL                                        users.py
    enface testset import DIR --task NAME
    enface testset freeze ID [--undo]
    enface rescore (--testset ID | --submission ID)                    testsets.py
    enface serve [--host 127.0.0.1] [--port 8000] [--workers N] [--jobs N] [--no-upgrade]
    enface worker [-Q cpu,gpu] [-c N] [--loglevel INFO]
    enface sweep                                                       serve.py
    enface submit --url URL --token TOKEN --testset ID --label primary [--unconstrained] --system-name NAME FILES...
                                                                       submit.py
    enface demo [--port 8000] [--once] [--data DEMO_TASK_DIR]          demo.py
    enface campaign list|create|invite|add-annotator|start|status|export|release
                                                                       campaigns.py
    enface campaign add-judge|judges|run-judge                         judges.py

    enface doctor [--network] [--queues cpu,gpu,llm] [--timeout S] [--min-free-gb N]
    enface backup DEST
    enface restore SRC                                                 ops.py
    enface --version                                                   the installed package's version

Every command reads the same ENFACE_* variables as the server (see enface/config.py).

This module imports the command modules and registers their commands; they never import it
back (what they share is in ``_common.py``).
"""

from __future__ import annotations

import click

from . import campaigns, crowd, db, demo, judges, ops, serve, submit, testsets, users  # noqa: F401  (judges, crowd: see below)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="enface", prog_name="enface", message="%(prog)s %(version)s")
def main():
    """Enface: run a WMT-style literary translation shared task."""


for command in (db.db, users.create_user, users.reset_password, testsets.testset, testsets.rescore, serve.serve,
                serve.worker, serve.sweep, submit.submit, demo.demo, campaigns.campaign, ops.doctor, ops.backup,
                ops.restore):
    # (judges.py and crowd.py add their commands to the campaign group on import)
    main.add_command(command)

__all__ = ["main"]
