"""``enface submit``: the participants' client of the JSON API (upload, then wait for the scores)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from ._common import fail


def collect_files(paths: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
        else:
            files.append(p)
    return files


class ApiClient:
    def __init__(self, url: str, token: str):
        import requests

        self.base = url.rstrip("/")
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"
        self.http.headers["User-Agent"] = "enface-submit"

    def _check(self, resp):
        try:
            body = resp.json()
        except ValueError:
            body = None
        if resp.status_code >= 400:
            err = (body or {}).get("error", {}) if isinstance(body, dict) else {}
            message = err.get("message") or resp.text[:300]
            raise click.ClickException(f"{resp.status_code} {err.get('code', '')}: {message}".replace(" :", ":"))
        return body

    def submit(self, testset_id: int, files: list[Path], **fields) -> dict:
        handles = [(f.name, open(f, "rb")) for f in files]
        try:
            resp = self.http.post(f"{self.base}/api/v1/testsets/{testset_id}/submissions",
                                  data={k: v for k, v in fields.items() if v is not None},
                                  files=[("files", (name, fh, "application/octet-stream")) for name, fh in handles],
                                  timeout=600)
        finally:
            for _n, fh in handles:
                fh.close()
        return self._check(resp)

    def submission(self, submission_id: int) -> dict:
        return self._check(self.http.get(f"{self.base}/api/v1/submissions/{submission_id}", timeout=60))


FINAL_STATES = ("scored", "invalid", "failed")


def wait_for(client: ApiClient, submission_id: int, timeout: float, show: bool = True,
             check: Callable[[], None] | None = None) -> dict:
    """Poll a submission until it is scored, invalid or failed, showing its progress.

    ``check`` is called on every poll; it raises to stop waiting (e.g. when the worker has died).
    """
    tty = sys.stderr.isatty()
    seen_events = 0
    deadline = time.monotonic() + timeout
    bar = None
    while True:
        if check is not None:
            check()
        sub = client.submission(submission_id)
        if show:
            for event in sub["timeline"][seen_events:]:
                if bar is not None:
                    bar.clear()
                click.echo(f"  {event['at'][11:19]} {event['state']:<10} {event['message']}", err=True)
            seen_events = len(sub["timeline"])
            if tty and sub["state"] == "scoring":
                if bar is None:
                    from tqdm import tqdm

                    bar = tqdm(total=100, desc="  scoring", unit="%", leave=False, file=sys.stderr)
                bar.update(int(sub["progress"] * 100) - bar.n)
        if sub["state"] in FINAL_STATES:
            if bar is not None:
                bar.close()
            return sub
        if time.monotonic() > deadline:
            raise click.ClickException(f"submission {submission_id} is still {sub['state']} after {timeout:.0f} s; "
                                       f"see {sub['page']}")
        time.sleep(1.0)


def print_result(sub: dict) -> int:
    from scoring.metrics import REGISTRY

    if sub["state"] == "scored":
        click.echo(f"submission {sub['id']} scored ({sub['page']}):")
        for key in REGISTRY:
            s = sub["scores"].get(key)
            if s is None:
                continue
            if s["score"] is None:
                click.echo(f"  {s['name']:<7} n/a  ({s['reason']})")
            else:
                click.echo(f"  {s['name']:<7} {s['score']:7.2f}  {s['signature']}")
        return 0
    report = sub.get("report") or {}
    click.echo(f"submission {sub['id']} is {sub['state']} ({sub['page']})", err=True)
    for f in (report.get("errors") or []) + (report.get("warnings") or []):
        loc = f.get("file") or "(submission)"
        if f.get("line") is not None:
            loc += f":{f['line']}"
        click.echo(f"  {f['severity'].upper()} {loc}: {f['message']} [{f['code']}]", err=True)
    if not report and sub["timeline"]:
        click.echo(f"  {sub['timeline'][-1]['message']}", err=True)
    return 1


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
    Exit status: 0 scored (or accepted, with --no-wait), 1 invalid or failed or refused.
    """
    paths = collect_files(files)
    if not paths:
        fail("no files to upload", 2)
    client = ApiClient(url, token)
    created = client.submit(testset_id, paths, label=label, constrained="false" if unconstrained else "true",
                            system_name=system_name, description=description)
    click.echo(f"submission {created['id']} received: {created['page']}")
    for warning in created.get("warnings", []):
        click.echo(f"warning: {warning['message']}", err=True)
    if no_wait:
        return
    raise SystemExit(print_result(wait_for(client, created["id"], timeout)))
