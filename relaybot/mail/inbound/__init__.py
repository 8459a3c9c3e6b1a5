"""Inbound mail: raw bytes -> :class:`InboundMail`, never raising.

This package is the single place where untrusted mail bytes become Python values.
It upholds, from RELIABILITY.md:

* **G7** (no loops, RFC 3834): :attr:`InboundMail.automated` names the reason a mail
  must never be answered (Auto-Submitted, null or MAILER-DAEMON sender, ``List-*``,
  ``Precedence``, ``multipart/report``, auto-reply markers, our own address).
* **G12** (authority): :attr:`InboundMail.from_addr` comes only from a single,
  well-formed ``From`` mailbox; ``Reply-To`` and ``Sender`` are never consulted, and any
  trick (``alice@x.org)<bob@x.org>``, several mailboxes, unbalanced comments) yields
  ``None``. :attr:`InboundMail.dmarc_fail` and :attr:`InboundMail.dmarc_pass` read
  ``Authentication-Results`` only from the trusted authserv-id (``[bot] authserv_id``).
* **G13** (bounded input): caps on header length, MIME depth, part count and decoded text
  size; attachments are never decoded; charsets are tried as declared, then UTF-8, then
  with replacement characters. Every step is wrapped so that :func:`parse_mail` returns a
  value for any input (tested by T12 with Hypothesis and a corpus).
* **T13**: decoded header values (subject, names) have CR, LF and other control
  characters replaced by spaces, so nothing can be injected into headers we write.

The modules, one concern each:

* ``parse`` - :class:`InboundMail` and :func:`parse_mail`, which ties the rest together;
* ``tags`` - game ids named by plus-address or subject tag, reply tokens, VERP bounce ids;
* ``addresses`` - the strict From parser, recipient lists, message ids;
* ``automated`` - G7 automated-mail and bounce detection;
* ``auth_results`` - DMARC from ``Authentication-Results``;
* ``headers`` - raw header values, RFC 2047 encoded words;
* ``lexical`` - unfolding, comments, tokens, control characters (T13);
* ``charsets`` - bytes to text, Japanese charsets, lenient base64;
* ``body`` - the bounded MIME walk and the preferred text part;
* ``html_text`` - HTML to text, quoted blocks dropped;
* ``quotes`` - quoted reply and signature removal;
* ``limits`` - the G13 bounds.
"""

from __future__ import annotations

from relaybot.mail.inbound.limits import MAX_DEPTH, MAX_PARTS, MAX_TEXT_CHARS
from relaybot.mail.inbound.parse import InboundMail, parse_mail
from relaybot.mail.inbound.tags import reply_tokens, tagged_ids, verp_id

__all__ = [
    "MAX_DEPTH",
    "MAX_PARTS",
    "MAX_TEXT_CHARS",
    "InboundMail",
    "parse_mail",
    "reply_tokens",
    "tagged_ids",
    "verp_id",
]
