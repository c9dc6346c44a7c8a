"""The access matrix's machinery: the app's rules, concrete URLs for a world, one request per cell.

The expectation table itself lives next to the test (tests/platform/security/test_access_matrix.py),
so that a reader sees in one file what each role may do; this module only knows how to ask.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .access_world import EMAILS, OUTPUT_CANARY, SYSTEM, AccessWorld

IGNORED_METHODS = {"HEAD", "OPTIONS"}
FIXED_UUID = "6f1c2a52-0d1e-4f55-9a7e-3b0f9d1c2e77"


@dataclass(frozen=True)
class Cell:
    endpoint: str
    rule: str
    method: str

    @property
    def id(self) -> str:
        return f"{self.method} {self.rule}"


def app_cells() -> list[Cell]:
    """Every (rule, method) of a freshly created app, in a stable order."""
    from enface import create_app
    from enface.config import TestConfig

    folder = Path(tempfile.mkdtemp(prefix="enface-matrix-"))
    try:
        app = create_app(TestConfig.for_dir(folder, f"sqlite:///{folder / 'unused.sqlite'}"))
        cells = [Cell(r.endpoint, r.rule, m) for r in app.url_map.iter_rules()
                 for m in sorted(r.methods - IGNORED_METHODS)]
        app.extensions["enface_db"][0].dispose()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return sorted(cells, key=lambda c: (c.rule, c.method))


#: a static file of each blueprint that serves its own (the app's under "static")
STATIC_FILES = {"bws": "bws.css", "esa": "esa.css", "mqm": "mqm.css", "reader": "reader.css", "rubric": "rubric.css"}


def url_values(world: AccessWorld, endpoint: str) -> dict:
    """A concrete value for every variable of a rule: always team A's objects, the annotator's item;
    the judge pages get the rubric campaign that has the judge; ``link_id`` is an id no crowd link has."""
    judges = endpoint.startswith("judges.")
    return {"testset_id": world.testset_id, "submission_id": world.subs["team_a"],
            "campaign_id": world.rubric_campaign_id if judges else world.campaign_id,
            "annotator_id": world.annotator_ids["annotator"], "assignment_id": world.assignment_db_id,
            "invite_id": world.invite_id, "link_id": world.invite_id, "public_id": world.assignment["annotator"], "uuid": FIXED_UUID,
            "secret": world.invite_secret, "token": "not-a-real-reset-token", "token_id": world.token_ids["team_a"],
            "team_id": world.team_ids["team_a"], "user_id": world.users["team_a"],
            "fmt": "csv" if endpoint == "leaderboard.paper_table" else "tsv", "which": "automatic",
            "judge_id": world.judge_id, "record_id": world.judge_record_id,
            "name": "lake",                      # a document of the world's test set
            "path": "systems.csv",               # a release file naming every team's system and description
            "filename": STATIC_FILES.get(endpoint.split(".")[0], "campaigns.css")}


def build_url(world: AccessWorld, cell: Cell) -> str:
    with world.app.test_request_context():
        from flask import url_for

        rule = next(r for r in world.app.url_map.iter_rules() if r.rule == cell.rule and r.endpoint == cell.endpoint)
        values = {k: v for k, v in url_values(world, cell.endpoint).items() if k in rule.arguments}
        missing = set(rule.arguments) - set(values)
        assert not missing, f"{cell.id}: no test value for {sorted(missing)} (add it to url_values)"
        return url_for(cell.endpoint, **values)


def request(world: AccessWorld, client, role: str, cell: Cell):
    """One request as ``role``: bearer token on the API, an empty body on writes."""
    url = build_url(world, cell)
    headers = {}
    if url.startswith("/api/") and role != "anonymous":
        headers["Authorization"] = f"Bearer {world.tokens[role]}"
    kwargs: dict = {"headers": headers, "follow_redirects": False}
    if cell.method == "PUT":      # well-formed enough to reach the ownership check
        kwargs["json"] = {"rev": 1, "kind": "comment", "side": "target", "data": {}}
    elif cell.method == "DELETE" or (cell.method == "POST" and "/api/" in url):
        kwargs["json"] = {}
    elif cell.method == "POST":
        kwargs["data"] = {}
    return client.open(url, method=cell.method, **kwargs)


def leaks(world: AccessWorld, role: str, body: str) -> list[str]:
    low = body.lower()
    found = [c for c in world.forbidden_for(role) if c.lower() in low]
    if world.judging_blind(role):
        found += [f"{SYSTEM[t]} beside {OUTPUT_CANARY[t]}" for t in SYSTEM
                  if SYSTEM[t].lower() in low and OUTPUT_CANARY[t].lower() in low]
    return found


def readable_body(resp) -> str:
    """The response's text; a zip's (the release bundle) is the text of every member, so that a
    canary inside a compressed file is found too."""
    data = resp.get_data()
    if resp.mimetype == "application/zip":
        import io
        import zipfile

        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return "\n".join(f"{name}\n" + zf.read(name).decode("utf-8", "replace") for name in zf.namelist())
    return data.decode("utf-8", "replace")


def all_emails() -> list[str]:
    return list(EMAILS.values())
