"""Real-browser tests: Debian's chromium driven by Playwright, against a live server of the app.

Nothing here downloads a browser: ``ENFACE_CHROMIUM`` (or /usr/bin/chromium) is the one used,
and the tests skip with a reason when it or the playwright package is missing (fail in CI).
tests/conftest.py registers this module as a plugin: its ``browser`` fixture (one chromium per test
module) is there for every test that takes it.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from . import ROOT
from .databases import is_postgres
from .services import require_service

ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("ENFACE_CHROMIUM") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]


def require_browser() -> None:
    if not Path(CHROMIUM).exists():
        require_service(False, f"chromium not found at {CHROMIUM}")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        require_service(False, "the playwright Python package is not installed")


@contextmanager
def live_server(db_template, tmp: Path):
    """(base url, app, database url): the app on a fresh database (CSRF on) served by a threaded werkzeug."""
    from enface import create_app
    from enface.config import TestConfig
    from werkzeug.serving import make_server

    require_browser()
    postgres = is_postgres()
    if postgres:
        name, url = db_template.new()
    else:
        shutil.copyfile(db_template, tmp / "enface.sqlite")
        url = f"sqlite:///{tmp / 'enface.sqlite'}"
    app = create_app(TestConfig.for_dir(tmp, url, WTF_CSRF_ENABLED=True))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", app, url
    finally:
        server.shutdown()
        app.extensions["enface_db"][0].dispose()
        if postgres:
            db_template.drop(name)


@contextmanager
def twin_app(tmp: Path, url: str):
    """A second app on the live server's database (``url``) without CSRF, for a test's own calls while the
    browser has the server's token; its data folder is <tmp>/twin."""
    from enface import create_app
    from enface.config import TestConfig

    twin_dir = tmp / "twin"
    twin_dir.mkdir()
    app = create_app(TestConfig.for_dir(twin_dir, url))
    try:
        yield app
    finally:
        app.extensions["enface_db"][0].dispose()


@contextmanager
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


# how chromium logs a 4xx answer in the console: a refusal a test provokes on purpose, not a page error
FAILED_4XX = "Failed to load resource: the server responded with a status of 4"


def log_in(page, base: str, email: str, password: str, wait: str = "networkidle") -> None:
    """Sends the login form on ``page`` and waits for the page it leads to (``wait``: the load state)."""
    page.goto(f"{base}/auth/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", password)
    page.press("input[name=password]", "Enter")
    page.wait_for_load_state(wait)


@pytest.fixture(scope="module")
def browser():
    """One chromium for the test module's tests."""
    with chromium() as b:
        yield b


def wait_for_saves(page, timeout: float = 10.0, *, pending: str, what: str = "changes") -> None:
    """Until the page's save queue is empty: ``pending`` (a JavaScript expression, the number of changes not yet
    saved) is 0. Polled: the pages' CSP forbids wait_for_function's eval."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.evaluate(f"() => {pending}") == 0:
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"{what} not saved in time: " + page.inner_text("#save-status"))


def login_page(browser, base: str, email: str, password: str, errors: list[str] | None = None,
               viewport: tuple[int, int] = (1400, 900), console: bool = False):
    """(context, page) of a new browser context logged in as ``email``; page errors go to ``errors``, and with
    ``console`` the console's errors too (but for 4xx answers, see :data:`FAILED_4XX`)."""
    ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = ctx.new_page()
    if errors is not None:
        page.on("pageerror", lambda e: errors.append(str(e)))
        if console:
            page.on("console", lambda m: errors.append(m.text) if m.type == "error"
                    and not m.text.startswith(FAILED_4XX) else None)
    log_in(page, base, email, password)
    return ctx, page


def screenshots(prefix: str, full: bool = False):
    """A ``shot(page, name, full=full)`` that saves the page to tests/artifacts/<prefix>-<name>.png (``full``:
    the whole page, not only the viewport)."""
    def shot(page, name: str, full: bool = full) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{prefix}-{name}.png"), full_page=full)
    return shot
