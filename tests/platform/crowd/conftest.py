"""Fixtures of the crowd tests: the campaign world of tests/support/campaigns.py on a fresh database per test,
and ``cli`` (``enface ...`` on that world's database)."""

import pytest

from tests.support.campaigns import app, world  # noqa: F401  (fixtures)


@pytest.fixture
def cli(world, monkeypatch):  # noqa: F811  (world: the fixture above)
    from click.testing import CliRunner
    from enface.commands import main

    from tests.support.testkit import TestConfigEnv

    for key, value in TestConfigEnv(world.app).items():
        if key.startswith("ENFACE_"):
            monkeypatch.setenv(key, value)

    def run(*args, code=0, stdin=None):
        result = CliRunner().invoke(main, [str(a) for a in args], input=stdin, catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.output
    return run
