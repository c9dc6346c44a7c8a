"""What ``enface submit`` does, shared by the light client (:mod:`.cli`) and the full package's command."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

#: the states a submission ends in
FINAL_STATES = ("scored", "invalid", "failed")
#: exit status: scored (or accepted with --no-wait); invalid, failed, refused, unreachable; a usage error
OK, FAILED, USAGE = 0, 1, 2


class SubmitError(Exception):
    """A refusal by the platform, a transport error or a timeout: printed as ``Error: ...``, exit 1."""


def collect_files(paths: Iterable[str]) -> list[Path]:
    """The files to upload: each file as given, each directory's files (not hidden ones), in name order."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
        else:
            files.append(p)
    return files


class ApiClient:
    """The two calls of the platform's JSON API the client makes, with a bearer token."""

    def __init__(self, url: str, token: str):
        import requests

        self._requests = requests
        self.base = url.rstrip("/")
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"
        self.http.headers["User-Agent"] = "enface-submit"

    def _call(self, method: str, path: str, **kwargs):
        try:
            resp = self.http.request(method, f"{self.base}{path}", **kwargs)
        except self._requests.RequestException as exc:
            raise SubmitError(f"cannot reach {self.base}: {exc}") from None
        try:
            body = resp.json()
        except ValueError:
            body = None
        if resp.status_code >= 400:
            err = body.get("error", {}) if isinstance(body, dict) else {}
            err = err if isinstance(err, dict) else {}
            message = err.get("message") or resp.text[:300]
            raise SubmitError(f"{resp.status_code} {err.get('code', '')}: {message}".replace(" :", ":"))
        if not isinstance(body, dict):
            raise SubmitError(f"{resp.status_code} from {self.base}{path} is not the platform's JSON answer")
        return body

    def submit(self, testset_id: int, files: list[Path], **fields) -> dict:
        handles = [(f.name, open(f, "rb")) for f in files]   # noqa: SIM115 (closed below)
        try:
            return self._call("POST", f"/api/v1/testsets/{testset_id}/submissions",
                              data={k: v for k, v in fields.items() if v is not None},
                              files=[("files", (name, fh, "application/octet-stream")) for name, fh in handles],
                              timeout=600)
        finally:
            for _name, fh in handles:
                fh.close()

    def submission(self, submission_id: int) -> dict:
        return self._call("GET", f"/api/v1/submissions/{submission_id}", timeout=60)


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class _Progress:
    """The scoring progress on a terminal: tqdm's bar where tqdm is installed, else a percentage line."""

    def __init__(self):
        self.bar = None
        self.shown = False

    def update(self, fraction: float) -> None:
        percent = int(fraction * 100)
        if self.bar is None:
            try:
                from tqdm import tqdm
            except ImportError:
                self.bar = False
            else:
                self.bar = tqdm(total=100, desc="  scoring", unit="%", leave=False, file=sys.stderr)
        if self.bar:
            self.bar.update(percent - self.bar.n)
        else:
            sys.stderr.write(f"\r  scoring {percent:3d}%")
            sys.stderr.flush()
            self.shown = True

    def clear(self) -> None:
        if self.bar:
            self.bar.clear()
        elif self.shown:
            sys.stderr.write("\r" + " " * 16 + "\r")
            self.shown = False

    def close(self) -> None:
        if self.bar:
            self.bar.close()
        else:
            self.clear()


def wait_for(client: ApiClient, submission_id: int, timeout: float, show: bool = True,
             check: Callable[[], None] | None = None) -> dict:
    """Poll a submission until it is scored, invalid or failed, showing its timeline and progress.

    ``check`` is called on every poll; it raises to stop waiting (e.g. when the worker has died).
    """
    tty = sys.stderr.isatty()
    seen_events = 0
    deadline = time.monotonic() + timeout
    progress = _Progress()
    while True:
        if check is not None:
            check()
        sub = client.submission(submission_id)
        if show:
            for event in sub["timeline"][seen_events:]:
                progress.clear()
                _err(f"  {event['at'][11:19]} {event['state']:<10} {event['message']}")
            seen_events = len(sub["timeline"])
            if tty and sub["state"] == "scoring":
                progress.update(sub["progress"])
        if sub["state"] in FINAL_STATES:
            progress.close()
            return sub
        if time.monotonic() > deadline:
            progress.close()
            raise SubmitError(f"submission {submission_id} is still {sub['state']} after {timeout:.0f} s; "
                              f"see {sub['page']}")
        time.sleep(1.0)


def print_result(sub: dict, order: Iterable[str] = ()) -> int:
    """The scores (metrics in ``order`` first, then the others as the platform sent them), or why there are
    none; the exit status."""
    if sub["state"] == "scored":
        print(f"submission {sub['id']} scored ({sub['page']}):")
        scores = sub["scores"]
        for key in [*[k for k in order if k in scores], *[k for k in scores if k not in set(order)]]:
            s = scores[key]
            if s["score"] is None:
                print(f"  {s['name']:<7} n/a  ({s['reason']})")
            else:
                print(f"  {s['name']:<7} {s['score']:7.2f}  {s['signature']}")
        return OK
    report = sub.get("report") or {}
    _err(f"submission {sub['id']} is {sub['state']} ({sub['page']})")
    for f in (report.get("errors") or []) + (report.get("warnings") or []):
        loc = f.get("file") or "(submission)"
        if f.get("line") is not None:
            loc += f":{f['line']}"
        _err(f"  {f['severity'].upper()} {loc}: {f['message']} [{f['code']}]")
    if not report and sub["timeline"]:
        _err(f"  {sub['timeline'][-1]['message']}")
    return FAILED


def submit(*, url: str, token: str, testset_id: int, label: str, unconstrained: bool, system_name: str,
           description: str, no_wait: bool, timeout: float, files: Iterable[str], order: Iterable[str] = ()) -> int:
    """The whole command: upload, then (unless ``no_wait``) wait and print the result. Returns the exit status."""
    paths = collect_files(files)
    if not paths:
        _err("Error: no files to upload")
        return USAGE
    try:
        client = ApiClient(url, token)
        created = client.submit(testset_id, paths, label=label, constrained="false" if unconstrained else "true",
                                system_name=system_name, description=description)
        print(f"submission {created['id']} received: {created['page']}", flush=True)
        for warning in created.get("warnings", []):
            _err(f"warning: {warning['message']}")
        if no_wait:
            return OK
        return print_result(wait_for(client, created["id"], timeout), order)
    except SubmitError as exc:
        _err(f"Error: {exc}")
        return FAILED
