"""MQM on the campaign core, one module per concern; the protocol, its routes, the CLI and the tests import from here.

Scores, agreement, error counts, significance and the TSV format all come from the
:mod:`mqm` library, fed with an :class:`mqm.MQMData` built from the database
(:func:`~enface.protocols.mqm.services.results.build_data`); nothing here re-implements them.

* :mod:`~enface.protocols.mqm.services.scheme`: the campaign's settings and scheme
* :mod:`~enface.protocols.mqm.services.texts`: what an item shows
* :mod:`~enface.protocols.mqm.services.marks`: the annotator's side (page state, marks, reading, attention checks)
* :mod:`~enface.protocols.mqm.services.results`: scores, ranking, agreement, exports, progress, the leaderboard's part
* :mod:`~enface.protocols.mqm.services.charts`: the error chart

Blindness: :func:`item_state` and :meth:`Mark.to_json` are the only things an annotator
receives: the item's opaque id, its per-annotator number, the document name and texts,
and the annotator's own marks; never a system, team or submission.
"""

from .charts import SEVERITY_COLORS, error_chart
from .marks import (
    MAX_NOTE,
    attention_found,
    check_read,
    delete_mark,
    furthest_clipper,
    item_state,
    save_mark,
    validate_mark,
)
from .results import (
    CampaignRows,
    build_data,
    compute_results,
    error_results,
    export_json,
    export_tsv,
    leaderboard_mqm,
    load_rows,
    progress,
    results_for,
)
from .scheme import (
    document_words,
    get_scheme,
    non_translation_severity,
    scheme_for_annotators,
    scheme_name,
    significance_unit,
    word_counter,
    words_per_second,
)
from .texts import (
    item_outputs,
    output_key,
    output_texts,
    reference_texts,
    segment_texts,
    slice_outputs,
    version_texts,
)

__all__ = [name for name in dir() if not name.startswith("_")]
