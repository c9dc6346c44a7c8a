"""``python -m enface.commands ...``: the ``enface`` command."""

from . import main

main(prog_name="enface")
