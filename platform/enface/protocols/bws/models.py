"""The BWS protocol keeps no tables of its own: its judgments are the core's responses."""
