"""Only the compiled part lives here; everything else is in pyproject.toml.

The extensions are optional: without a C compiler the install still succeeds
and TER, BLEU and chrF are computed by sacrebleu's own (slower, identical) code.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("scoring.metrics._ter", ["scoring/metrics/_ter.c"], optional=True,
                  extra_compile_args=["-O2", "-ffp-contract=off"]),
        Extension("scoring.metrics._ngrams", ["scoring/metrics/_ngrams.c"], optional=True,
                  extra_compile_args=["-O2", "-ffp-contract=off"]),
    ],
)
