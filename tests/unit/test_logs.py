"""Logs an operator can read (issue 14): one line per event, text or JSON, quiet libraries."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from relaybot.app.logs import configure, event


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    quiet = {name: logging.getLogger(name).level for name in ("apscheduler", "alembic")}
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    for name, old in quiet.items():
        logging.getLogger(name).setLevel(old)


def test_text_line_is_key_value_on_one_line(restore_logging: None) -> None:
    out = io.StringIO()
    configure("info", "text", out)
    event(logging.getLogger("relaybot.app.poller"), "inbound", uid=7, outcome="move",
          game="k7m2qx", sender="a@example.org", ms=12.34, note="two words")
    line = out.getvalue()
    assert line.count("\n") == 1
    assert " INFO relaybot.app.poller inbound uid=7 outcome=move game=k7m2qx " in line
    assert "sender=a@example.org ms=12.3 note=\"two words\"" in line
    stamp = line.split(" ", 1)[0]  # UTC, milliseconds: 2026-11-23T07:00:00.123Z
    assert len(stamp) == 24 and stamp.endswith("Z") and stamp[10] == "T"


def test_json_line_has_the_fields_at_the_top(restore_logging: None) -> None:
    out = io.StringIO()
    configure("info", "json", out)
    event(logging.getLogger("relaybot.app.outbox"), "outbound", id=3, status="sent", game=None,
          to="b@example.org")
    data = json.loads(out.getvalue())
    assert data["event"] == "outbound" and data["level"] == "info"
    assert data["logger"] == "relaybot.app.outbox"
    assert (data["id"], data["status"], data["game"], data["to"]) == (3, "sent", None,
                                                                      "b@example.org")
    assert data["time"].endswith("Z")


def test_level_filters_and_apscheduler_is_kept_at_warning(restore_logging: None) -> None:
    out = io.StringIO()
    configure("debug", "text", out)
    logging.getLogger("apscheduler.executors.default").info("Job executed successfully")
    logging.getLogger("alembic.runtime.migration").info("Context impl SQLiteImpl.")
    logging.getLogger("apscheduler.scheduler").warning("Run time of job was missed")
    assert "Job executed" not in out.getvalue() and "SQLiteImpl" not in out.getvalue()
    assert "Run time of job was missed" in out.getvalue()
    out2 = io.StringIO()
    configure("warning", "text", out2)
    event(logging.getLogger("relaybot.app.poller"), "inbound", uid=1)
    assert out2.getvalue() == ""


def test_configure_twice_prints_once(restore_logging: None) -> None:
    out = io.StringIO()
    configure("info", "text", out)
    configure("info", "text", out)
    logging.getLogger("relaybot").info("once")
    assert out.getvalue().count("once") == 1
