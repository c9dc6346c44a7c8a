"""The scoring job stores BLEU, chrF and TER segment scores (d-BLEU document scores) with their sentence-level signature."""

from __future__ import annotations

from tests.support.testkit import upload


def test_scoring_stores_segment_rows(app, world):
    from enface.extensions import db
    from enface.models import ScoreRow, Submission
    from sqlalchemy import select

    ts = world.testset()
    _uid, token = world.team_with_token("cap@a.org", "Team A")
    client = app.test_client()
    sid = upload(client, ts, token).get_json()["id"]
    with app.app_context():
        sub = db.session.get(Submission, sid)
        assert sub.state == "scored"
        rows = {(r.metric, r.scope): r
                for r in db.session.scalars(select(ScoreRow).where(ScoreRow.submission_id == sid))}
        n = sum(d.num_segments for d in sub.testset.documents)
        for key in ("bleu", "chrf", "ter"):
            seg = rows[(key, "segment")]
            assert seg.signature.startswith("level:segment|score:sentence_score|nrefs:")
            assert seg.value is None and len(seg.values) == n and all(isinstance(v, float) for v in seg.values)
            assert rows[(key, "corpus")].signature != seg.signature
        assert "eff:yes" in rows[("bleu", "segment")].signature
        doc = rows[("dbleu", "document")]
        assert doc.signature.startswith("level:document|score:sentence_score|")
        assert len(doc.values) == len(sub.testset.documents)
