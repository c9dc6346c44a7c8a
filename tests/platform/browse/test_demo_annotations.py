"""The demo's finished MQM campaign: data/demo/mqm/annotations.tsv imports into a started campaign as two
raters' marks, ranks the demo systems by their quality, and bad files are refused with their line."""

from __future__ import annotations

import pytest

from tests.support.demo import TSV, build_demo


@pytest.fixture
def demo(app):
    """The demo test set and systems (unscored), its finished campaign started but still empty:
    (campaign id, test set id)."""
    d = build_demo(app, scored=False, finished=False, released=False)
    return d.campaign_id, d.testset_id


def _import(app, cid, text, path="a.tsv"):
    from enface.campaigns import services as svc
    from enface.protocols.mqm.services.imports import import_finished

    with app.app_context():
        return import_finished(svc.get_campaign(cid), text, path=path)


def test_the_demo_annotations_rank_the_systems_by_their_quality(app, demo):
    from enface.campaigns import services as svc

    cid, ts = demo
    counts = _import(app, cid, TSV.read_text(encoding="utf-8"))
    assert counts["assignments"] == 12 and counts["marks"] > 100
    with app.app_context():
        res = svc.release(svc.get_campaign(cid))
    scores = {s: r["score"] for s, r in res["systems"].items()}
    # Google MQM: lower is better; the strong system has the fewest errors, the weak one the most
    assert scores["lantern-nmt"] < 1 < scores["literal-baseline"] < scores["inkstone-llm"]
    majors = {s: r["errors"].get("Major", 0) if isinstance(r["errors"], dict) else None
              for s, r in res["systems"].items()}
    assert majors["lantern-nmt"] == 0
    # the browser shows the spans publicly once the test set is released
    from enface.extensions import db
    from enface.models import TestSet

    with app.app_context(), db.write():
        db.session.get(TestSet, ts).released = True
    html = app.test_client().get(f"/browse/{ts}/spans?severity=Major&rater=rater2").get_data(as_text=True)
    assert "inkstone-llm" in html and "Untranslated text" in html and 'data-severity="Minor"' not in html


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace("lantern-nmt\t", "nobody-mt\t", 1), "system 'nobody-mt' is not in this campaign"),
    (lambda t: t.replace("Good wine doesn't fear", "Good wine doesn't dread", 1), "the target differs"),
    (lambda t: t.replace("\tMinor\tthe proverb", "\tHuge\tthe proverb", 1), "unknown severity"),
    (lambda t: t.replace("\trater2\t", "\trater3\t", 1), "no item of rater3"),
    (lambda t: "\n".join(ln for ln in t.split("\n") if not ln.startswith("lantern-nmt\tmountain-inn\t5\t")),
     "did not judge mountain-inn:5 of lantern-nmt"),
    (lambda t: t.replace("<v>Mountain Middle Inn</v>", "<v>Mountain Middle Inn", 1), "unbalanced <v>"),
])
def test_bad_annotation_files_are_refused_naming_the_line(app, demo, change, message):
    from enface.protocols.mqm.models import Mark
    from enface.services import ServiceError
    from sqlalchemy import func, select

    cid, _ts = demo
    with pytest.raises(ServiceError) as err:
        _import(app, cid, change(TSV.read_text(encoding="utf-8")), path="bad.tsv")
    assert message in err.value.message and "bad.tsv" in err.value.message
    from enface.extensions import db

    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(Mark)) == 0   # nothing written


def test_importing_twice_is_refused(app, demo):
    from enface.services import ServiceError

    cid, _ts = demo
    _import(app, cid, TSV.read_text(encoding="utf-8"))
    with pytest.raises(ServiceError):
        _import(app, cid, TSV.read_text(encoding="utf-8"))


def test_the_demo_file_is_plain_marot_tsv():
    import mqm

    data = mqm.read_tsv(TSV, scheme=mqm.load_scheme("google-mqm"), strict=True)
    assert {e.rater for e in data.errors} == {"rater1", "rater2"}
    assert {e.system for e in data.errors} == {"lantern-nmt", "literal-baseline", "inkstone-llm"}
