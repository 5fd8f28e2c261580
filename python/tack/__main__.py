"""`python -m tack`: the version, this build, the disk cache and every backend (`tackc info`).

`python -m tack COMMAND ...` runs any tackc command (`cache clear`, `devices`, `check FILE.py`,
`inspect ...`; `python -m tack --help` lists them), and the wheel installs this module's
`tackc` as the `tackc` script. The commands are the core's own (tools/tackc), run in process.
"""

import sys

from . import _tack


def run(args: "list[str]") -> int:
    """Runs `tackc ARGS...` and returns its exit status."""
    sys.stdout.flush()
    sys.stderr.flush()
    return _tack._tackc(list(args))


def tackc() -> None:
    """The `tackc` console script."""
    sys.exit(run(sys.argv[1:]))


def main() -> None:
    sys.exit(run(sys.argv[1:] or ["info"]))


if __name__ == "__main__":
    main()
