"""``python -m relaybot.cli``: the ``relaybot`` command without the console script."""

import sys

from relaybot.cli import main

if __name__ == "__main__":
    sys.exit(main())
