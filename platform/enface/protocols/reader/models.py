"""The reader study has no tables of its own: every answer is a core Response (see answers.py for the kinds),
the per-reader design lives in Assignment.plan and the settings in Campaign.settings."""
