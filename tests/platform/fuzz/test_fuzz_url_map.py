"""Fuzz where the other fuzzers did not look (issue 15): every rule of the URL map, form routes and GET
query parameters included, as each role of the access matrix, with hostile bodies and query strings.

The rules, the roles, the world and its logged-in clients are the access matrix's
(tests/support/access_matrix.py, access_world.py). Each hypothesis example is one hostile *recipe*: a
value for every query and form parameter the platform reads (found in its source), a body (JSON that is
not an object, JSON with huge integers, superscript digits, lone surrogates or nested values, a form
post, text or XML under the wrong content type, a multipart upload with a hostile file name) and,
sometimes, a hostile value in place of a rule's text variables (document names, public ids, tokens).
Every recipe is sent to every (rule, method) as every role; a 5xx anywhere fails the test, which names
each one. Four explicit recipes always run (the known crashers); ``ENFACE_FUZZ_EXAMPLES`` / 25 generated
ones beside them (CI: 1, 3,840 requests on 128 rule-methods; ``make fuzz``: 36); the count of inputs sent
is printed, with the slowest rules. ``ENFACE_FUZZ_TRACE=1`` prints each rule's time as it goes.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from werkzeug.test import run_wsgi_app

from tests.support import ROOT
from tests.support.access_matrix import app_cells, build_url
from tests.support.access_world import ROLES, build_access_world, login_client
from tests.support.fuzzing import ANSWERS, SENT, budget

TARGET = "URL map (every rule x role)"

# What the old fuzzers found crashing, and the usual suspects: superscript and full-width digits,
# integers past 64 bits, signs, lone surrogates (JSON only: a query string cannot carry one), traversal,
# control characters, markup, an overlong string.
HOSTILE_TEXT = ["²", "１", "𝟘", "9" * 20, "-1", "0", "1e309", "", " ", "../../../../etc/passwd", "a/../b",
                "\x00", "\x1f\x7f", "<script>alert(1)</script>", "null", "[]", "{}", "%00", "x" * 5000, "ref9",
                "yes", "on", "2026-13-45T99:99", "\u202e", "\U0001F600"]
JSON_ONLY = ["\ud800", "\udfff x"]
NON_OBJECT_JSON = ['"a string"', "5", "-1e999", "[1, 2]", "[[\"email\", \"x\"]]", "null", "true",
                   str(10 ** 30), "[" * 40 + "]" * 40]
CONTENT_TYPES = ["text/plain", "application/xml", "application/x-www-form-urlencoded", "application/octet-stream",
                 "multipart/form-data; boundary=nothing", "application/json; charset=latin-1"]

text_value = st.sampled_from(HOSTILE_TEXT) | st.text(max_size=30)
json_value = (st.sampled_from(HOSTILE_TEXT + JSON_ONLY) | st.integers() | st.sampled_from([10 ** 20, -(2 ** 63), 2 ** 31])
              | st.floats(allow_nan=False) | st.booleans() | st.none()
              | st.lists(st.sampled_from(HOSTILE_TEXT), max_size=3) | st.just({"nested": {"deeper": ["²"]}}))


def read_parameter_names() -> list[str]:
    """Every query, form and JSON field name the platform reads, from its source: request.args/values/form
    .get(...)/.getlist(...), an ``args``/``posted``/``data``/``body`` mapping's .get(...), WTForms fields."""
    names: set[str] = set()
    reads = re.compile(r"\b(?:args|values|form|posted|data|body|payload|raw)\.(?:get|getlist|pop)\(\s*\"([A-Za-z_][\w-]{0,40})\"")
    fields = re.compile(r"^\s+(\w+)\s*=\s*\w*Field\(", re.M)
    form_keys = re.compile(r"\bform\[\"(\w+)\"\]")
    field_lists = re.compile(r"^FIELDS\s*=\s*\(([^)]*)\)", re.M)
    for path in sorted((ROOT / "platform" / "enface").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        names.update(reads.findall(source))
        names.update(fields.findall(source))
        names.update(form_keys.findall(source))
        for listed in field_lists.findall(source):
            names.update(re.findall(r"\"(\w+)\"", listed))
    return sorted(names)


PARAMS = read_parameter_names()
CELLS = app_cells()
TEXT_VARIABLES = ("name", "path", "public_id", "uuid", "secret", "token", "filename", "fmt", "which")


@st.composite
def recipes(draw) -> dict:
    """One hostile input for every rule: query values, a body, maybe a hostile path text."""
    query = {name: draw(text_value) for name in PARAMS}
    kind = draw(st.sampled_from(["non-object", "json", "form", "wrong-type", "multipart"]))
    if kind == "non-object":
        body = draw(st.sampled_from(NON_OBJECT_JSON))
    elif kind == "json":
        body = {name: draw(json_value) for name in PARAMS}
    elif kind == "form":
        body = {name: draw(text_value) for name in PARAMS}
    elif kind == "wrong-type":
        body = (draw(st.sampled_from(CONTENT_TYPES)), draw(st.binary(max_size=200) | st.just(b"<a>\xff</a>")))
    else:
        body = draw(st.sampled_from(["../../up/evil.txt", "²", "x" * 300, "", "a\x00b.zip", "..\\..\\c.txt"]))
    path_text = draw(st.none() | st.sampled_from(["²", "../../etc/passwd", "x" * 3000, "%00", "9" * 20, "..",
                                                  "a b", "\u202e"]))
    return {"query": query, "kind": kind, "body": body, "path_text": path_text}


def explicit(kind: str, body, value: str = "²", path_text=None) -> dict:
    return {"query": {name: value for name in PARAMS}, "kind": kind, "body": body, "path_text": path_text}


def url_for_recipe(world, cell, recipe) -> str:
    url = build_url(world, cell)
    text = recipe["path_text"]
    if text is None:
        return url
    rule = next(r for r in world.app.url_map.iter_rules() if r.rule == cell.rule and r.endpoint == cell.endpoint)
    string_args = [a for a in rule.arguments if a in TEXT_VARIABLES]
    if not string_args:
        return url
    from urllib.parse import quote

    from tests.support.access_matrix import url_values

    values = url_values(world, cell.endpoint)
    for arg in string_args:      # the rule's text with the hostile value in place of that variable's
        url = url.replace(quote(str(values[arg]), safe="/"), quote(text, safe=""), 1)
    return url


class JarlessClient(FlaskClient):
    """A test client without a cookie jar that also skips the jar's URL: werkzeug's ``Client.run_wsgi_app``
    rebuilds and IRI-decodes the whole request URL for its jar even when it has none."""

    def run_wsgi_app(self, environ, buffered: bool = False):
        return run_wsgi_app(self.application, environ, buffered=buffered)


class Caller:
    """Sends as one role: its logged-in cookies, as a header, through a ``JarlessClient``.

    (The cookie jar rebuilt and IRI-decoded the whole URL three times per request: on the overlong recipe's
    620 KB query string that was 55 of the test's 75 s, none of it the app's. The app sees the same
    request; a response's new cookies are dropped, so each request starts from the role's login.)
    """

    def __init__(self, world, role: str):
        from enface.services.login_throttle import DEVICE_COOKIE

        logged_in = login_client(world, role)
        config = world.app.config
        self.cookies = [(path, cookie) for name, path in ((config["SESSION_COOKIE_NAME"], "/"),
                                                          (config.get("REMEMBER_COOKIE_NAME", "remember_token"), "/"),
                                                          (DEVICE_COOKIE, "/auth/"))
                        if (cookie := logged_in.get_cookie(name, path=path)) is not None]
        assert role == "anonymous" or self.cookies, f"{role}: the login set no cookie"
        self.client = JarlessClient(world.app, world.app.response_class, use_cookies=False)

    def cookie_header(self, url: str) -> dict:
        """The Cookie header a browser sends to ``url`` (a cookie goes to the URLs under its path)."""
        sent = [f"{c.key}={c.value}" for path, c in self.cookies if url.startswith(path)]
        return {"Cookie": "; ".join(sent)} if sent else {}


def encoded_query(recipe) -> str:
    """The recipe's query string, url-encoded once for all its requests."""
    if "encoded_query" not in recipe:
        recipe["encoded_query"] = urlencode(recipe["query"])
    return recipe["encoded_query"]


def send(world, caller: Caller, role: str, cell, recipe):
    url = url_for_recipe(world, cell, recipe)
    headers = caller.cookie_header(url)
    if url.startswith("/api/") and role != "anonymous":
        headers["Authorization"] = f"Bearer {world.tokens[role]}"
    kwargs: dict = {"headers": headers, "follow_redirects": False, "query_string": encoded_query(recipe)}
    if cell.method != "GET":
        kind, body = recipe["kind"], recipe["body"]
        if kind == "non-object":
            kwargs.update(data=body, content_type="application/json")
        elif kind == "json":
            kwargs.update(data=json.dumps(body), content_type="application/json")
        elif kind == "form":
            kwargs["data"] = body
        elif kind == "wrong-type":
            kwargs.update(data=body[1], content_type=body[0])
        else:
            kwargs.update(content_type="multipart/form-data",
                          data={**{n: "²" for n in PARAMS[:20]}, "files": (io.BytesIO(b"a\n"), body),
                                "archive": (io.BytesIO(b"PK\x03\x04junk"), body), "file": (io.BytesIO(b"{"), body)})
    return caller.client.open(url, method=cell.method, **kwargs)


@pytest.fixture(scope="module")
def fuzz_world(tmp_path_factory, db_template):
    """The access matrix's world after release (every page has something to show), on the test backend."""
    from enface import create_app
    from enface.config import TestConfig
    from enface.services import leaderboard

    from tests.support.databases import FreshDatabase

    folder = tmp_path_factory.mktemp("urlfuzz")
    database = FreshDatabase(db_template, folder / "data")
    app = create_app(TestConfig.for_dir(folder / "data", database.url))
    leaderboard.clear_cache()
    world = build_access_world(app, folder, "released", database)
    callers = {role: Caller(world, role) for role in ROLES}
    yield world, callers
    world.app.extensions["enface_db"][0].dispose()
    world.database.drop()
    leaderboard.clear_cache()


def test_the_parameters_are_found():
    for name in ("sys", "undo", "seed", "systems", "email", "password", "action", "licence", "key_source",
                 "prompts_dir", "base_url", "opens_at", "rev", "doc"):
        assert name in PARAMS, name


SERVER_ERRORS: list[str] = []
TIMES: Counter = Counter()    # seconds per rule-method, all roles and recipes (the slowest are printed)


@settings(max_examples=max(1, budget() // 25), deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(recipe=recipes())
@example(recipe=explicit("non-object", '"a string"', value="9" * 20))
@example(recipe=explicit("json", {name: 10 ** 20 if i % 2 else "\ud800" for i, name in enumerate(PARAMS)}, value="-1"))
@example(recipe=explicit("form", {name: "²" for name in PARAMS}, path_text="²"))
@example(recipe=explicit("wrong-type", ("text/plain", b"email=a&password=b"), value="x" * 5000, path_text="../../x"))
def test_no_rule_answers_5xx_to_hostile_input(fuzz_world, recipe):
    world, callers = fuzz_world
    statuses: Counter = Counter()
    for cell in CELLS:
        started = time.monotonic()
        for role in ROLES:
            try:
                resp = send(world, callers[role], role, cell, recipe)
                status = resp.status_code
            except Exception as exc:   # an exception the app let through is a 500 for a real client
                status, resp = 500, None
                SERVER_ERRORS.append(f"{cell.id} as {role}: {type(exc).__name__}: {str(exc)[:200]}")
            SENT[TARGET] += 1
            statuses[status // 100] += 1
            if status >= 500 and resp is not None:
                SERVER_ERRORS.append(f"{status} {cell.id} as {role} ({recipe['kind']}, path {recipe['path_text']!r}): "
                                     f"{resp.get_data(as_text=True)[:200]!r}")
            if cell.method != "GET" and status < 400:   # it may have changed the world: put it back
                world.restore()
                callers[role] = Caller(world, role)
        TIMES[cell.id] += time.monotonic() - started
        if os.environ.get("ENFACE_FUZZ_TRACE"):
            print(f"{time.monotonic() - started:6.2f}s {cell.id}", flush=True)
    for cls, n in statuses.items():
        ANSWERS[(TARGET, f"{cls}xx")] += n
    assert not SERVER_ERRORS, f"{len(SERVER_ERRORS)} server errors:\n" + "\n".join(SERVER_ERRORS[:30])


def test_report_the_count(capsys):
    """Runs after the fuzz (file order): the inputs, rules and roles it covered, on the terminal too."""
    sent = SENT[TARGET]
    if not sent:
        pytest.skip("the URL-map fuzz did not run (deselected)")
    line = (f"URL-map fuzz: {sent} inputs = {sent // (len(CELLS) * len(ROLES))} recipes x {len(CELLS)} rule-methods "
            f"x {len(ROLES)} roles ({len(PARAMS)} parameter names; ENFACE_FUZZ_EXAMPLES={budget()}); "
            f"5xx: {sum(n for (t, s), n in ANSWERS.items() if t == TARGET and s == '5xx')}")
    with capsys.disabled():
        print("\n" + line)
        print("slowest rule-methods (s): " + ", ".join(f"{k} {v:.1f}" for k, v in TIMES.most_common(8)))
    assert sent >= len(CELLS) * len(ROLES) * 4     # at least the explicit recipes reached every cell
    Path(ROOT / "tests" / "artifacts").mkdir(exist_ok=True)
    (ROOT / "tests" / "artifacts" / "url-map-fuzz.txt").write_text(line + "\n", encoding="utf-8")
