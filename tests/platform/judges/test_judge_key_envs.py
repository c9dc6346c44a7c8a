"""Issue 15, finding 2: a judge's key variable comes from the operator's allow-list only (never ENFACE_*),
and its prompts folder lies under one configured root; a stored judge that breaks either refuses to run."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from humaneval.judge.scripted import ScriptedServer
from tests.platform.judges.test_judges_run import add, agreeing, run
from tests.support.judge_protocol import judged_campaign

FORM = {"name": "env judge", "model": "m", "mode": "single", "key_source": "env", "temperature": "0",
        "max_rounds": "4", "concurrency": "1", "requests_per_minute": "0", "timeout": "5",
        "price_prompt_per_1k": "0", "price_completion_per_1k": "0", "prompts_dir": ""}


def _field_error(world, cid, **fields):
    from enface.services import ServiceError

    with pytest.raises(ServiceError) as info:
        add(world, cid, **{"base_url": "http://127.0.0.1:9/v1", "model": "m", **fields})
    return info.value


def test_only_the_allow_list_and_never_enface_settings(world, monkeypatch):
    monkeypatch.setenv("ENFACE_SECRET_KEY", "do-not-send-me")
    cid = judged_campaign(world)
    err = _field_error(world, cid, api_key_env="ENFACE_SECRET_KEY")
    assert err.details["field"] == "api_key_env" and "Enface's own settings" in err.message
    err = _field_error(world, cid, api_key_env="ENFACE_DATA_DIR")
    assert "Enface's own settings" in err.message
    err = _field_error(world, cid, api_key_env="HOME")          # no allow-list: nothing allowed
    assert "allows none" in err.message and "ENFACE_JUDGE_KEY_ENVS" in err.message
    world.app.config["JUDGE_KEY_ENVS"] = ("OPENAI_API_KEY",)
    err = _field_error(world, cid, api_key_env="HOME")
    assert "allows OPENAI_API_KEY" in err.message
    assert add(world, cid, base_url="http://127.0.0.1:9/v1", model="m", api_key_env="OPENAI_API_KEY")


def test_the_allow_list_refuses_enface_names_at_start(monkeypatch, tmp_path):
    from enface.config import Config

    for bad in ("ENFACE_SECRET_KEY", "enface_data_dir", "1BAD", "A-B"):
        monkeypatch.setenv("ENFACE_JUDGE_KEY_ENVS", f"OPENAI_API_KEY,{bad}")
        cfg = Config.from_env(DATA_DIR=tmp_path)
        with pytest.raises(SystemExit, match="ENFACE_JUDGE_KEY_ENVS"):
            cfg.finalize()
    monkeypatch.setenv("ENFACE_JUDGE_KEY_ENVS", "OPENAI_API_KEY, DEEPSEEK_API_KEY")
    assert Config.from_env(DATA_DIR=tmp_path).finalize()["JUDGE_KEY_ENVS"] == ("OPENAI_API_KEY", "DEEPSEEK_API_KEY")


def test_a_stored_judge_with_a_forbidden_name_refuses_to_run(world, monkeypatch):
    """A judge added before the allow-list (or edited in the database) names ENFACE_SECRET_KEY: the run
    fails with the reason before any request leaves the worker, and queuing it is refused too."""
    from enface.extensions import db
    from enface.judges.models import Judge
    from enface.judges.running import queue_run
    from enface.services import ServiceError

    monkeypatch.setenv("ENFACE_SECRET_KEY", "do-not-send-me")
    cid = judged_campaign(world)
    with ScriptedServer(agreeing(api_key=None)) as server:
        jid = add(world, cid, base_url=server.base_url, model="m")
        with world.ctx(), db.write():
            db.session.execute(update(Judge).where(Judge.id == jid).values(api_key_env="ENFACE_SECRET_KEY"))
        out = run(world, jid)
        assert out["state"] == "failed" and "cannot run" in out["message"] and "ENFACE_SECRET_KEY" in out["message"]
        assert server.requests == [], "nothing may be sent"
        with world.ctx(), pytest.raises(ServiceError, match="Enface's own settings"):
            queue_run(db.session.get(Judge, jid))
        page = world.client("org@example.org").get(f"/campaigns/{cid}/judges/{jid}").get_data(as_text=True)
        assert "cannot run" in page


def test_the_form_says_which_names_are_allowed(world):
    cid = judged_campaign(world)
    org = world.client("org@example.org")
    page = org.get(f"/campaigns/{cid}/judges").get_data(as_text=True)
    assert "allows no environment variable" in page and "ENFACE_JUDGE_KEY_ENVS" in page
    world.app.config["JUDGE_KEY_ENVS"] = ("OPENAI_API_KEY", "DEEPSEEK_API_KEY")
    page = org.get(f"/campaigns/{cid}/judges").get_data(as_text=True)
    assert "<code>OPENAI_API_KEY</code>, <code>DEEPSEEK_API_KEY</code>" in page
    refused = org.post(f"/campaigns/{cid}/judges", data={**FORM, "base_url": "http://127.0.0.1:9/v1",
                                                         "api_key_env": "ENFACE_DATA_DIR"})
    assert refused.status_code == 400 and "own settings" in refused.get_data(as_text=True)


def test_prompts_folder_lies_under_the_root(world, tmp_path):
    root = tmp_path / "root"
    (root / "mine").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "link-out").symlink_to(tmp_path / "outside")
    world.app.config["JUDGE_PROMPTS_ROOT"] = root
    cid = judged_campaign(world)
    for bad in (str(tmp_path / "outside"), "../outside", "link-out", "/etc"):
        err = _field_error(world, cid, prompts_dir=bad)
        assert err.details["field"] == "prompts_dir" and "must lie under" in err.message, (bad, err.message)
    assert add(world, cid, base_url="http://127.0.0.1:9/v1", model="m", prompts_dir="mine")
    assert add(world, cid, base_url="http://127.0.0.1:9/v1", model="m", prompts_dir=str(root / "mine"))


def test_a_stored_prompts_folder_outside_the_root_refuses_to_run(world, tmp_path):
    from enface.extensions import db
    from enface.judges.models import Judge

    cid = judged_campaign(world)
    jid = add(world, cid, base_url="http://127.0.0.1:9/v1", model="m")
    with world.ctx(), db.write():
        db.session.execute(update(Judge).where(Judge.id == jid).values(prompts_dir=str(tmp_path)))
    out = run(world, jid)
    assert out["state"] == "failed" and "must lie under" in out["message"]


@pytest.mark.parametrize(("field", "value", "said"), [
    ("prompts_dir", "p" * 300, "longer than"), ("prompts_dir", "a/" * 260, "longer than"),
    ("prompts_dir", "x\x00y", "control characters"),
    ("base_url", "http://[::1", "base URL"), ("base_url", "http://[::1]:99999/v1", "base URL"),
    ("base_url", "http://x/" + "a" * 600, "base URL")])
def test_the_form_refuses_what_gave_500s(world, field, value, said):
    cid = judged_campaign(world)
    org = world.client("org@example.org")
    resp = org.post(f"/campaigns/{cid}/judges", data={**FORM, "base_url": "http://127.0.0.1:9/v1", field: value})
    assert resp.status_code == 400 and said in resp.get_data(as_text=True), resp.get_data(as_text=True)[:2000]
