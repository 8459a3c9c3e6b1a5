"""Logs an operator can read (issue 14 item 3), from a real ``relaybot run --once`` against
the test servers: the same run ``scripts/log_sample.py`` puts into docs/operating.md (the
operator's reference)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("log_sample", ROOT / "scripts/log_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_json_line_per_mail_in_and_out() -> None:
    lines = _script().collect("json")
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    inbound = [r for r in records if r["event"] == "inbound"]
    outbound = [r for r in records if r["event"] == "outbound"]
    # three mails in: two moves and an illegal move, each with outcome, game, sender, time
    assert [r["outcome"] for r in inbound] == ["move", "move", "bad_move"]
    assert [r["sender"] for r in inbound] == ["hayakawa@example.jp", "horie@example.org",
                                              "hayakawa@example.jp"]
    game = inbound[0]["game"]
    assert game and all(r["game"] == game for r in inbound)
    assert all(isinstance(r["ms"], float | int) and r["ms"] >= 0 for r in inbound)
    # every mail out: the relay and the ack per move, the polite error for the bad one
    assert sorted(r["kind"] for r in outbound) == ["ack", "ack", "error_bad_move", "move",
                                                   "move"]
    assert all(r["status"] == "sent" and r["game"] == game and "@" in r["to"]
               for r in outbound)
    # nothing else at info: no scheduler or migration chatter
    assert {r["logger"] for r in records} == {"relaybot.app.poller", "relaybot.app.outbox"}


def test_the_operators_reference_carries_a_sample_of_these_lines() -> None:
    readme = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    script = _script()
    start, end = readme.index(script.BEGIN), readme.index(script.END)
    sample = readme[start:end]
    assert " INFO relaybot.app.poller inbound uid=1 outcome=move game=" in sample
    assert "sender=hayakawa@example.jp ms=" in sample
    assert " INFO relaybot.app.outbox outbound id=" in sample and "status=sent kind=move" in sample
    assert '"event": "inbound"' in sample
