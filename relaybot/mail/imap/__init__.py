"""A thin, UID-only facade over imapclient for the inbound mailbox (RELIABILITY.md G8, G13).

The poller's loop is, in outline::

    with Mailbox(settings) as box:            # login, select, ensure Processed/Quarantine
        while True:
            for uid in box.pending_uids():    # what is still in INBOX is not yet processed
                                              # (box.pending_heads(): with the sizes)
                fetched = box.fetch(uid)      # None: another client took it (RELIABILITY T5)
                ...commit...
                box.move(uid, "Processed")    # only after the commit (G1)
            box.wait(timeout)                 # IDLE, renewed; the poll is the backstop
                                              # (box.watch(timeout, wakeup): also ended by
                                              # the mail server's push, relaybot.app.wake)

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

The modules: ``mailbox`` is the facade (:class:`Mailbox`, the only part that talks to
the server once logged in); ``connection`` opens a session (TLS, login) and drops one,
and says which failures are the network's, for the facade and for ``survey`` (the
read-only look of ``relaybot check``); ``watching`` is what a watch waits on besides the
server; ``responses`` reads server answers (INTERNALDATE, COPYUID, EXISTS/RECENT, BYE)
and ``values`` holds the settings, results, errors and argument checks, both pure.
"""

from __future__ import annotations

from relaybot.mail.imap.mailbox import IDLE_RENEW_SECONDS, Mailbox
from relaybot.mail.imap.values import (
    PROCESSED,
    QUARANTINE,
    Fetched,
    ImapAuthError,
    ImapError,
    ImapSettings,
)
from relaybot.mail.imap.watching import Interrupt, Woke

__all__ = [
    "IDLE_RENEW_SECONDS",
    "PROCESSED",
    "QUARANTINE",
    "Fetched",
    "ImapAuthError",
    "ImapError",
    "ImapSettings",
    "Interrupt",
    "Mailbox",
    "Woke",
]
