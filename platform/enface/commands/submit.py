"""``enface submit``: the participants' client of the JSON API (upload, then wait for the scores).

The code is the light client's (:mod:`enface_submit`, the ``enface-submit`` distribution in clients/submit,
which needs only ``requests``); this is its click face in the full package, with the same options,
environment variables and exit status.
"""

from __future__ import annotations

import click
from enface_submit.client import FINAL_STATES, ApiClient, SubmitError, collect_files, wait_for
from enface_submit.client import submit as run_submit

__all__ = ["FINAL_STATES", "ApiClient", "SubmitError", "collect_files", "submit", "wait_for"]


@click.command()
@click.option("--url", required=True, envvar="ENFACE_URL", help="the platform, e.g. http://127.0.0.1:8000 (or $ENFACE_URL)")
@click.option("--token", required=True, envvar="ENFACE_TOKEN", help="an API token (or $ENFACE_TOKEN)")
@click.option("--testset", "testset_id", required=True, type=int)
@click.option("--label", type=click.Choice(["primary", "contrastive", "baseline"]), default="primary",
              show_default=True)
@click.option("--unconstrained", is_flag=True, help="the system used data or models beyond the constrained track")
@click.option("--system-name", required=True)
@click.option("--description", default="")
@click.option("--no-wait", is_flag=True, help="return once the upload is accepted")
@click.option("--timeout", default=3600, show_default=True, type=float, help="seconds to wait for the result")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True))
def submit(url, token, testset_id, label, unconstrained, system_name, description, no_wait, timeout, files):
    """Upload a system output and wait for its validation and scores.

    FILES: <document>.txt files, a directory of them, a zip, or one file with every segment.
    Exit status: 0 scored (or accepted, with --no-wait), 1 invalid or failed or refused, 2 a usage error.
    Without the server stack: pip install ./clients/submit (the enface-submit client, same command).
    """
    from scoring.metrics import REGISTRY

    raise SystemExit(run_submit(url=url, token=token, testset_id=testset_id, label=label,
                                unconstrained=unconstrained, system_name=system_name, description=description,
                                no_wait=no_wait, timeout=timeout, files=files, order=list(REGISTRY)))
