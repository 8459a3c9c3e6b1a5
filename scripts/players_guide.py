"""Rewrite docs/players.md and docs/players.ja.md from the players' guide that
``relaybot web`` serves at ``/help`` (relaybot/web/help/players.<lang>.md).

    python3 scripts/players_guide.py

tests/unit/test_players_guide.py fails while the two disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from relaybot.web.guide import DOCS_NAMES, GUIDE_LANGS, docs_text  # noqa: E402


def main() -> int:
    for lang in GUIDE_LANGS:
        target = ROOT / "docs" / DOCS_NAMES[lang]
        target.write_text(docs_text(lang), encoding="utf-8")
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
