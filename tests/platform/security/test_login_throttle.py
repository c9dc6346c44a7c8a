"""Finding 4 of the security review: the login throttle is shared by every web process, counts per account as well
as per address, and never lets someone who shares an address (or guesses from anywhere) lock a user out of a
browser they logged in from before. The design is in enface/services/login_throttle.py."""

from __future__ import annotations

import re

import pytest

from tests.support.testkit import PASSWORD, TestConfigEnv, World, gunicorn_server

WRONG = "not the password"


def _post(client, email, password, addr="10.0.0.1"):
    return client.post("/auth/login", data={"email": email, "password": password},
                       environ_base={"REMOTE_ADDR": addr})


def _app(make_app, **limits):
    settings = {"RATELIMIT_ENABLED": True, "LOGIN_RATE_LIMIT": "3 per minute",
                "LOGIN_ACCOUNT_RATE_LIMIT": "100 per hour", "LOGIN_ADDRESS_RATE_LIMIT": "100 per minute"}
    settings.update(limits)
    app = make_app(**settings)
    world = World(app)
    world.user("victim@a.org", team="Team A")
    world.user("other@a.org", team="Team B")
    return app


def test_failed_logins_count_per_account_and_address(make_app):
    app = _app(make_app)
    attacker = app.test_client()
    codes = [_post(attacker, "victim@a.org", WRONG).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    refused = _post(attacker, "victim@a.org", WRONG)
    assert "Too many failed logins" in refused.get_data(as_text=True)
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    # another account from the same address is not held back by this account's bucket
    assert _post(attacker, "other@a.org", WRONG).status_code == 200
    # the victim from another address logs in
    assert _post(app.test_client(), "victim@a.org", PASSWORD, addr="10.0.0.2").status_code == 302


def test_failed_logins_count_per_account_over_many_addresses(make_app):
    app = _app(make_app, LOGIN_ACCOUNT_RATE_LIMIT="5 per hour")
    codes = [_post(app.test_client(), "victim@a.org", WRONG, addr=f"10.0.1.{i}").status_code for i in range(8)]
    assert codes == [200] * 5 + [429] * 3
    # the correct password from a new browser waits too: the account is under attack ...
    assert _post(app.test_client(), "victim@a.org", PASSWORD, addr="10.0.2.1").status_code == 429


def test_a_known_browser_is_never_locked_out(make_app):
    app = _app(make_app, LOGIN_ACCOUNT_RATE_LIMIT="5 per hour", LOGIN_ADDRESS_RATE_LIMIT="5 per minute")
    victim = app.test_client()
    assert _post(victim, "victim@a.org", PASSWORD).status_code == 302       # the browser becomes known
    assert victim.get_cookie("enface_device", path="/auth/") is not None
    victim.post("/auth/logout")
    # an attacker on the victim's own address exhausts the account-and-address, account and address buckets
    attacker = app.test_client()
    for i in range(12):
        _post(attacker, "victim@a.org", WRONG)
        _post(attacker, f"nobody{i}@a.org", WRONG)
    assert _post(attacker, "victim@a.org", PASSWORD).status_code == 429     # a new browser waits
    # ... the victim's browser does not: its failures count apart, its right password is taken
    assert _post(victim, "victim@a.org", PASSWORD).status_code == 302
    victim.post("/auth/logout")
    # a forged or another account's device cookie is not a known browser
    forged = app.test_client()
    forged.set_cookie("enface_device", "forged.value.here", path="/auth/")
    assert _post(forged, "victim@a.org", PASSWORD).status_code == 429
    other = app.test_client()
    assert _post(other, "other@a.org", PASSWORD, addr="10.9.9.9").status_code == 302
    stolen = other.get_cookie("enface_device", path="/auth/").value
    thief = app.test_client()
    thief.set_cookie("enface_device", stolen, path="/auth/")
    assert _post(thief, "victim@a.org", PASSWORD).status_code == 429
    # guesses from the known browser itself are limited, in their own bucket
    codes = [_post(victim, "victim@a.org", WRONG).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


def test_successful_logins_do_not_count(make_app):
    app = _app(make_app)
    for _ in range(6):
        c = app.test_client()
        assert _post(c, "victim@a.org", PASSWORD).status_code == 302


def test_counts_are_shared_between_app_instances(make_app, tmp_path):
    """Two apps over one storage file: what two gunicorn workers on one host are."""
    uri = f"sqlite://{tmp_path / 'shared-ratelimit.sqlite'}"
    first = _app(make_app, RATELIMIT_STORAGE_URI=uri)
    second = make_app(**{k: first.config[k] for k in ("RATELIMIT_ENABLED", "LOGIN_RATE_LIMIT",
                                                       "LOGIN_ACCOUNT_RATE_LIMIT", "LOGIN_ADDRESS_RATE_LIMIT")},
                      RATELIMIT_STORAGE_URI=uri)
    assert second is not first
    codes = [_post((first if i % 2 else second).test_client(), "victim@a.org", WRONG).status_code for i in range(6)]
    assert codes == [200, 200, 200, 429, 429, 429]


def test_embedded_default_storage_is_a_file_in_the_data_dir(make_app, tmp_path):
    app = make_app()
    assert app.config["RATELIMIT_STORAGE_URI"].startswith("sqlite:///")
    assert app.config["RATELIMIT_STORAGE_URI"].endswith("/ratelimit.sqlite")


def test_bad_limit_settings_stop_the_start(monkeypatch, tmp_path):
    from enface.config import Config

    monkeypatch.setenv("ENFACE_LOGIN_RATE_LIMIT", "ten a minute")
    with pytest.raises(SystemExit, match="ENFACE_LOGIN_RATE_LIMIT"):
        Config.from_env(DATA_DIR=tmp_path).finalize()


def test_gunicorn_workers_share_the_limit(make_app):
    """The review's case: 2 gunicorn workers used to let twice the limit through (memory:// per process)."""
    import requests

    app = make_app()
    World(app).user("victim@a.org", team="Team A")
    env = TestConfigEnv(app) | {"ENFACE_LOGIN_RATE_LIMIT": "5 per minute"}
    env.pop("ENFACE_RATELIMIT_STORAGE", None)   # the embedded default
    with gunicorn_server(env, 2) as url:
        codes = []
        for _ in range(20):
            with requests.Session() as s:   # a new connection, a new browser each time: both workers answer
                page = s.get(f"{url}/auth/login", timeout=10).text
                token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
                codes.append(s.post(f"{url}/auth/login", data={"email": "victim@a.org", "password": WRONG,
                                                              "csrf_token": token}, timeout=10).status_code)
        assert codes.count(200) == 5 and codes.count(429) == 15, codes


def test_a_failing_counter_store_does_not_block_logins(make_app, monkeypatch, caplog):
    from enface.services import login_throttle

    app = _app(make_app)

    class Broken:
        def test(self, *_a):
            raise ConnectionError("redis is down")

        hit = test

    monkeypatch.setattr(login_throttle, "_limiter", lambda: Broken())
    assert _post(app.test_client(), "victim@a.org", WRONG).status_code == 200
    assert _post(app.test_client(), "victim@a.org", PASSWORD).status_code == 302
    assert "rate-limit storage failed" in caplog.text
