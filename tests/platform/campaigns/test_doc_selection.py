"""Budget-aware choice of a campaign's documents (enface.campaigns.selection): the rules on plain data, a
campaign created with a subset2evaluate method (through the services, the new-campaign page and the command
line) choosing what humaneval.selection chooses, and the refusals."""

from __future__ import annotations

from statistics import fmean

import pytest
from click.testing import CliRunner
from enface.campaigns import sampling
from enface.campaigns.selection import SELECTIONS, Span, choose_spans, span_scores
from enface.services import ServiceError

from humaneval.selection import select_items
from tests.support.campaigns import build_world

# --------------------------------------------------------------------------- the rules, on plain data

SPANS = [Span("a", "a", 0, 2), Span("b", "b", 0, 3), Span("c", "c", 0, 1), Span("d", "d", 1, 3)]
# three systems; they differ most on document b, a little on d, not at all on a and c
SEGMENTS = {
    "s1": {("a", 0): 0.5, ("a", 1): 0.5, ("b", 0): 0.1, ("b", 1): 0.2, ("b", 2): 0.0, ("c", 0): 0.3,
           ("d", 0): 0.9, ("d", 1): 0.40, ("d", 2): 0.5},
    "s2": {("a", 0): 0.5, ("a", 1): 0.5, ("b", 0): 0.5, ("b", 1): 0.5, ("b", 2): 0.5, ("c", 0): 0.3,
           ("d", 0): 0.1, ("d", 1): 0.45, ("d", 2): 0.5},
    "s3": {("a", 0): 0.5, ("a", 1): 0.5, ("b", 0): 0.9, ("b", 1): 0.8, ("b", 2): 1.0, ("c", 0): 0.3,
           ("d", 0): 0.5, ("d", 1): 0.50, ("d", 2): 0.5},
}


def test_a_spans_score_is_the_mean_of_its_segments():
    scores = span_scores(SPANS, SEGMENTS)
    assert scores["b"] == {"s1": pytest.approx(0.1), "s2": pytest.approx(0.5), "s3": pytest.approx(0.9)}
    assert scores["d"]["s1"] == pytest.approx(fmean([0.40, 0.5]))      # segments 1 and 2 only


@pytest.mark.parametrize("method", [m for m in SELECTIONS if m != "uniform"])
def test_the_chosen_spans_are_subset2evaluates_in_test_set_order(method):
    chosen = choose_spans(SPANS, 2, method, SEGMENTS, seed=3)
    expected = set(select_items(span_scores(SPANS, SEGMENTS), 2, method, seed=3))
    assert [s.key for s in chosen] == [s.key for s in SPANS if s.key in expected]


def test_metric_var_takes_where_the_systems_differ_most():
    assert [s.key for s in choose_spans(SPANS, 2, "metric_var", SEGMENTS)] == ["b", "d"]
    assert [s.key for s in choose_spans(SPANS, 1, "metric_var", SEGMENTS)] == ["b"]
    assert choose_spans(SPANS, 9, "metric_var", SEGMENTS) == SPANS        # the budget covers them all


def test_the_refusals_name_their_field():
    with pytest.raises(ServiceError) as exc:
        choose_spans(SPANS, 2, "metric_var", {"s1": SEGMENTS["s1"]})
    assert (exc.value.status, exc.value.code, exc.value.details["field"]) == (409, "too_few_systems", "doc_selection")
    holed = {**SEGMENTS, "s2": {k: v for k, v in SEGMENTS["s2"].items() if k != ("b", 1)}}
    with pytest.raises(ServiceError) as exc:
        choose_spans(SPANS, 2, "metric_cons", holed, metric="chrf")
    assert exc.value.status == 409 and exc.value.details["field"] == "doc_selection_metric"
    assert "s2 has no chrf score" in exc.value.message and "b" in exc.value.message
    with pytest.raises(ServiceError) as exc:
        choose_spans(SPANS, 2, "metric_variance", SEGMENTS)
    assert exc.value.status == 400 and exc.value.details["field"] == "doc_selection"


def test_the_candidates_are_cut_as_the_uniform_sample_cuts():
    docs = [sampling.DocInfo(f"d{i}", tuple(f"w{j} " * (j + 1) for j in range(5 + i))) for i in range(6)]
    count = lambda s: len(s.split())   # noqa: E731
    candidates = {r.doc: r for r in sampling.candidate_ranges(docs, 3, 30, count)}
    assert list(candidates) == [d.name for d in docs]
    for seed in range(5):
        for r in sampling.sample_ranges(docs, 3, 30, count, seed):
            assert candidates[r.doc] == r


# --------------------------------------------------------------------------- campaigns

DOCS = {name: [f"Sentence {k} of the {name} story, told slowly." for k in range(n)]
        for name, n in (("alpha", 3), ("beta", 4), ("gamma", 2), ("delta", 3), ("epsilon", 2))}
OUTPUTS = {name: [f"Satz {k} der Geschichte {name}." for k in range(len(lines))] for name, lines in DOCS.items()}
# where the toy metric separates the systems (elsewhere every system scores 50)
SPREAD = {("gamma", 1): 20.0, ("delta", 0): 9.0, ("alpha", 2): 1.0}


@pytest.fixture
def world(app, tmp_path):
    return build_world(app, tmp_path, docs=DOCS, outputs=OUTPUTS)


def toy_segments(world) -> dict[str, dict[tuple[str, int], float]]:
    """{system name: {(document, position): score}}: lower is better (a toy error rate), as stored."""
    out = {}
    for k, name in enumerate(["zephyr-mt", "quokka-nmt", "walrus-baseline"]):
        out[name] = {(d, i): 50.0 + (k - 1) * SPREAD.get((d, i), 0.0) for d, lines in DOCS.items()
                     for i in range(len(lines))}
    return out


def store_toy_metric(world) -> None:
    from enface.extensions import db
    from enface.models import ScoreRow

    with world.ctx(), db.write():
        for name, scores in toy_segments(world).items():
            db.session.add(ScoreRow(submission_id=world.subs[name], metric="toy", scope="segment", name="toy",
                                    values=[scores[(d, i)] for d, lines in DOCS.items() for i in range(len(lines))],
                                    higher_is_better=False))


def create(world, systems=("zephyr-mt", "quokka-nmt", "walrus-baseline"), **kw):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet

    with world.ctx():
        ts = db.session.get(TestSet, world.testset_id)
        c = svc.create_campaign(None, ts, svc.CampaignInput(
            name="Budget", submission_ids=[world.subs[s] for s in systems], protocol="mqm",
            settings={"attention_share": 0.0, "source_words": "whitespace"},
            **{"seed": 4, "sample_docs": 2, "sample_words": 0, **kw}))
        return c.id, list(c.ranges), c.doc_selection


def expected_documents(world, method: str, n: int, seed: int = 4) -> list[str]:
    """What humaneval.selection itself picks (a document's score: the mean of its segments', higher better)."""
    segments = toy_segments(world)
    scores = {d: {s: -fmean(segments[s][(d, i)] for i in range(len(lines))) for s in segments}
              for d, lines in DOCS.items()}
    chosen = set(select_items(scores, n, method, seed=seed))
    return [f"{d}:1-{len(lines)}" for d, lines in DOCS.items() if d in chosen]


@pytest.mark.parametrize("method", ["metric_var", "metric_cons", "metric_avg"])
def test_a_campaign_takes_the_documents_subset2evaluate_picks(world, method):
    store_toy_metric(world)
    cid, ranges, chosen = create(world, doc_selection=method, doc_selection_metric="toy")
    assert ranges == expected_documents(world, method, 2)
    assert chosen == {"method": method, "metric": "toy", "systems": 3}
    if method == "metric_var":
        assert ranges == ["gamma:1-2", "delta:1-3"]        # the two widest spreads
    page = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    assert f"<b>Documents chosen:</b> by subset2evaluate ({method}) from the toy segment scores of 3 systems" in page


def test_a_uniform_sample_is_unchanged(world):
    from enface.campaigns import services as svc
    from enface.extensions import db
    from enface.models import TestSet

    cid, ranges, chosen = create(world, seed=11)
    with world.ctx():
        docs = svc.testset_docs(db.session.get(TestSet, world.testset_id))
    assert ranges == [str(r) for r in sampling.sample_ranges(docs, 2, 0, len, 11)]
    assert chosen == {"method": "uniform"}
    assert create(world, ranges="beta:2-3")[2] == {"method": "ranges"}
    page = world.client("org@example.org").get(f"/campaigns/{cid}").get_data(as_text=True)
    assert "a uniform random sample (by the seed)" in page


@pytest.mark.parametrize("kw, status, code, field", [
    ({"doc_selection": "metric_var", "doc_selection_metric": "comet"}, 409, "no_segment_scores",
     "doc_selection_metric"),
    ({"doc_selection": "metric_var", "doc_selection_metric": "toy", "systems": ("zephyr-mt",)}, 409,
     "too_few_systems", "doc_selection"),
    ({"doc_selection": "most_informative"}, 400, "invalid_field", "doc_selection"),
    ({"doc_selection": "metric_var", "doc_selection_metric": "toy", "ranges": "beta"}, 400, "invalid_field",
     "doc_selection"),
])
def test_a_choice_that_cannot_be_made_is_refused(world, kw, status, code, field):
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    store_toy_metric(world)
    with pytest.raises(ServiceError) as exc:
        create(world, **kw)
    assert (exc.value.status, exc.value.code, exc.value.details["field"]) == (status, code, field)
    with world.ctx():
        assert db.session.query(Campaign).count() == 0      # nothing half-made


def test_the_new_campaign_page_offers_and_applies_the_choice(world):
    from enface.campaigns.models import Campaign
    from enface.extensions import db

    store_toy_metric(world)
    c = world.client("org@example.org")
    for protocol in ("mqm", "esa", "cesa", "bws", "reader"):
        page = c.get(f"/campaigns/new?testset={world.testset_id}&protocol={protocol}").get_data(as_text=True)
        assert 'name="doc_selection"' in page and 'value="metric_cons"' in page, protocol
        assert "With segment scores: toy." in page, protocol
    form = c.get(f"/campaigns/new?testset={world.testset_id}&protocol=mqm")
    assert form.status_code == 200
    fields = {"csrf_token": "", "testset": str(world.testset_id), "name": "Budget MQM", "docs_mode": "sample",
              "sample_docs": "2", "sample_words": "0", "redundancy": "1", "strategy": "redundancy", "seed": "4",
              "scheme": "wmt23-literary", "attention_share": "0", "attention_kind": "mixed",
              "source_words": "whitespace", "significance_unit": "segment", "significance_test": "wilcoxon",
              "words_per_second": "20", "doc_selection": "metric_var", "doc_selection_metric": "nope",
              "systems": [str(world.subs[s]) for s in ("zephyr-mt", "quokka-nmt", "walrus-baseline")]}
    r = c.post("/campaigns/new", data=fields)
    assert r.status_code == 400 and "the metric &#39;nope&#39; has no segment scores" in r.get_data(as_text=True)
    assert 'value="nope"' in r.get_data(as_text=True)          # the form keeps what was asked
    r = c.post("/campaigns/new", data={**fields, "doc_selection_metric": "toy"})
    assert r.status_code == 302, r.get_data(as_text=True)
    with world.ctx():
        camp = db.session.query(Campaign).one()
        assert camp.ranges == expected_documents(world, "metric_var", 2)
        assert camp.doc_selection["method"] == "metric_var"


def test_the_command_line_chooses_too(world, database_url, tmp_path):
    from enface.campaigns.selection import SELECTIONS
    from enface.commands import main
    from enface.commands.campaign_create import DOC_SELECTIONS

    assert DOC_SELECTIONS == SELECTIONS
    store_toy_metric(world)
    env = {"ENFACE_DATABASE_URL": database_url, "ENFACE_DATA_DIR": str(tmp_path / "data"),
           "ENFACE_SECRET_KEY": "cli-test"}
    systems = [a for s in ("zephyr-mt", "quokka-nmt", "walrus-baseline") for a in ("--system", str(world.subs[s]))]
    args = ["campaign", "create", "--protocol", "esa", "--testset", str(world.testset_id), "--name", "CLI",
            "--docs", "2", "--words", "0", "--seed", "4", *systems, "--doc-selection", "metric_var"]
    r = CliRunner().invoke(main, [*args, "--doc-selection-metric", "toy"], env=env)
    assert r.exit_code == 0, r.output
    assert "documents gamma:1-2, delta:1-3" in r.output
    r = CliRunner().invoke(main, args, env=env)          # chrF (the default) has no segment scores here
    assert r.exit_code != 0 and "the metric 'chrf' has no segment scores" in r.output
    r = CliRunner().invoke(main, ["campaign", "create", "--help"])
    assert "--doc-selection" in r.output and "metric_var" in r.output
