"""Reading IMAP server responses: INTERNALDATE, COPYUID source sets (RFC 4315), news of
new mail in untagged responses (EXISTS, RECENT) and BYE.

Pure: values in, values out (or :class:`~relaybot.mail.imap.values.ImapError`), no
connection, so every case can be tested without a server.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from relaybot.mail.imap.values import ImapError

__all__ = ["as_bytes", "copyuid_sources", "has_news", "nonzero", "to_utc"]

def to_utc(value: object) -> datetime:
    """An INTERNALDATE from imapclient as an aware UTC datetime; ``ImapError`` if it is
    not a datetime at all."""
    if not isinstance(value, datetime):
        raise ImapError(f"bad INTERNALDATE from server: {value!r}")
    if value.tzinfo is None:  # only if normalise_times were on; treat as UTC defensively
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def copyuid_sources(line: bytes) -> set[int]:
    """Source UIDs of ``[COPYUID <validity> <source-set> <dest-set>]`` (RFC 4315)."""
    upper = line.upper()
    at = upper.find(b"COPYUID")
    if at < 0:
        return set()
    parts = line[at:].split()
    if len(parts) < 3:
        return set()
    found: set[int] = set()
    for item in parts[2].decode("ascii", "replace").split(","):
        first, _, last = item.partition(":")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            return set()  # unreadable: trust nothing, move one by one
        if high < low:
            low, high = high, low
        if high - low > 100_000:
            return set()
        found.update(range(low, high + 1))
    return found


def has_news(responses: list[Any]) -> bool:
    """True if untagged responses announce new mail; raise ImapError on BYE."""
    news = False
    for resp in responses:
        if not isinstance(resp, tuple) or len(resp) < 2:
            continue
        if resp[0] == b"BYE":
            raise ImapError(f"server closed the connection: {resp[1]!r}")
        if resp[1] == b"EXISTS" or (resp[1] == b"RECENT" and nonzero(resp[0])):
            news = True
    return news


def nonzero(value: object) -> bool:
    """True for a count above 0 as imapclient hands it over (int, or bytes/str digits)."""
    if isinstance(value, int):
        return value > 0
    if isinstance(value, bytes | str):
        return value.strip() not in (b"0", "0", b"", "")
    return False


def as_bytes(value: object) -> bytes:
    """A command's response text as bytes, whatever type imapclient returned."""
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "replace")
