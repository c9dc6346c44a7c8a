"""The output browser: who sees what (public before/after release, organizer, annotator), the pages,
the leaderboard cells' links to their evidence, and the MQM span filters."""

from __future__ import annotations

import re

from tests.support.campaigns import annotate_all, new_campaign

PAGES = ["/browse/{ts}", "/browse/{ts}/doc/river.1", "/browse/{ts}/diff?doc=river.1", "/browse/{ts}/spans",
         "/browse/{ts}/downloads", "/browse/{ts}/downloads/release.zip"]


def _release_testset(world, released=True, references_public=None):
    from enface.extensions import db
    from enface.models import TestSet
    from enface.services.testsets import note_leaderboard_change

    with world.ctx(), db.write():
        ts = db.session.get(TestSet, world.testset_id)
        ts.released = released
        if references_public is not None:
            ts.references_public = references_public
        ts.scores_version = TestSet.scores_version + 1
        note_leaderboard_change(db.session, ts.id)   # this process's leaderboard reads it again


def _finished_mqm(world) -> int:
    """A released MQM campaign: ann1 marks one Major Accuracy span per segment of quokka-nmt, ann2 a Minor
    Fluency span on segment 1 of every item."""
    cid = new_campaign(world, redundancy=2)
    quokka = world.subs["quokka-nmt"]

    def marks(email, _n, a):
        if email == "ann1@example.org" and a["submission_id"] == quokka:
            return [{"seg": seg, "start": 0, "end": 3, "category": "Accuracy", "subcategory": "Mistranslation",
                     "severity": "Major"} for seg in range(a["segments"])]
        if email == "ann2@example.org":
            return [{"seg": 0, "start": 4, "end": 8, "category": "Fluency", "subcategory": "Grammar",
                     "severity": "Minor"}]
        return []

    annotate_all(world, cid, marks, release=True)
    return cid


def test_public_sees_nothing_before_release_and_everything_after(world):
    ts = world.testset_id
    anon = world.client()
    for page in PAGES:
        assert anon.get(page.format(ts=ts)).status_code == 404, page
    # a team member sees its own rows on the leaderboard before release, but no browser
    assert world.client("alder-ann@example.org").get(f"/browse/{ts}").status_code == 404
    org = world.client("org@example.org")
    for page in PAGES:
        assert org.get(page.format(ts=ts)).status_code == 200, page
    assert "Not released yet" in org.get(f"/browse/{ts}").get_data(as_text=True)
    _release_testset(world)
    for page in PAGES:
        assert anon.get(page.format(ts=ts)).status_code == 200, page
    # the organizer's controls are the organizer's alone
    assert "Freeze the leaderboard now" not in anon.get(f"/browse/{ts}/downloads").get_data(as_text=True)
    assert anon.post(f"/browse/{ts}/freeze").status_code in (302, 400, 401, 403)


def test_an_annotator_of_a_running_campaign_sees_no_system_names(world):
    ts = world.testset_id
    new_campaign(world)          # started, ann1 and ann2 annotate
    _release_testset(world)
    ann = world.client("ann1@example.org")
    for page in PAGES:
        r = ann.get(page.format(ts=ts))
        assert r.status_code == 403, page
        assert "zephyr-mt" not in r.get_data(as_text=True)
    # an annotator outside the campaign is just the public
    assert world.client("ann3@example.org").get(f"/browse/{ts}").status_code == 200


def test_document_page_shows_source_references_and_systems_en_face(world):
    ts = world.testset_id
    _release_testset(world, references_public=True)
    anon = world.client()
    zephyr, walrus = world.subs["zephyr-mt"], world.subs["walrus-baseline"]
    html = anon.get(f"/browse/{ts}/doc/river.1?sys={zephyr}&sys={walrus}").get_data(as_text=True)
    assert "The old ferryman rowed slowly across the grey river." in html          # the source
    assert "ref 0" in html                                                          # reference 1
    assert "Der alte Fährmann ruderte langsam" in html and "Niemand am Ufer kannte" in html
    heads = re.findall(r"<th>(?:<a [^>]*>)?([^<]+)", html.split("<tbody>")[0].split('class="enface"')[1])
    assert heads == ["Source", "reference 1", "zephyr-mt", "walrus-baseline"]
    # an unknown or invisible system id is ignored, a missing document is a 404
    assert anon.get(f"/browse/{ts}/doc/river.1?sys=999999").status_code == 200
    assert anon.get(f"/browse/{ts}/doc/nope").status_code == 404
    assert anon.get(f"/browse/{ts}/diff?doc=river.1&a=999999&b=ref1").status_code == 400


def test_private_references_stay_private_after_release(world):
    """Release opens the outputs, not the references: those follow the test set's own "references public"
    setting, as the test set's page and the release bundle do (the access matrix found them in the browser)."""
    ts = world.testset_id
    _release_testset(world, references_public=False)
    anon, team = world.client(), world.client("alder-ann@example.org")
    zephyr, walrus = world.subs["zephyr-mt"], world.subs["walrus-baseline"]
    reference = "ref 0"        # the world's references read "ref <n> ..."
    for client in (anon, team):
        html = client.get(f"/browse/{ts}/doc/river.1?sys={zephyr}&sys={walrus}").get_data(as_text=True)
        assert "The old ferryman rowed slowly across the grey river." in html and "Der alte Fährmann" in html
        assert reference not in html and "reference 1" not in html
        heads = re.findall(r"<th>(?:<a [^>]*>)?([^<]+)", html.split("<tbody>")[0].split('class="enface"')[1])
        assert heads == ["Source", "zephyr-mt", "walrus-baseline"]
        diff = client.get(f"/browse/{ts}/diff?doc=river.1&a={zephyr}&b=ref1")
        assert diff.status_code == 400 and reference not in diff.get_data(as_text=True)
        assert "ref1" not in client.get(f"/browse/{ts}/diff?doc=river.1").get_data(as_text=True)
    org = world.client("org@example.org")           # organizers read them as before
    assert reference in org.get(f"/browse/{ts}/doc/river.1").get_data(as_text=True)
    assert org.get(f"/browse/{ts}/diff?doc=river.1&a={zephyr}&b=ref1").status_code == 200
    _release_testset(world, references_public=True)
    assert anon.get(f"/browse/{ts}/diff?doc=river.1&a={zephyr}&b=ref1").status_code == 200
    assert reference in anon.get(f"/browse/{ts}/doc/river.1").get_data(as_text=True)


def test_spans_overlay_and_filters(world):
    ts = world.testset_id
    cid = _finished_mqm(world)
    _release_testset(world)
    anon = world.client()
    quokka = world.subs["quokka-nmt"]
    html = anon.get(f"/browse/{ts}/spans").get_data(as_text=True)
    rows = re.findall(r'<tr class="span-row" data-severity="(\w+)">', html)
    # ann1: 7 Major (one per segment of quokka-nmt); ann2: one Minor per item (3 systems x 2 documents)
    assert rows.count("Major") == 7 and rows.count("Minor") == 6
    html = anon.get(f"/browse/{ts}/spans?severity=Major").get_data(as_text=True)
    assert set(re.findall(r'data-severity="(\w+)"', html)) == {"Major"}
    html = anon.get(f"/browse/{ts}/spans?system={quokka}&rater=rater2").get_data(as_text=True)
    assert len(re.findall(r'class="span-row"', html)) == 2
    html = anon.get(f"/browse/{ts}/spans?category=Fluency/Grammar&doc=orchard").get_data(as_text=True)
    assert len(re.findall(r'class="span-row"', html)) == 3
    html = anon.get(f"/browse/{ts}/spans?category=Accuracy&rater=rater2").get_data(as_text=True)
    assert "nothing matches these filters" in html
    html = anon.get(f"/browse/{ts}/spans?campaign={cid + 1}").get_data(as_text=True)
    assert "nothing matches" in html
    # the document view lays the spans over the outputs, with category, severity and rater
    html = anon.get(f"/browse/{ts}/doc/river.1?sys={quokka}").get_data(as_text=True)
    marks = re.findall(r'<mark class="span sev-(\w+)" title="([^"]+)"', html)
    assert ("major", "Accuracy/Mistranslation · Major · rater1") in marks
    html = anon.get(f"/browse/{ts}/doc/river.1?sys={quokka}&severity=Minor").get_data(as_text=True)
    assert set(re.findall(r'<mark class="span sev-(\w+)"', html)) == {"minor"}


def test_every_leaderboard_cell_links_to_its_evidence(world):
    import sacrebleu
    from enface.extensions import db
    from enface.models import ScoreRow

    from tests.support.campaigns import DOCS, OUTPUTS

    ts = world.testset_id
    with world.ctx(), db.write():
        for sid in world.subs.values():
            db.session.add(ScoreRow(submission_id=sid, metric="bleu", scope="corpus", name="BLEU", value=30.0,
                                    higher_is_better=True, signature="nrefs:1|test"))
            db.session.add(ScoreRow(submission_id=sid, metric="comet", scope="corpus", name="COMET", value=0.5,
                                    higher_is_better=True, signature="comet|test"))
            db.session.add(ScoreRow(submission_id=sid, metric="comet", scope="segment", name="COMET", value=None,
                                    values=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], higher_is_better=True))
    _finished_mqm(world)
    _release_testset(world)
    anon = world.client()
    html = anon.get(f"/leaderboard/{ts}").get_data(as_text=True)
    zephyr = world.subs["zephyr-mt"]
    corpus_link = f"/browse/{ts}/system/{zephyr}?metric=bleu"
    assert corpus_link in html
    assert f"/browse/{ts}/system/{zephyr}?metric=comet" in html
    assert f"/browse/{ts}/spans?system={world.subs['quokka-nmt']}" in html       # the MQM cell
    page = anon.get(corpus_link).get_data(as_text=True)
    # BLEU: each document scored on its own, as sacrebleu scores that document
    cells = [float(x) for x in re.findall(r'<td class="num chosen">([^<]+)</td>', page)]
    expected = [sacrebleu.corpus_bleu(OUTPUTS[d], [[f"ref {i}" for i in range(len(DOCS[d]))]]).score
                for d in ("river.1", "orchard")]
    assert cells == [round(x, 2) for x in expected]
    # COMET: the mean of each document's segment scores (river.1: 4 segments, orchard: 3)
    rows = re.findall(r"<tr><td><a [^>]*>([^<]+)</a></td>\s*<td class=\"num\">\d+</td>(.*?)</tr>", page, re.S)
    comet = {doc: re.findall(r'<td class="num">([0-9.]+|n/a)</td>', cells_html)[-1] for doc, cells_html in rows}
    assert comet == {"river.1": "0.25", "orchard": "0.60"}
    assert f"/browse/{ts}/doc/river.1?sys={zephyr}" in page


def test_before_release_the_leaderboard_links_only_for_organizers(world):
    ts = world.testset_id
    html = world.client("alder-ann@example.org").get(f"/leaderboard/{ts}").get_data(as_text=True)
    assert "/browse/" not in html
    assert f"/browse/{ts}" in world.client("org@example.org").get(f"/leaderboard/{ts}").get_data(as_text=True)


def test_public_pages_are_never_stale(world):
    """Anonymous pages are kept per process: a release, a new campaign or a withdrawal shows at once."""
    ts = world.testset_id
    _release_testset(world)
    anon = world.client()
    assert "no human evaluation of this test set is released yet" in anon.get(f"/browse/{ts}/spans").get_data(
        as_text=True)
    _finished_mqm(world)                        # its release raises the test set's scores_version
    assert len(re.findall(r'class="span-row"', anon.get(f"/browse/{ts}/spans").get_data(as_text=True))) == 13
    _release_testset(world, released=False)     # withdrawn: nothing for the public any more
    assert anon.get(f"/browse/{ts}/spans").status_code == 404
    assert world.client("org@example.org").get(f"/browse/{ts}/spans").status_code == 200


def test_a_large_test_set_without_stored_scores_by_document_says_to_rescore(world, monkeypatch):
    from enface.browse import scores
    from enface.extensions import db
    from enface.models import ScoreRow

    monkeypatch.setattr(scores, "ON_VIEW_SEGMENTS", 5)     # the world's 7 segments count as large
    with world.ctx(), db.write():
        db.session.add(ScoreRow(submission_id=world.subs["zephyr-mt"], metric="bleu", scope="corpus", name="BLEU",
                                value=30.0, higher_is_better=True, signature="nrefs:1|test"))
    _release_testset(world)
    page = world.client().get(f"/browse/{world.testset_id}/system/{world.subs['zephyr-mt']}").get_data(as_text=True)
    assert "No scores by document are stored for BLEU" in page and "enface rescore --submission" in page


def test_hostile_query_parameters_are_refused_or_ignored_never_a_500(world):
    ts = world.testset_id
    _finished_mqm(world)
    _release_testset(world)
    anon = world.client()
    evil = "<script>alert(1)</script>"
    for url, ok in ((f"/browse/{ts}/spans?system={evil}&rater={evil}&category={evil}&severity={'x' * 5000}", 200),
                    (f"/browse/{ts}/spans?campaign=-1&doc=%00", 200),
                    (f"/browse/{ts}/doc/river.1?sys=abc&sys=-3&sys=99999999999999999999&severity={evil}", 200),
                    (f"/browse/{ts}/diff?doc=river.1&a={evil}&b=ref1", 400),
                    (f"/browse/{ts}/diff?doc=../../etc&a=ref1&b=ref1", 404),
                    (f"/browse/{ts}/doc/..%2F..%2Fetc%2Fpasswd", 404),
                    (f"/browse/{ts}/system/99999", 404),
                    (f"/browse/{ts + 1}/spans", 404),
                    (f"/browse/{ts}/downloads/%2e%2e/README.md", 404)):
        r = anon.get(url)
        assert r.status_code == ok, (url, r.status_code)
        assert evil not in r.get_data(as_text=True), url
    # a system of another test set is not a system of this one
    assert anon.get(f"/browse/{ts}/system/{world.subs['zephyr-mt'] + 1000}").status_code == 404
