"""What a setting of each kind may be: the checks every value passes on load.

``SCHEMA`` (:mod:`relaybot.config.settings`) gives each key a kind; :func:`check_value`
turns the value found for it (from the file, the environment or the default) into
what the configuration holds, or raises :class:`ConfigError` with one line naming the
key and where the value came from.
"""

from __future__ import annotations

import re
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from relaybot.config.urls import redact_url

DATABASE_URL_RE = re.compile(r"^(sqlite|postgresql)(\+[A-Za-z0-9_]+)?://")
"""The databases relaybot runs on (SQLite, PostgreSQL), with any driver SQLAlchemy names."""

ADDRESS_RE = re.compile(
    r"^[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z0-9\-]+$|^[A-Za-z0-9._%+\-]+@localhost$"
)


def is_bot_mailbox(address: str, bot_address: str) -> bool:
    """Whether ``address`` is the bot's own mailbox or one of its plus addresses
    (``relay+x@``), case aside: mail sent there comes back to the bot, which answers none
    of its own (G7)."""
    local, _, domain = address.lower().partition("@")
    bot_local, _, bot_domain = bot_address.lower().partition("@")
    return domain == bot_domain and local.split("+", 1)[0] == bot_local


class ConfigError(ValueError):
    """A bad or missing setting; the message is one line for the operator."""


LOG_LEVELS = ("debug", "info", "warning", "error")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    import ipaddress  # here: only SMTP's checks ask, not every command's start

    name = host.strip().strip("[]").lower()
    if name in ("localhost", "localhost.localdomain") or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


_LISTEN_RE = re.compile(
    r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9.\-]+)):(?P<port>\d{1,5})$")


def split_listen(value: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as (host, port); None for "".

    Raises ValueError for anything else, a port outside 1-65535 included.
    """
    if not value:
        return None
    match = _LISTEN_RE.match(value.strip())
    if match is None:
        raise ValueError(value)
    port = int(match["port"])
    if not 1 <= port <= 65535:
        raise ValueError(value)
    return match["v6"] or match["host"], port


def check_value(section: str, key: str, value: Any, kind: str, origin: str) -> Any:
    """``section.key``'s value of ``kind`` as the configuration holds it; ``origin``
    (the file, the environment variable or "default") is named in the error."""
    where = f"{section}.{key} (from {origin})"
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    if kind in ("int", "port", "count", "positive"):
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: expected a whole number, got {value!r}") from None
        if kind == "port" and not 1 <= number <= 65535:
            raise ConfigError(f"{where}: expected a port number 1-65535, got {number}")
        if number < 0:
            raise ConfigError(f"{where}: must not be negative, got {number}")
        if kind == "positive" and number < 1:
            raise ConfigError(f"{where}: expected a whole number of at least 1, got {number}")
        if kind == "count" and not 1 <= number <= 64:
            raise ConfigError(f"{where}: expected a number 1-64, got {number}")
        return number
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a string, got {value!r}")
    if kind == "address" and not ADDRESS_RE.match(value):
        raise ConfigError(f"{where}: not a mail address: {value!r}")
    if kind == "address" and "+" in value.split("@", 1)[0] and key == "address":
        raise ConfigError(f"{where}: the bot address must not contain '+': {value!r}")
    if kind == "tz":
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(f"{where}: unknown time zone {value!r}") from None
    if kind == "lang" and value not in ("ja", "en"):
        raise ConfigError(f"{where}: expected ja or en, got {value!r}")
    if kind == "dburl" and not DATABASE_URL_RE.match(value):
        raise ConfigError(f"{where}: expected sqlite:///FILE or postgresql+psycopg://USER@HOST/DB, "
                          f"got {redact_url(value)!r}")
    if kind == "url" and value and not re.match(r"^https?://[^\s/]+(/\S*)?$", value):
        raise ConfigError(f"{where}: expected an http(s) URL or \"\", got {value!r}")
    if kind == "listen":
        try:
            split_listen(value)
        except ValueError:
            raise ConfigError(f"{where}: expected HOST:PORT such as 127.0.0.1:8025 (or \"\" "
                              f"for none), got {value!r}") from None
        return value.strip()
    if kind == "weekday" and value.lower() not in WEEKDAYS:
        raise ConfigError(f"{where}: expected a weekday ({', '.join(WEEKDAYS)}), got {value!r}")
    if kind == "weekday":
        return value.lower()
    if kind == "tls" and value not in ("none", "starttls", "ssl"):
        raise ConfigError(f"{where}: expected none, starttls or ssl, got {value!r}")
    if kind == "level":
        if value.lower() not in LOG_LEVELS:
            raise ConfigError(f"{where}: expected {', '.join(LOG_LEVELS)}, got {value!r}")
        return value.lower()
    if kind == "logformat" and value not in ("text", "json"):
        raise ConfigError(f"{where}: expected text or json, got {value!r}")
    return value
