"""The game ids a mail names (plus-address, subject tags), the reply tokens it was sent to
(issue 12) and VERP bounce ids (G6)."""

from __future__ import annotations

import re
import unicodedata

from relaybot.core.tokens import TokenAddress, parse_address
from relaybot.mail.inbound.bounces import verp_token
from relaybot.mail.inbound.parse import InboundMail

__all__ = ["reply_tokens", "tagged_ids", "verp_id"]

_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{1,40}")
_SUBJECT_TAG_RE = re.compile(r"[\[【〔]\s*([a-z0-9][a-z0-9-]{1,40})\s*[\]】〕]")


def _split_bot(bot_address: str) -> tuple[str, str] | None:
    local, at, domain = bot_address.strip().lower().rpartition("@")
    if not at or not local or not domain:
        return None
    return local.split("+", 1)[0], domain


def tagged_ids(mail: InboundMail, bot_address: str) -> list[str]:
    """Game ids the mail names: plus-address ids first, then subject tags.

    ``relay+g7k2@club.example`` (for bot ``relay@club.example``) names ``g7k2``, and so
    does the token address ``relay+g7k2.<token>@club.example`` the bot's mail gives as
    Reply-To (whether the token verifies is the identify stage's question, not this
    one's). VERP addresses (``relay+b.<token>``) are left to :func:`verp_id`. Subject
    tags ``[g7k2]`` / ``【g7k2】`` count after NFKC normalisation. Ids are lower-cased and
    deduplicated; the caller checks which games exist (G12).
    """
    out: list[str] = []
    bot = _split_bot(bot_address)
    if bot is not None:
        for rcpt in mail.recipients:
            local, at, domain = rcpt.strip().lower().rpartition("@")
            if not at or domain != bot[1]:
                continue
            base, plus, tag = local.partition("+")
            if not plus or base != bot[0] or tag.startswith("bounce-"):
                continue
            token_address = parse_address(rcpt, *bot)
            if token_address is not None:
                if token_address.game_id is None:
                    continue  # m. and c. addresses name no game
                tag = token_address.game_id
            if _ID_RE.fullmatch(tag) and tag not in out:
                out.append(tag)
    subject = unicodedata.normalize("NFKC", mail.subject).lower()
    for m in _SUBJECT_TAG_RE.finditer(subject):
        tag = m.group(1)
        if tag not in out:
            out.append(tag)
    return out


def reply_tokens(mail: InboundMail, bot_address: str) -> list[TokenAddress]:
    """The token addresses of the bot among the mail's recipients: To, Cc, Delivered-To
    and X-Original-To (INTERFACE.md "Who may act"; :attr:`InboundMail.recipients` holds
    exactly these). Shape only: which member a token was issued to is checked by the
    identify stage against ``[bot] secret``."""
    bot = _split_bot(bot_address)
    if bot is None:
        return []
    found: list[TokenAddress] = []
    for rcpt in mail.recipients:
        token_address = parse_address(rcpt, *bot)
        if token_address is not None and token_address not in found:
            found.append(token_address)
    return found


def verp_id(address: str, bot_address: str) -> str | None:
    """``relay+b.<token>@club.example`` -> ``<token>`` for bot ``relay@club.example`` (G6):
    the token of the VERP envelope sender one outgoing mail was sent with
    (:func:`relaybot.mail.inbound.bounces.verp_token`). Anything else gives None."""
    return verp_token(address, bot_address)
