"""docs/security.md (issue 12): every attack of tests/security/ has its row, and every
test there says "attack -> outcome" first (the page is generated from those lines)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_docs_security_md_has_a_row_for_every_attack() -> None:
    proc = subprocess.run([sys.executable, "scripts/security_table.py", "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
