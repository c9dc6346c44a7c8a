"""``enface submit`` (and ``enface-submit``) of the light client: the full package's options, read with argparse.

``enface`` with another command hands over to the full ``enface`` package where it is installed (both
distributions install an ``enface`` script; whichever pip wrote last, every command keeps working).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import __version__
from .client import USAGE, submit

LABELS = ("primary", "contrastive", "baseline")


def _existing(path: str) -> str:
    if not Path(path).exists():
        raise argparse.ArgumentTypeError(f"{path!r} does not exist")
    return path


def parser(prog: str = "enface submit") -> argparse.ArgumentParser:
    env_url, env_token = os.environ.get("ENFACE_URL"), os.environ.get("ENFACE_TOKEN")
    p = argparse.ArgumentParser(
        prog=prog, description="Upload a system output and wait for its validation and scores. FILES: "
        "<document>.txt files, a directory of them, a zip, or one file with every segment. Exit status: 0 scored "
        "(or accepted, with --no-wait), 1 invalid or failed or refused, 2 a usage error.")
    p.add_argument("--url", default=env_url, required=env_url is None,
                   help="the platform, e.g. http://127.0.0.1:8000 (or $ENFACE_URL)")
    p.add_argument("--token", default=env_token, required=env_token is None, help="an API token (or $ENFACE_TOKEN)")
    p.add_argument("--testset", dest="testset_id", type=int, required=True)
    p.add_argument("--label", choices=LABELS, default="primary", help="(default: primary)")
    p.add_argument("--unconstrained", action="store_true",
                   help="the system used data or models beyond the constrained track")
    p.add_argument("--system-name", required=True)
    p.add_argument("--description", default="")
    p.add_argument("--no-wait", action="store_true", help="return once the upload is accepted")
    p.add_argument("--timeout", type=float, default=3600, help="seconds to wait for the result (default: 3600)")
    p.add_argument("--version", action="version", version=f"enface-submit {__version__}")
    p.add_argument("files", nargs="+", type=_existing, metavar="FILES")
    return p


def submit_main(argv: list[str] | None = None, prog: str = "enface-submit") -> int:
    args = parser(prog).parse_args(sys.argv[1:] if argv is None else argv)
    return submit(url=args.url, token=args.token, testset_id=args.testset_id, label=args.label,
                  unconstrained=args.unconstrained, system_name=args.system_name, description=args.description,
                  no_wait=args.no_wait, timeout=args.timeout, files=args.files)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["submit"]:
        return submit_main(argv[1:], prog="enface submit")
    try:
        from enface.commands import main as full_main
    except ImportError:
        print("usage: enface submit [OPTIONS] FILES...   (enface submit --help)\n\nThis is the light client "
              "(enface-submit): it has only `enface submit`. The other commands come with the full `enface` "
              "package.", file=sys.stderr)
        return USAGE
    return full_main(argv)


if __name__ == "__main__":
    sys.exit(main())
