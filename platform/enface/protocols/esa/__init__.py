"""Error Span Annotation (ESA, WMT 2024-25) and its AI-assisted variant as a protocol of the campaign core."""
