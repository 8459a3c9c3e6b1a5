"""The imapclient facade: :class:`Mailbox`, one UID-only connection to one folder.

Everything that talks to the server lives here (SEARCH, FETCH, MOVE, IDLE); opening
and dropping a session is :mod:`relaybot.mail.imap.connection`'s, reading the answers
is left to :mod:`relaybot.mail.imap.responses`. Any network or
protocol failure becomes an :class:`~relaybot.mail.imap.values.ImapError` and drops the
connection.
"""

from __future__ import annotations

import ssl
import time
from datetime import datetime
from types import TracebackType
from typing import Any, Final

from imapclient.exceptions import IMAPClientError  # type: ignore[import-untyped]
from imapclient.response_parser import (  # type: ignore[import-untyped]
    parse_fetch_response,
)

from relaybot.mail.imap.connection import is_network_error, open_client, shutdown
from relaybot.mail.imap.responses import as_bytes, copyuid_sources, has_news, nonzero, to_utc
from relaybot.mail.imap.values import (
    PROCESSED,
    QUARANTINE,
    Fetched,
    ImapError,
    ImapSettings,
    check_folder_name,
    check_uid,
)
from relaybot.mail.imap.watching import Interrupt, Woke, readable
from relaybot.store.faults import crash_point

__all__ = ["IDLE_RENEW_SECONDS", "Mailbox"]

IDLE_RENEW_SECONDS: Final = 290.0
"""IDLE is ended and restarted at least this often (RFC 2177 asks for < 29 minutes;
NATs and firewalls often forget idle TCP flows much sooner)."""

_SIZE: Final = b"RFC822.SIZE"
_DATE: Final = b"INTERNALDATE"
_BODY: Final = b"BODY[]"


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

        Raises :class:`~relaybot.mail.imap.values.ImapAuthError` if the login is refused,
        :class:`ImapError` for any other failure. Retries nothing.
        """
        self.close()
        s = self.settings
        client: Any = None
        try:
            client = open_client(s)
            for folder in (PROCESSED, QUARANTINE):
                self._ensure_folder(client, folder)
            selected = client.select_folder(s.folder)
            self._uidvalidity = int(selected[b"UIDVALIDITY"])
            self._client = client
            self._drop_untagged()  # the SELECT's EXISTS is not news: pending_uids covers it
            self._news = False
        except ImapError:
            shutdown(client)
            raise
        except Exception as exc:
            shutdown(client)
            if is_network_error(exc) or isinstance(exc, KeyError | ValueError):
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
            shutdown(client)

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
        shutdown(client)
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
        if any(nonzero(n) for n in stash.pop("RECENT", ())):
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
        return self._search_all(self._require(), sync=True)

    def _search_all(self, client: Any, *, sync: bool) -> list[int]:
        try:
            if sync:
                self._sync_view(client)
            uids = client.search(["ALL"])
        except Exception as exc:
            if is_network_error(exc):
                raise self._fail("UID SEARCH", exc) from exc
            raise
        self._drop_untagged()
        return sorted(int(uid) for uid in uids)

    def pending_heads(self) -> tuple[list[int], dict[int, dict[bytes, Any]]]:
        """:meth:`pending_uids` and their :meth:`heads` in one round trip after the NOOP:
        ``UID FETCH 1:* (RFC822.SIZE INTERNALDATE)`` answers for every message in the
        folder, as UID SEARCH ALL does, with the sizes that FETCH would bring next.

        Every message, not those above the last UID seen: what a poll must see again
        (a mail whose processing failed, one left behind by a crash between the commit
        and the MOVE) has an old UID. Where the server refuses the FETCH, the SEARCH and
        the FETCH of the sizes are sent as before; a message the answer gives no size or
        date for is left out and stays in the folder for the next poll.
        """
        client = self._require()
        # imapclient's fetch() takes UIDs, not a range: imaplib's own UID command, read
        # by imapclient's parser as fetch() reads it
        imap: Any = getattr(client, "_imap", None)
        found: dict[int, dict[bytes, Any]] | None = None
        synced = False
        if imap is not None:
            try:
                self._sync_view(client)
                synced = True
                typ, data = imap.uid("FETCH", "1:*", f"({_SIZE.decode()} {_DATE.decode()})")
                if typ == "OK":
                    found = _complete_heads(parse_fetch_response(
                        data, normalise_times=False, uid_is_key=True))
            except IMAPClientError:
                pass  # BAD, or an answer imapclient cannot read: the old way below
            except Exception as exc:
                if is_network_error(exc):
                    raise self._fail("UID FETCH 1:*", exc) from exc
                raise
        if found is None:
            # the view is up to date when the NOOP went through: one NOOP per look
            uids = self._search_all(client, sync=not synced)
            return uids, self.heads(uids) if uids else {}
        self._drop_untagged()
        return sorted(found), found

    def _sync_view(self, client: Any) -> None:
        """NOOP before a look at the whole folder: Dovecot answers from the session's
        view, and NOOP brings it up to date; the look covers all mail announced so far."""
        client.noop()
        self._take_stashed_news()

    def heads(self, uids: list[int]) -> dict[int, dict[bytes, Any]]:
        """RFC822.SIZE and INTERNALDATE of many UIDs in one FETCH per 500 (G13: sizes are
        known before any body is downloaded); vanished UIDs are simply missing."""
        client = self._require()
        out: dict[int, dict[bytes, Any]] = {}
        try:
            for start in range(0, len(uids), 500):
                chunk = [check_uid(u) for u in uids[start:start + 500]]
                out |= _complete_heads(client.fetch(chunk, [_SIZE, _DATE]))
        except IMAPClientError:
            return {}  # the caller falls back to one FETCH per message
        except Exception as exc:
            if is_network_error(exc):
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
        uid = check_uid(uid)
        client = self._require()
        try:
            if head is None:
                head = self._fetch_items(client, uid, [_SIZE, _DATE])
            if head is None:
                return None
            size = int(head[_SIZE])
            internaldate = to_utc(head[_DATE])
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
            if is_network_error(exc):
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
            size, internaldate = int(head[_SIZE]), to_utc(head[_DATE])
            if size > self.max_size:
                out[uid] = Fetched(uid, None, internaldate, size, too_big=True)
            else:
                small[check_uid(uid)] = (size, internaldate)
        if not small:
            return out
        try:
            crash_point("mid_fetch")
            data = client.fetch(list(small), ["BODY.PEEK[]"])
        except IMAPClientError:
            return out  # e.g. NO [EXPUNGEISSUED]: the caller fetches one by one
        except Exception as exc:
            if is_network_error(exc):
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
        return None  # expunged between finding and fetching it (or only an unsolicited FETCH)

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
        uid = check_uid(uid)
        check_folder_name(folder)
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
            if is_network_error(exc):
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
        wanted = sorted({check_uid(u) for u in uids})
        check_folder_name(folder)
        client = self._require()
        moved: set[int] = set()
        if client.has_capability("MOVE") and client.has_capability("UIDPLUS"):
            try:
                self._drop_untagged()  # the COPYUID read below must be this command's
                client.move(wanted, folder)
                for line in _untagged_ok(client):
                    moved |= copyuid_sources(line)
                self._drop_untagged()
            except IMAPClientError:
                moved = set()  # TRYCREATE, a vanished UID, ...: the careful path below
            except Exception as exc:
                if is_network_error(exc):
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
        if b"COPYUID" not in as_bytes(resp).upper() and client.has_capability("UIDPLUS"):
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
        return self.watch(timeout) == "news"

    def watch(self, timeout: float, interrupt: Interrupt | None = None) -> Woke:
        """As :meth:`wait`, and also ended at once when ``interrupt`` is raised (or is
        raised already): ``"news"``, ``"timeout"`` or ``"interrupt"``.

        An interrupt (the mail server's wake-up, relaybot.app.wake) ends the IDLE with
        DONE like a timeout does; the connection stays ready for the poll.
        """
        client = self._require()
        deadline = time.monotonic() + max(0.0, timeout)
        watched = [interrupt.fileno()] if interrupt is not None else []
        try:
            # the interrupt first: stashed news of the same mail must not hide its push
            if watched and readable(watched, 0):
                return "interrupt"
            if self._take_stashed_news():
                return "news"
            if not client.has_capability("IDLE"):
                left = max(0.0, deadline - time.monotonic())
                if watched and readable(watched, left):
                    return "interrupt"
                if not watched:
                    time.sleep(left)
                news = has_news(client.noop()[1]) or self._take_stashed_news()
                return "news" if news else "timeout"
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return "timeout"
                woke = self._idle_once(client, min(left, IDLE_RENEW_SECONDS), interrupt)
                if woke != "timeout":
                    return woke
        except BaseException as exc:
            if is_network_error(exc):
                raise self._fail("IDLE", exc) from exc
            # Interrupted mid-IDLE (a stop signal): the session may still be idling and
            # would ignore a LOGOUT until the socket timeout. Drop it without one.
            self._fail("IDLE", exc)
            raise

    def _idle_once(self, client: Any, seconds: float, interrupt: Interrupt | None = None
                   ) -> Woke:
        """One IDLE ... DONE round of at most *seconds*: ``"news"`` if new mail was
        reported, ``"interrupt"`` if ``interrupt`` was raised first, else ``"timeout"``."""
        end = time.monotonic() + seconds
        news = interrupted = False
        client.idle()
        if self._buffered(client):
            end = 0.0  # responses already read along with "+ idling": let DONE collect them
        while not news:
            left = end - time.monotonic()
            if left <= 0:
                break
            if interrupt is None:
                responses = client.idle_check(timeout=left)
            else:
                # the server's socket and the interrupt together (imapclient's own
                # idle_check watches the socket alone)
                ready = readable([client.socket().fileno(), interrupt.fileno()], left)
                if interrupt.fileno() in ready:
                    interrupted = True
                    break
                if not ready:
                    continue  # the time is up: the loop ends above
                responses = client.idle_check(timeout=0)
            news = has_news(responses)
            if not responses and end - time.monotonic() > 0.05:
                break  # woke with nothing to read: EOF? DONE below will tell
        _text, responses = client.idle_done()
        if interrupted:
            return "interrupt"  # what came with DONE is found by the poll that follows
        return "news" if has_news(responses) or news else "timeout"

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


def _complete_heads(data: dict[Any, Any]) -> dict[int, dict[bytes, Any]]:
    """The entries of a FETCH answer that carry both the size and the INTERNALDATE: an
    unsolicited FETCH (flags another client changed) has neither, and may be keyed by its
    sequence number rather than a UID."""
    return {int(uid): dict(entry) for uid, entry in data.items()
            if _SIZE in entry and _DATE in entry}


def _untagged_ok(client: Any) -> list[bytes]:
    """The untagged OK lines of the last command, where RFC 6851 puts a MOVE's COPYUID
    (imaplib keeps them per command)."""
    stash = getattr(getattr(client, "_imap", None), "untagged_responses", {})
    return [bytes(line) for line in stash.get("OK", ())]

