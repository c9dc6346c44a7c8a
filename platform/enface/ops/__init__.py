"""Operating a deployment: ``enface doctor`` (:mod:`.doctor`), ``enface backup`` / ``restore`` (:mod:`.backup`)
and the structured logs (:mod:`.logs`)."""
