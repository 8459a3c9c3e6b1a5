"""Logs an operator can read: one line per event, ``key=value`` text or JSON.

The standard library's logging, set up once by the CLI (:func:`configure`). Code that
reports an event calls :func:`event` with a short name and fields, e.g.::

    event(log, "inbound", uid=17, outcome="move", game="k7m2qx", sender="a@b.example",
          ms=12)

which prints, in text form::

    2026-11-23T07:00:00Z INFO relaybot.app.poller inbound uid=17 outcome=move game=k7m2qx ...

and with ``[log] format = "json"`` one JSON object a line, the fields at the top level,
for a log collector. Other messages (warnings, tracebacks) come out in the same form.
APScheduler's "job executed" chatter is kept at WARNING: the lines that matter are ours.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO, Any

FIELDS = "relaybot_fields"
"""The ``extra`` attribute carrying an event's fields on a LogRecord."""

_HANDLER = "relaybot"

QUIET = ("apscheduler", "alembic", "mail.log", "aiosmtpd", "pymap", "asyncio", "imapclient",
         "PIL")
"""Libraries whose INFO lines are noise for an operator: WARNING and up only. At
``debug`` imapclient would log the IMAP protocol trace, every mail's whole text with the
reply tokens in its addresses, and Pillow every PNG chunk it reads: neither is an event
of relaybot's, and both cost time on the path of every move (issue 29)."""


def event(logger: logging.Logger, name: str, level: int = logging.INFO,
          **fields: Any) -> None:
    """Log one event ``name`` with ``fields`` (values printed as they are; None as ``-``)."""
    if logger.isEnabledFor(level):
        logger.log(level, name, extra={FIELDS: fields})


def _time(record: logging.LogRecord) -> str:
    stamp = datetime.fromtimestamp(record.created, UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(record.msecs):03d}Z"


def _text_value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        value = round(value, 1)
    text = str(value)
    # quoted when a reader splitting on spaces or '=' would misread it
    if not text or any(c in text for c in ' ="\n\t'):
        return json.dumps(text, ensure_ascii=False)
    return text


class TextFormatter(logging.Formatter):
    """``<UTC time> <LEVEL> <logger> <message> key=value ...``, one line."""

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, Any] = getattr(record, FIELDS, {})
        parts = [_time(record), record.levelname, record.name, record.getMessage()]
        parts += [f"{key}={_text_value(value)}" for key, value in fields.items()]
        line = " ".join(parts)
        if record.exc_info:
            # the traceback stays readable in text form; one event is still one entry
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, event, then the event's fields."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {"time": _time(record), "level": record.levelname.lower(),
                                "logger": record.name, "event": record.getMessage()}
        for key, value in getattr(record, FIELDS, {}).items():
            data.setdefault(key, value)
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def configure(level: str = "info", form: str = "text", stream: IO[str] | None = None) -> None:
    """Send every log line to ``stream`` (stderr) at ``level``, as ``form`` (text|json).

    Replaces the handler it set before, so calling it twice does not print lines twice;
    handlers others added (a test runner's log capture) stay.
    """
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if form == "json" else TextFormatter())
    handler.set_name(_HANDLER)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    for name in QUIET:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
