"""LLM judges (DITING's AgentEval) as machine annotators of a campaign: settings, runs on the ``llm``
queue, transcripts, and the side-by-side page. The scoring itself is :mod:`humaneval.judge`."""
