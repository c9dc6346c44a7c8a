"""``python -m enface.commands ...``: the ``enface`` command."""

from . import main

if __name__ == "__main__":   # (not on import: the API reference imports every module)
    main(prog_name="enface")
