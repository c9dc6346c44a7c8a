"""ESA^AI: error spans suggested by a machine, pre-filled on the ESA page, and what annotators did with them.

The organizer picks one suggestion source per campaign (:mod:`.source`): an LLM through
the judges' endpoint machinery (:mod:`.running`), or an uploaded JSON Lines file of spans
per item and system (:mod:`humaneval.esa.suggestions`). The page shows the suggestions
(:mod:`.page`); the results report their provenance shares, precision and recall and the
time per segment with and without them (:mod:`.report`); items the suggester found
flawless can be left out at the start (:mod:`.budget`).
"""
