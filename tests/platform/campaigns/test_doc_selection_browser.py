"""Real-browser test of the budget-aware choice (Playwright driving Debian's chromium): the MQM new-campaign form
chooses its documents by subset2evaluate, the dashboard says how, and once the items are annotated it shows the
ranking's stability. Screenshots: tests/artifacts/budget-*.png."""

from __future__ import annotations

import pytest
from test_doc_selection import DOCS, OUTPUTS, expected_documents, store_toy_metric

from tests.support.browser import live_server, login_page, screenshots, twin_app
from tests.support.campaigns import PASSWORD, annotate_all, build_world

pytestmark = pytest.mark.browser

shot = screenshots("budget", full=True)


@pytest.fixture(scope="module")
def live(db_template, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("budget-browser")
    with live_server(db_template, tmp) as (base, _app, url), twin_app(tmp, url) as twin:
        world = build_world(twin, tmp, docs=DOCS, outputs=OUTPUTS)
        store_toy_metric(world)
        yield base, world


def test_the_form_chooses_documents_by_subset2evaluate_and_the_dashboard_shows_stability(live, browser):
    from enface.campaigns import services as svc
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    base, world = live
    errors: list[str] = []
    ctx, page = login_page(browser, base, "org@example.org", PASSWORD, errors)
    page.goto(f"{base}/campaigns/new?testset={world.testset_id}&protocol=mqm")
    page.fill("input[name=sample_docs]", "2")
    page.fill("input[name=sample_words]", "0")
    page.fill("#seed", "4")
    page.fill("#redundancy", "2")
    page.select_option("#doc_selection", "metric_var")
    page.fill("#doc_selection_metric", "toy")
    shot(page, "new-form")
    page.click("form.campaign-form button[type=submit]")
    page.wait_for_selector("#documents-chosen")
    assert "Documents chosen: by subset2evaluate (metric_var) from the toy segment scores" in page.inner_text("#documents-chosen")
    with world.ctx():
        camp = db.session.query(Campaign).one()
        assert camp.ranges == expected_documents(world, "metric_var", 2)
        cid = camp.id
        for email in ("ann1@example.org", "ann2@example.org"):
            svc.add_annotator(camp, _user(world, email))
        svc.start_campaign(svc.get_campaign(cid))
    annotate_all(world, cid, errors_in=("walrus-baseline",))
    page.goto(f"{base}/campaigns/{cid}")
    text = page.inner_text("#stability")
    assert "version pairs changed order in the last tenth of the segment judgments" in text
    shot(page, "dashboard")
    assert not errors, errors
    ctx.close()


def _user(world, email):
    from enface.extensions import db
    from enface.models import User

    return db.session.get(User, world.users[email])
