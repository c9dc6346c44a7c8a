"""The demo task (data/demo) in a test database: the test set, three demo systems scored with the
scoring library, an organizer, two MQM raters and the finished campaign of data/demo/mqm/annotations.tsv."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ROOT

DEMO = ROOT / "data" / "demo"
TSV = DEMO / "mqm" / "annotations.tsv"
DOCS = ("jade-lantern.1", "jade-lantern.2", "mountain-inn")
# (demo folder, system name, team, label, constrained): as `enface demo` submits them
SYSTEMS = [("literal-mt", "literal-baseline", None, "baseline", True),
           ("strong-mt", "lantern-nmt", "Lantern Lab", "primary", True),
           ("weak-mt", "inkstone-llm", "Inkstone MT", "primary", False)]
METRICS = ["bleu", "chrf", "ter", "dbleu"]


@dataclass
class Demo:
    testset_id: int
    campaign_id: int
    subs: dict[str, int] = field(default_factory=dict)


def store_scores(submission_id: int, scores, documents: dict[str, list] | None = None) -> None:
    """Corpus, segment (d-BLEU: document) and by-document rows, as the scoring pipeline stores them."""
    from enface.extensions import db
    from enface.models import ScoreRow

    with db.write():
        for key, values in (documents or {}).items():
            if not (key == "dbleu" and scores[key].segments is not None):
                db.session.add(ScoreRow(submission_id=submission_id, metric=key, scope="document", name=key,
                                        value=None, values=values, signature=scores[key].signature))
        for key, s in scores.items():
            db.session.add(ScoreRow(submission_id=submission_id, metric=key, scope="corpus", name=s.name,
                                    value=s.value if s.available else None, higher_is_better=s.higher_is_better,
                                    signature=s.signature, versions=s.versions or {}, reason=s.reason))
            if s.segments is not None:
                db.session.add(ScoreRow(submission_id=submission_id, metric=key,
                                        scope="document" if key == "dbleu" else "segment", name=s.name, value=None,
                                        values=[float(v) for v in s.segments], higher_is_better=s.higher_is_better,
                                        signature=s.signature))


def build_demo(app, *, scored: bool = True, finished: bool = True, released: bool = True) -> Demo:
    """The demo test set with its systems; ``finished``: the annotations imported and the campaign released
    (else started and empty); ``released``: the test set's results public."""
    from enface.campaigns import services as svc
    from enface.commands.demo import DEMO_FINISHED
    from enface.extensions import db
    from enface.models import TestSet, User
    from enface.protocols.mqm.services.imports import import_finished
    from enface.services.testsets import bump_scores_version, import_testset

    from scoring import Scorer, load_system_output, load_testset

    from .campaigns import add_submission, fast_user

    with app.app_context():
        ts = import_testset(DEMO / "testset", "Demo")
        demo = Demo(testset_id=ts.id, campaign_id=0)
        scorer = Scorer(load_testset(DEMO / "testset"), METRICS) if scored else None
        for folder, name, team, label, constrained in SYSTEMS:
            outs = {d: (DEMO / "systems" / folder / f"{d}.txt").read_text(encoding="utf-8").splitlines()
                    for d in DOCS}
            demo.subs[name] = add_submission(ts.id, name, team, label, constrained, outs)
            if scorer is not None:
                result = scorer.score(load_system_output(scorer.testset, DEMO / "systems" / folder))
                store_scores(demo.subs[name], result.scores, scorer.document_scores(result))
        org = fast_user("org@example.org", "organizer", "Olga Organizer")
        camp = svc.create_campaign(db.session.get(User, org), ts, svc.CampaignInput(
            name=DEMO_FINISHED["name"], submission_ids=list(demo.subs.values()), redundancy=2,
            ranges=DEMO_FINISHED["ranges"], settings=DEMO_FINISHED["settings"], seed=1))
        for n in (1, 2):
            svc.add_annotator(camp, db.session.get(User, fast_user(f"rater{n}@example.org", "annotator")))
        svc.start_campaign(svc.get_campaign(camp.id))
        demo.campaign_id = camp.id
        if finished:
            import_finished(svc.get_campaign(camp.id), TSV.read_text(encoding="utf-8"), path=str(TSV))
            svc.release(svc.get_campaign(camp.id))
        with db.write():
            db.session.get(TestSet, ts.id).released = released
            bump_scores_version(db.session, ts.id)
    return demo
