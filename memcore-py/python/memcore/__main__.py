"""``python -m memcore``: the ``memcore`` command-line tool, inside Python.

Every command of the ``memcore`` binary (``search``, ``put``, ``model``, ``model fetch``,
``mcp``, ...) runs here with the same flags, output and exit codes, and uses the model this
package installed (the wheel's ``[embeddings]`` extra brings its runtime) when the model cache
has none. ``pip`` also installs it as the ``memcore`` command. ``memcore model fetch`` runs
with this interpreter unless ``MEMCORE_PYTHON`` names another.
"""

from __future__ import annotations

import signal
import sys

from ._memcore import MemcoreError, _cli_main

#: The exit status of a bug in memcore (a Rust panic), as the binary's.
PANICKED = 101


def main() -> int:
    """Runs the command line in ``sys.argv`` and returns its exit status."""
    # The command ends on Ctrl-C as the binary does, rather than leaving it to Python.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        return _cli_main(["memcore", *sys.argv[1:]])
    except MemcoreError as err:  # only a panic escapes: errors are the command's output
        print(f"memcore: {err} ({err.recovery})", file=sys.stderr)
        return PANICKED


if __name__ == "__main__":
    sys.exit(main())
