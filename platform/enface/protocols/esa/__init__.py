"""Error Span Annotation (ESA) as WMT runs it, and its AI-assisted variant ESA^AI (``suggestions``)."""
