"""The reader-centred study (LAIT): immersive reading, questionnaires, side-by-side close reading.

``protocol`` (registered on import), ``questions`` (the paper's questionnaires as data),
``answers`` (the checks of every answer), ``design`` (settings, chunks, counterbalanced plans),
``display`` (the display normalisation), ``services`` (texts, pages, exports, results), ``views``.
"""
