"""A thin, UID-only facade over imapclient for the inbound mailbox (RELIABILITY.md G8, G13).

The poller's loop is, in outline::

    with Mailbox(settings) as box:            # login, select, ensure Processed/Quarantine
        while True:
            for uid in box.pending_uids():    # what is still in INBOX is not yet processed
                fetched = box.fetch(uid)      # None: another client took it (T5)
                ...commit...
                box.move(uid, "Processed")    # only after the commit (G1)
            box.wait(timeout)                 # IDLE, renewed; a UID SEARCH poll is the backstop

Rules kept here:

- UIDs only; ``BODY.PEEK[]`` so ``\\Seen`` is never touched; moving out of the folder is
  the processed marker, never a flag.
- Size is read before the body; mail over ``max_size`` is never downloaded.
- Every network or protocol failure raises :class:`ImapError` (an ``OSError``), after
  which the connection is unusable: the caller closes, reconnects and starts over.
  Nothing here retries by itself.
- A UID that vanished (expunged or moved by another client) is not an error.
- Every socket operation has a timeout; IDLE is renewed at least every
  :data:`IDLE_RENEW_SECONDS` so a dead connection is noticed.
- No command argument is built from mail content: arguments are UIDs (ints) and folder
  names from configuration, which are checked for CR, LF and NUL.
"""

from __future__ import annotations

import imaplib
import ssl
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final

from imapclient import IMAPClient  # type: ignore[import-untyped]
from imapclient.exceptions import (  # type: ignore[import-untyped]
    IMAPClientError,
    LoginError,
)

from relaybot.faults import crash_point

__all__ = [
    "IDLE_RENEW_SECONDS",
    "PROCESSED",
    "QUARANTINE",
    "Fetched",
    "ImapAuthError",
    "ImapError",
    "ImapSettings",
    "Mailbox",
]

PROCESSED: Final = "Processed"
QUARANTINE: Final = "Quarantine"
IDLE_RENEW_SECONDS: Final = 290.0
"""IDLE is ended and restarted at least this often (RFC 2177 asks for < 29 minutes;
NATs and firewalls often forget idle TCP flows much sooner)."""

_TLS_MODES: Final = ("none", "starttls", "ssl")
_SIZE: Final = b"RFC822.SIZE"
_DATE: Final = b"INTERNALDATE"
_BODY: Final = b"BODY[]"


class ImapError(OSError):
    """The IMAP connection failed or the server refused a command; reconnect and retry."""


class ImapAuthError(ImapError):
    """The server rejected the login (wrong settings rather than a network fault)."""


@dataclass(frozen=True)
class ImapSettings:
    """Where and how to reach the inbound mailbox.

    ``tls`` is ``"none"`` (plain, for loopback tests), ``"starttls"`` or ``"ssl"``
    (implicit TLS, usually port 993). ``timeout`` bounds every socket operation, in
    seconds.
    """

    host: str
    port: int
    user: str
    password: str
    tls: str = "none"
    folder: str = "INBOX"
    timeout: float = 60.0

    def __post_init__(self) -> None:
        if self.tls not in _TLS_MODES:
            raise ValueError(f"tls must be one of {_TLS_MODES}, not {self.tls!r}")
        _check_folder_name(self.folder)
        if self.timeout <= 0:
            raise ValueError("timeout must be > 0")


@dataclass(frozen=True)
class Fetched:
    """One message as fetched: ``raw`` is None exactly when ``too_big`` is True.

    ``internaldate`` is the server's INTERNALDATE (arrival time) as an aware UTC datetime.
    """

    uid: int
    raw: bytes | None
    internaldate: datetime
    size: int
    too_big: bool


def _check_folder_name(folder: str) -> None:
    if not folder or any(ch in folder for ch in "\r\n\0"):
        raise ValueError(f"unusable IMAP folder name: {folder!r}")


def _to_utc(value: object) -> datetime:
    if not isinstance(value, datetime):
        raise ImapError(f"bad INTERNALDATE from server: {value!r}")
    if value.tzinfo is None:  # only if normalise_times were on; treat as UTC defensively
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _is_network_error(exc: BaseException) -> bool:
    return isinstance(exc, OSError | IMAPClientError | imaplib.IMAP4.error)


class Mailbox:
    """One IMAP connection to one folder, UIDs only. Not thread-safe.

    >>> with Mailbox(settings) as box:        # doctest: +SKIP
    ...     for uid in box.pending_uids():
    ...         fetched = box.fetch(uid)
    """

    def __init__(self, settings: ImapSettings, *, max_size: int = 10 * 1024 * 1024) -> None:
        """Prepare a mailbox; nothing connects until :meth:`connect`."""
        if max_size <= 0:
            raise ValueError("max_size must be > 0")
        self.settings = settings
        self.max_size = max_size
        self._client: Any = None
        self._uidvalidity: int | None = None
        self._news = False

    # -- connection ------------------------------------------------------------------

    def connect(self) -> None:
        """Connect, log in, create Processed and Quarantine if missing, select the folder.

        Raises :class:`ImapAuthError` if the login is refused, :class:`ImapError` for any
        other failure. Retries nothing.
        """
        self.close()
        s = self.settings
        client: Any = None
        try:
            context = ssl.create_default_context() if s.tls != "none" else None
            client = IMAPClient(
                s.host,
                port=s.port,
                use_uid=True,
                ssl=s.tls == "ssl",
                ssl_context=context,
                timeout=s.timeout,
            )
            client.normalise_times = False
            if s.tls == "starttls":
                client.starttls(context)
            try:
                client.login(s.user, s.password)
            except LoginError as exc:
                raise ImapAuthError(f"IMAP login refused for {s.user!r}: {exc}") from exc
            for folder in (PROCESSED, QUARANTINE):
                self._ensure_folder(client, folder)
            selected = client.select_folder(s.folder)
            self._uidvalidity = int(selected[b"UIDVALIDITY"])
            self._client = client
            self._drop_untagged()  # the SELECT's EXISTS is not news: pending_uids covers it
            self._news = False
        except ImapError:
            _shutdown(client)
            raise
        except Exception as exc:
            _shutdown(client)
            if _is_network_error(exc) or isinstance(exc, KeyError | ValueError):
                raise ImapError(f"IMAP connect to {s.host}:{s.port} failed: {exc}") from exc
            raise

    @staticmethod
    def _ensure_folder(client: Any, folder: str) -> None:
        if client.folder_exists(folder):
            return
        try:
            client.create_folder(folder)
        except IMAPClientError:
            if not client.folder_exists(folder):  # someone else may have just made it
                raise

    def close(self) -> None:
        """Log out (best effort) and drop the connection. Safe to call at any time."""
        client, self._client = self._client, None
        if client is None:
            return
        try:
            client.logout()
        except Exception:
            _shutdown(client)

    def __enter__(self) -> Mailbox:
        self.connect()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        """True between a successful :meth:`connect` and :meth:`close` or an ImapError."""
        return self._client is not None

    @property
    def uidvalidity(self) -> int:
        """UIDVALIDITY of the selected folder, as read on the last :meth:`connect`."""
        if self._uidvalidity is None:
            raise ImapError("not connected")
        return self._uidvalidity

    def _require(self) -> Any:
        if self._client is None:
            raise ImapError("not connected")
        return self._client

    def _fail(self, what: str, exc: BaseException) -> ImapError:
        """Drop the broken connection and return the ImapError to raise."""
        client, self._client = self._client, None
        _shutdown(client)
        if isinstance(exc, ImapError):
            return exc
        return ImapError(f"IMAP {what} failed: {exc}")

    def _drop_untagged(self) -> None:
        """Forget unsolicited responses imaplib keeps per connection (bounded memory).

        EXISTS / RECENT among them mean new mail: remembered for the next :meth:`wait`.
        """
        imap = getattr(self._client, "_imap", None)
        stash = getattr(imap, "untagged_responses", None)
        if not isinstance(stash, dict):
            return
        if stash.pop("EXISTS", None):
            self._news = True
        if any(_nonzero(n) for n in stash.pop("RECENT", ())):
            self._news = True
        for key in ("EXPUNGE", "FETCH", "VANISHED"):
            stash.pop(key, None)

    def _take_stashed_news(self) -> bool:
        self._drop_untagged()
        news, self._news = self._news, False
        return news

    # -- commands --------------------------------------------------------------------

    def pending_uids(self) -> list[int]:
        """UIDs of all messages still in the folder, ascending (UID SEARCH ALL).

        Processed mail has been moved away, so what is left is pending. Messages another
        client flagged ``\\Deleted`` but did not expunge are included: they have not been
        processed, and the ingest ledger makes seeing one twice harmless.
        """
        client = self._require()
        try:
            client.noop()  # Dovecot searches the session's view; NOOP brings it up to date
            self._take_stashed_news()  # the search below covers all mail announced so far
            uids = client.search(["ALL"])
        except Exception as exc:
            if _is_network_error(exc):
                raise self._fail("UID SEARCH", exc) from exc
            raise
        self._drop_untagged()
        return sorted(int(uid) for uid in uids)

    def heads(self, uids: list[int]) -> dict[int, dict[bytes, Any]]:
        """RFC822.SIZE and INTERNALDATE of many UIDs in one FETCH per 500 (G13: sizes are
        known before any body is downloaded); vanished UIDs are simply missing."""
        client = self._require()
        out: dict[int, dict[bytes, Any]] = {}
        try:
            for start in range(0, len(uids), 500):
                chunk = [_check_uid(u) for u in uids[start:start + 500]]
                for uid, entry in client.fetch(chunk, [_SIZE, _DATE]).items():
                    if _SIZE in entry and _DATE in entry:
                        out[int(uid)] = dict(entry)
        except IMAPClientError:
            return {}  # the caller falls back to one FETCH per message
        except Exception as exc:
            if _is_network_error(exc):
                raise self._fail("UID FETCH (sizes)", exc) from exc
            raise
        return out

    def fetch(self, uid: int, head: dict[bytes, Any] | None = None) -> Fetched | None:
        """Fetch size and INTERNALDATE (unless ``head`` has them from :meth:`heads`), then
        the body with ``BODY.PEEK[]`` if small enough.

        Returns None if *uid* no longer exists (another client expunged or moved it).
        Mail larger than ``max_size`` comes back with ``raw=None, too_big=True`` and is
        never downloaded.
        """
        uid = _check_uid(uid)
        client = self._require()
        try:
            if head is None:
                head = self._fetch_items(client, uid, [_SIZE, _DATE])
            if head is None:
                return None
            size = int(head[_SIZE])
            internaldate = _to_utc(head[_DATE])
            if size > self.max_size:
                return Fetched(uid, None, internaldate, size, too_big=True)
            crash_point("mid_fetch")
            body = self._fetch_items(client, uid, ["BODY.PEEK[]"], want=_BODY)
            if body is None:
                return None
            raw = body[_BODY]
            if not isinstance(raw, bytes):
                raise ImapError(f"no message body for UID {uid}")
            return Fetched(uid, raw, internaldate, size, too_big=False)
        except Exception as exc:
            if _is_network_error(exc):
                raise self._fail(f"UID FETCH {uid}", exc) from exc
            raise

    def fetch_many(
        self, uids: list[int], heads: dict[int, dict[bytes, Any]]
    ) -> dict[int, Fetched]:
        """Bodies of several small mails in one ``UID FETCH BODY.PEEK[]`` (sizes from
        :meth:`heads`). Mail over ``max_size`` comes back ``too_big`` and undownloaded;
        a UID missing from the answer is simply absent: fetch it alone with :meth:`fetch`,
        which tells a vanished mail from a late one."""
        client = self._require()
        out: dict[int, Fetched] = {}
        small: dict[int, tuple[int, datetime]] = {}  # UID -> (size, INTERNALDATE)
        for uid in uids:
            head = heads.get(uid)
            if head is None:
                continue
            size, internaldate = int(head[_SIZE]), _to_utc(head[_DATE])
            if size > self.max_size:
                out[uid] = Fetched(uid, None, internaldate, size, too_big=True)
            else:
                small[_check_uid(uid)] = (size, internaldate)
        if not small:
            return out
        try:
            crash_point("mid_fetch")
            data = client.fetch(list(small), ["BODY.PEEK[]"])
        except IMAPClientError:
            return out  # e.g. NO [EXPUNGEISSUED]: the caller fetches one by one
        except Exception as exc:
            if _is_network_error(exc):
                raise self._fail("UID FETCH (bodies)", exc) from exc
            raise
        for uid, (size, internaldate) in small.items():
            entry = data.get(uid)
            raw = entry.get(_BODY) if entry is not None else None
            if isinstance(raw, bytes):
                out[uid] = Fetched(uid, raw, internaldate, size, too_big=False)
        return out

    def _fetch_items(
        self, client: Any, uid: int, items: list[bytes] | list[str], want: bytes | None = None
    ) -> dict[bytes, Any] | None:
        """UID FETCH *items* of one UID; None if it vanished.

        A miss is retried once after a NOOP: Dovecot answers a FETCH from the session's
        current view, which may predate mail another session just delivered.
        """
        keys = [want] if want is not None else [i for i in items if isinstance(i, bytes)]
        for attempt in (1, 2):
            try:
                data = client.fetch([uid], items)
            except IMAPClientError:
                # Some servers answer NO [EXPUNGEISSUED] for a message expunged under
                # us; anything else is a real failure.
                if self._uid_exists(client, uid):
                    raise
                return None
            entry = data.get(uid)
            if entry is not None and all(k in entry for k in keys):
                return dict(entry)
            if attempt == 1:
                client.noop()
        return None  # expunged between SEARCH and FETCH (or only an unsolicited FETCH)

    @staticmethod
    def _uid_exists(client: Any, uid: int) -> bool:
        return uid in client.search(["UID", str(uid)])

    def move(self, uid: int, folder: str) -> None:
        """Move *uid* to *folder* (MOVE, or COPY + ``\\Deleted`` + UID EXPUNGE).

        A UID that no longer exists is not an error. A missing target folder is created.
        The move is confirmed by the server's COPYUID (UIDPLUS); if none came, the
        session's view is synced with NOOP and the move tried once more, since Dovecot
        silently ignores a UID newer than the view.
        """
        uid = _check_uid(uid)
        _check_folder_name(folder)
        client = self._require()
        try:
            if not client.has_capability("UIDPLUS"):
                client.noop()  # a move cannot be confirmed: sync the view first instead
                self._move_or_create(client, uid, folder)
            elif not self._move_or_create(client, uid, folder):
                client.noop()
                self._move_or_create(client, uid, folder)  # False again: it is gone
            self._drop_untagged()
        except Exception as exc:
            if _is_network_error(exc):
                raise self._fail(f"UID MOVE {uid} to {folder!r}", exc) from exc
            raise

    def move_many(self, uids: list[int], folder: str) -> None:
        """Move several UIDs to *folder* with one ``UID MOVE`` (G1: call after the commit).

        The server's COPYUID names the UIDs it moved; any other UID (not yet in the
        session's view, gone, or a server without MOVE/UIDPLUS) is moved one by one
        by :meth:`move`, which knows how to tell those cases apart.
        """
        if len(uids) < 2:
            for uid in uids:
                self.move(uid, folder)
            return
        wanted = sorted({_check_uid(u) for u in uids})
        _check_folder_name(folder)
        client = self._require()
        moved: set[int] = set()
        if client.has_capability("MOVE") and client.has_capability("UIDPLUS"):
            try:
                self._drop_untagged()  # the COPYUID read below must be this command's
                client.move(wanted, folder)
                for line in _untagged_ok(client):
                    moved |= _copyuid_sources(line)
                self._drop_untagged()
            except IMAPClientError:
                moved = set()  # TRYCREATE, a vanished UID, ...: the careful path below
            except Exception as exc:
                if _is_network_error(exc):
                    raise self._fail(f"UID MOVE {len(wanted)} to {folder!r}", exc) from exc
                raise
        for uid in wanted:
            if uid not in moved:
                self.move(uid, folder)

    def _move_or_create(self, client: Any, uid: int, folder: str) -> bool:
        """One move attempt, creating *folder* on TRYCREATE; True if confirmed."""
        try:
            return self._move_once(client, uid, folder)
        except IMAPClientError as exc:
            if "TRYCREATE" in str(exc).upper() or not client.folder_exists(folder):
                self._ensure_folder(client, folder)
                return self._move_once(client, uid, folder)
            if not self._uid_exists(client, uid):
                return False  # gone already: someone else moved or expunged it
            raise

    @staticmethod
    def _move_once(client: Any, uid: int, folder: str) -> bool:
        if client.has_capability("MOVE"):
            client.move([uid], folder)
            return any(b"COPYUID" in line.upper() for line in _untagged_ok(client))
        resp = client.copy([uid], folder)
        if b"COPYUID" not in _as_bytes(resp).upper() and client.has_capability("UIDPLUS"):
            return False  # nothing copied: not in our view, or gone
        client.delete_messages([uid])  # + \Deleted
        if client.has_capability("UIDPLUS"):
            client.uid_expunge([uid])
        else:
            client.expunge()
        return True

    def wait(self, timeout: float) -> bool:
        """Wait up to *timeout* seconds for new mail; True if the server reported some.

        Uses IDLE (renewed at least every :data:`IDLE_RENEW_SECONDS`); without IDLE it
        sleeps and sends NOOP. False means only that nothing was reported: callers still
        poll with :meth:`pending_uids` as a backstop.
        """
        client = self._require()
        deadline = time.monotonic() + max(0.0, timeout)
        try:
            if self._take_stashed_news():
                return True
            if not client.has_capability("IDLE"):
                time.sleep(max(0.0, deadline - time.monotonic()))
                return _has_news(client.noop()[1]) or self._take_stashed_news()
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                if self._idle_once(client, min(left, IDLE_RENEW_SECONDS)):
                    return True
        except BaseException as exc:
            if _is_network_error(exc):
                raise self._fail("IDLE", exc) from exc
            # Interrupted mid-IDLE (a stop signal): the session may still be idling and
            # would ignore a LOGOUT until the socket timeout. Drop it without one.
            self._fail("IDLE", exc)
            raise

    def _idle_once(self, client: Any, seconds: float) -> bool:
        """One IDLE ... DONE round of at most *seconds*; True if new mail was reported."""
        end = time.monotonic() + seconds
        news = False
        client.idle()
        if self._buffered(client):
            end = 0.0  # responses already read along with "+ idling": let DONE collect them
        while not news:
            left = end - time.monotonic()
            if left <= 0:
                break
            responses = client.idle_check(timeout=left)
            news = _has_news(responses)
            if not responses and end - time.monotonic() > 0.05:
                break  # woke with nothing to read: EOF? DONE below will tell
        _text, responses = client.idle_done()
        return _has_news(responses) or news

    def _buffered(self, client: Any) -> bool:
        """True if bytes wait in imaplib's read buffer (or the socket) right now.

        imaplib reads through a buffered file, so a response that arrived in the same
        segment as ``+ idling`` sits in that buffer where ``poll()`` cannot see it.
        """
        reader = getattr(getattr(client, "_imap", None), "file", None)
        if reader is None or not hasattr(reader, "peek"):
            return False
        sock = client.socket()
        sock.setblocking(False)
        try:
            return bool(reader.peek(1))
        except (BlockingIOError, ssl.SSLWantReadError):
            return False
        finally:
            sock.settimeout(self.settings.timeout)


def _untagged_ok(client: Any) -> list[bytes]:
    """The untagged OK lines of the last command, where RFC 6851 puts a MOVE's COPYUID
    (imaplib keeps them per command)."""
    stash = getattr(getattr(client, "_imap", None), "untagged_responses", {})
    return [bytes(line) for line in stash.get("OK", ())]


def _copyuid_sources(line: bytes) -> set[int]:
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


def _has_news(responses: list[Any]) -> bool:
    """True if untagged responses announce new mail; raise ImapError on BYE."""
    news = False
    for resp in responses:
        if not isinstance(resp, tuple) or len(resp) < 2:
            continue
        if resp[0] == b"BYE":
            raise ImapError(f"server closed the connection: {resp[1]!r}")
        if resp[1] == b"EXISTS" or (resp[1] == b"RECENT" and _nonzero(resp[0])):
            news = True
    return news


def _nonzero(value: object) -> bool:
    if isinstance(value, int):
        return value > 0
    if isinstance(value, bytes | str):
        return value.strip() not in (b"0", "0", b"", "")
    return False


def _as_bytes(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "replace")


def _check_uid(uid: int) -> int:
    if isinstance(uid, bool) or not isinstance(uid, int) or uid <= 0:
        raise ValueError(f"bad UID: {uid!r}")
    return uid


def _shutdown(client: Any) -> None:
    """Close the socket without a LOGOUT round trip; never raises."""
    if client is None:
        return
    try:
        client.shutdown()
    except (OSError, IMAPClientError, imaplib.IMAP4.error):
        pass
