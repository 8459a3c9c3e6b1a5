"""``python -m relaybot``: the ``relaybot`` command without the console script (as
``python -m relaybot.cli``), for a source tree or a venv whose scripts are not on PATH."""

import sys

from relaybot.cli import main

if __name__ == "__main__":
    sys.exit(main())
