"""Enface's scoring library: validator, sacrebleu-identical metrics, COMET and significance.

A pure library: it never imports Flask, SQLAlchemy or the ``enface`` app, so
a researcher can use it on plain files::

    from scoring import load_testset, validate_submission, load_system_output, Scorer
    ts = load_testset("data/demo/testset")
    report = validate_submission(ts, "data/demo/systems/strong-mt")
    scores = Scorer(ts, ["bleu", "chrf", "ter", "dbleu"]).score(load_system_output(ts, "data/demo/systems/strong-mt"))
"""

from .metrics import DEFAULT_METRICS, REGISTRY, Score
from .scorer import Scorer, SystemScores
from .testset import Document, TestSet, TestSetError, load_flat, load_system_output, load_testset


def __getattr__(name):
    # The validator is imported on first use so that `import scoring` stays light.
    if name in ("validate_submission", "validate_files", "ValidationReport", "Finding"):
        from . import validate

        return getattr(validate, name)
    raise AttributeError(name)


__all__ = ["DEFAULT_METRICS", "REGISTRY", "Score", "Scorer", "SystemScores", "Document", "TestSet",
           "TestSetError", "load_flat", "load_system_output", "load_testset", "validate_submission",
           "validate_files", "ValidationReport", "Finding"]
