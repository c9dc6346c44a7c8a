"""The rubric protocol has no tables of its own.

Its items are the core's (a tagged segment in one system's output), its phenomena the test set's
(``testset_phenomena``, :class:`enface.models.Phenomenon`), its scores the core's responses
(kind ``"score"``, key: the phenomenon's id, data ``{"sp", "g_1", "g_2", "refusal", "comment"}``).
"""
