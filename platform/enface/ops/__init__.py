"""Operating a deployment: ``enface doctor`` (:mod:`~enface.ops.doctor`), ``enface backup`` / ``restore`` (:mod:`~enface.ops.backup`)
and the structured logs (:mod:`~enface.ops.logs`)."""
