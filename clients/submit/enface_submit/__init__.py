"""The participants' client of an Enface platform's JSON API: upload a system output, wait for its scores.

Only the standard library and ``requests``: the full ``enface`` package's ``enface submit`` runs this code,
and ``pip install ./clients/submit`` gives the same command without the server stack.
"""

__version__ = "0.1.0"
