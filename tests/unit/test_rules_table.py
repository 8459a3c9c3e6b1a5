"""docs/rules.md is generated from the code and the tests, and kept current (issue 13):
every rule id, where the code names it and which tests cover it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("rules_table", ROOT / "scripts/rules_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_rules_md_is_current() -> None:
    """Run ``python scripts/rules_table.py`` after adding a test or a rule's code."""
    table = _script()
    assert (ROOT / "docs/rules.md").read_text("utf-8") == table.render()


def test_every_rule_id_has_a_test() -> None:
    table = _script()
    missing = [rule for rule in table.RULES if not table._tests(rule)]
    assert missing == [], f"rules without a test: {missing}"
