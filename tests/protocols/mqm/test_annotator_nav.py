"""Where an account lands after logging in, and the navigation it gets (no browser needed)."""

from __future__ import annotations

from tests.support.campaigns import PASSWORD


def _login(world, email, next_url=None):
    c = world.app.test_client()
    url = "/auth/login" + (f"?next={next_url}" if next_url else "")
    return c, c.post(url, data={"email": email, "password": PASSWORD})


def test_annotator_only_accounts_land_on_their_items(world):
    c, r = _login(world, "ann1@example.org")
    assert r.status_code in (302, 303) and r.headers["Location"].endswith("/annotate/")
    nav = c.get("/annotate/").get_data(as_text=True).split("</nav>")[0]
    assert "My annotation items" in nav
    for other in ("My submissions", ">Team<", "API tokens", "Test sets", "Leaderboards"):
        assert other not in nav, other
    # already logged in: the login page sends them there too
    assert c.get("/auth/login").headers["Location"].endswith("/annotate/")
    # an explicit ?next= is still honoured
    _c, r = _login(world, "ann2@example.org", "/auth/password")
    assert r.headers["Location"].endswith("/auth/password")


def test_other_accounts_keep_the_shared_task_navigation(world):
    for email in ("alder-ann@example.org", "org@example.org"):    # a team member who annotates; an organizer
        c, r = _login(world, email)
        assert not r.headers["Location"].endswith("/annotate/"), email
        nav = c.get("/").get_data(as_text=True).split("</nav>")[0]
        assert "My submissions" in nav and "API tokens" in nav, email
