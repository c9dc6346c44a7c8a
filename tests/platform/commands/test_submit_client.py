"""The light client (clients/submit, the ``enface-submit`` distribution): ``enface submit`` with nothing but
``requests``, built as a wheel and run where enface, click, Flask, scoring, torch and COMET cannot be imported;
the same options, environment variables and exit status as the full package's ``enface submit``."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.testkit import DEMO, World

ROOT = Path(__file__).resolve().parents[3]
CLIENT = ROOT / "clients" / "submit"
#: what the light client must run without
SERVER_STACK = ("enface", "click", "flask", "sqlalchemy", "celery", "scoring", "mqm", "humaneval", "torch", "comet",
                "sacrebleu", "tqdm")
BLOCKER = f"""
import site
import sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {SERVER_STACK!r}:
            raise ImportError('not installed here: ' + name)
sys.meta_path.insert(0, Blocker())
site.addsitedir(sys.argv.pop(1))   # the folder pip installed the wheel into
from enface_submit.cli import main
sys.exit(main())
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The light client's wheel, built from clients/submit and installed into a folder of its own."""
    tmp = tmp_path_factory.mktemp("light")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp / "dist"), str(CLIENT)], check=True, capture_output=True)
    wheel = next((tmp / "dist").glob("enface_submit-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(next(n for n in names if n.endswith("/METADATA"))).decode()
        entry_points = zf.read(next(n for n in names if n.endswith("/entry_points.txt"))).decode()
    assert {n.split("/")[0] for n in names} == {"enface_submit", wheel.name.split("-")[0] + "-" +
                                                wheel.name.split("-")[1] + ".dist-info"}
    assert [line for line in metadata.splitlines() if line.startswith("Requires-Dist")] == [
        "Requires-Dist: requests>=2.28"]
    assert "enface = enface_submit.cli:main" in entry_points
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(tmp / "site"),
                    str(wheel)], check=True, capture_output=True)
    return tmp / "site"


def light(site: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``enface ARGS`` of the installed light client, in a Python that cannot import the server stack."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("ENFACE_") and k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-I", "-c", BLOCKER, str(site), *args], capture_output=True, text=True,
                          env={**base, **(env or {})}, timeout=300)


def test_the_light_client_submits_without_the_server_stack(installed, app, live_server_factory):
    world = World(app)
    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    server = live_server_factory(app)
    env = {"ENFACE_URL": server.url, "ENFACE_TOKEN": token}
    done = light(installed, "submit", "--testset", str(ts), "--label", "primary", "--system-name", "strong",
                 str(DEMO / "systems" / "strong-mt"), env=env)
    assert done.returncode == 0, done.stderr
    assert "submission 1 received" in done.stdout and "submission 1 scored" in done.stdout
    assert "BLEU      45.04  nrefs:2|case:mixed" in done.stdout
    # invalid: the report with file and line, exit 1
    files = sorted(str(p) for p in (DEMO / "systems" / "broken-mt").iterdir())
    done = light(installed, "submit", "--url", server.url, "--token", token, "--testset", str(ts), "--label",
                 "contrastive", "--unconstrained", "--system-name", "broken", *files)
    assert done.returncode == 1 and "invalid" in done.stderr and "jade-lantern.2.txt" in done.stderr
    # refused by the rules, and a bad token: the API's message, exit 1
    done = light(installed, "submit", "--testset", str(ts), "--system-name", "again",
                 str(DEMO / "systems" / "weak-mt"), env=env)
    assert done.returncode == 1 and "primary_exists" in done.stderr
    done = light(installed, "submit", "--testset", str(ts), "--system-name", "x", str(DEMO / "systems" / "weak-mt"),
                 env={**env, "ENFACE_TOKEN": "enf_nope"})
    assert done.returncode == 1 and "Error: 401" in done.stderr
    # --no-wait returns once accepted
    done = light(installed, "submit", "--testset", str(ts), "--label", "contrastive", "--system-name", "weak",
                 "--no-wait", str(DEMO / "systems" / "weak-mt"), env=env)
    assert done.returncode == 0 and "received: http" in done.stdout and "scored" not in done.stdout


def test_usage_errors_and_an_unreachable_server(installed, tmp_path):
    strong = str(DEMO / "systems" / "strong-mt")
    no_url = light(installed, "submit", "--testset", "1", "--system-name", "x", strong)
    assert no_url.returncode == 2 and "--url" in no_url.stderr
    missing = light(installed, "submit", "--url", "http://127.0.0.1:9", "--token", "t", "--testset", "1",
                    "--system-name", "x", str(tmp_path / "absent"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = light(installed, "submit", "--url", "http://127.0.0.1:9", "--token", "t", "--testset", "1",
                    "--system-name", "x", str(empty))
    assert nothing.returncode == 2 and "no files to upload" in nothing.stderr
    unreachable = light(installed, "submit", "--url", "http://127.0.0.1:9", "--token", "t", "--testset", "1",
                        "--system-name", "x", strong)
    assert unreachable.returncode == 1 and "Error: cannot reach http://127.0.0.1:9" in unreachable.stderr
    other = light(installed, "serve")
    assert other.returncode == 2 and "only `enface submit`" in other.stderr


def test_the_full_command_and_the_light_one_take_the_same_options():
    from enface.commands.submit import submit as full
    from enface_submit.cli import parser

    full_options = {o for p in full.params for o in p.opts if o.startswith("--")}
    light_parser = parser()
    light_options = {o for a in light_parser._actions for o in a.option_strings} - {"-h", "--help", "--version"}
    assert full_options == light_options
    defaults = {p.name: p.default for p in full.params}
    parsed = light_parser.parse_args(["--url", "u", "--token", "t", "--testset", "3", "--system-name", "s", "."])
    assert parsed.label == defaults["label"] and parsed.timeout == defaults["timeout"]
    assert parsed.description == defaults["description"]


def test_the_light_client_imports_only_the_standard_library_and_requests():
    allowed = set(sys.stdlib_module_names) | {"requests", "tqdm", "enface_submit", "__future__"}
    for path in sorted((CLIENT / "enface_submit").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed or name == "enface.commands", f"{path.name} imports {name}"
    assert (ROOT / "platform" / "enface_submit").resolve() == (CLIENT / "enface_submit").resolve()
