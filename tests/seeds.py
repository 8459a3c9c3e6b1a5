"""The club's source documents (``../shared/seeds``), for the tests that check a table
transcribed into the code against the seed it came from.

They sit beside the repository in a working checkout, and elsewhere where a clean clone
runs; ``RELAYBOT_SEEDS`` names the folder when neither place holds them.
"""

from __future__ import annotations

import os
from pathlib import Path

_BESIDE = Path(__file__).resolve().parents[2] / "shared" / "seeds"
_WORKSPACE = Path("/work/shared/seeds")  # the team machines' shared folder


def seed_text(number: str) -> str | None:
    """The text of seed ``number`` (``"000"``), or None when no known folder has it."""
    env = os.environ.get("RELAYBOT_SEEDS")
    folders = [Path(env)] if env else [_BESIDE, _WORKSPACE]
    for folder in folders:
        found = sorted(folder.glob(f"{number}_*.txt"))
        if found:
            return found[0].read_text(encoding="utf-8")
    return None
