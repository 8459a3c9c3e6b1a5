"""Reply tokens: who a reply address was issued to (INTERFACE.md "Who may act", issue 12).

Every mail the bot sends to a member or the TD carries a ``Reply-To`` address with a
token only that recipient was given. A mail that comes back to such an address from
the member it was issued to is authenticated: a forger who knows the game id (it is in
every subject line the opponent sees) still cannot write the token.

A token is the first :data:`TOKEN_LENGTH` characters of the lower-case, unpadded base32
of ``HMAC-SHA256(key, scope + "\\0" + recipient)``:

* ``scope`` - a game id (mail about one game), :data:`MEMBER_SCOPE` (``"m"``: digests,
  TD alerts, anything not about one game) or ``"c:<hold id>"`` (a confirmation request,
  :func:`confirmation_scope`);
* ``recipient`` - the member's id as text, or :data:`TD_RECIPIENT` for the TD.

The key is ``[bot] secret``. Rotation: the operator moves the old key to
``[bot] secret_previous`` and writes a new ``secret``; new mail gets tokens from the new
key while replies to mail sent before still verify with the old one. INTERFACE.md gives
the old key 30 days, counted from the first poll that ran with it
(``relaybot.club.key_rotation``; a game's mails are answered within days, so 30 days
covers every reply still in flight): after them the old key is left out of the keys
checked, whether or not the operator has cleared it.

Address forms (``<local>`` and ``<domain>`` are the bot's address)::

    <local>+<game-id>.<token>@<domain>    mail about one game
    <local>+m.<token>@<domain>            other mail to a member or the TD
    <local>+c.<token>@<domain>            a confirmation request
    <local>+u.<token>@<domain>            a digest's List-Unsubscribe (digest off only)

Pure: no I/O, no clock; the keys come from the caller.

返信トークン：ボットが送るメールの Reply-To には受信者ごとのトークン付きアドレスが入り、
そのアドレスへの本人からの返信は本人確認済みとみなします。鍵の更新時は旧鍵を
``secret_previous`` に移すと、旧鍵のトークンもその後 30 日間有効です。
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "MEMBER_SCOPE",
    "TD_RECIPIENT",
    "TOKEN_LENGTH",
    "UNSUBSCRIBE_SCOPE",
    "TokenAddress",
    "confirmation_scope",
    "format_address",
    "is_token",
    "issue",
    "parse_address",
    "td_recipient",
    "verify",
]

TOKEN_LENGTH = 10
MEMBER_SCOPE = "m"
TD_RECIPIENT = "td"
# the one-click unsubscribe token's scope (the web link, and the digest's List-Unsubscribe
# mailto ``<local>+u.<token>@``): it stops the digest and does nothing else, since digests
# are forwarded (issue 22)
UNSUBSCRIBE_SCOPE = "unsubscribe"

TokenKind = Literal["game", "m", "c", "u"]

# a token: base32's alphabet, lower case; a game id: what new_games.new_game_id makes and
# mail.inbound.tags accepts (at least two characters, so never "m" or "c")
_TOKEN_RE = re.compile(rf"[a-z2-7]{{{TOKEN_LENGTH}}}")
_GAME_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{1,40}")


def td_recipient(bot_td: str, address: str) -> str:
    """Who a TD's token is issued to: ``"td"`` for the club's TD ``bot_td`` (``[bot]
    td``; tokens sent before events had their own TD stay valid), ``"td:<address>"`` for
    an event's TD, so one TD's token proves nothing for another."""
    address = address.strip().lower()
    return TD_RECIPIENT if address == bot_td.strip().lower() else f"{TD_RECIPIENT}:{address}"


def confirmation_scope(hold_id: int | str) -> str:
    """The scope of a confirmation request's token for one hold."""
    return f"c:{hold_id}"


def _key_bytes(key: str | bytes) -> bytes:
    return key.encode("utf-8") if isinstance(key, str) else key


def issue(key: str | bytes, scope: str, recipient: str) -> str:
    """The token for ``recipient`` (a member id as text, or ``"td"``) in ``scope``."""
    if not key:
        # an empty key would give every installation the same tokens
        raise ValueError("a reply token needs a non-empty key ([bot] secret)")
    message = f"{scope}\x00{recipient}".encode()
    digest = hmac.new(_key_bytes(key), message, hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii").rstrip("=").lower()[:TOKEN_LENGTH]


def is_token(text: str) -> bool:
    """True for text of a token's shape (not that it verifies)."""
    return isinstance(text, str) and _TOKEN_RE.fullmatch(text) is not None


def verify(keys: Iterable[str | bytes], scope: str, recipient: str, token: str) -> bool:
    """True if ``token`` was issued to ``recipient`` in ``scope`` under one of ``keys``
    (the current secret, then the previous one during a rotation; empty keys are
    skipped). Every key is tried and compared in constant time, so the answer's timing
    says nothing about which key or how many characters matched."""
    if not is_token(token):
        return False
    wanted = token.encode("ascii")
    found = False
    for key in keys:
        if key:
            expected = issue(key, scope, recipient).encode("ascii")
            found = hmac.compare_digest(expected, wanted) or found
    return found


@dataclass(frozen=True)
class TokenAddress:
    """A token address read back: ``kind`` ``game`` (with ``game_id``), ``m``, ``c`` or
    ``u`` (unsubscribe)."""

    kind: TokenKind
    game_id: str | None
    token: str

    @property
    def scope(self) -> str | None:
        """The scope the token must verify in; None for ``c`` (the hold it confirms is
        found by the token, not named in the address)."""
        if self.kind == "game":
            return self.game_id
        if self.kind == "u":
            return UNSUBSCRIBE_SCOPE
        return MEMBER_SCOPE if self.kind == "m" else None


def format_address(local: str, domain: str, scope_tag: str, token: str) -> str:
    """``<local>+<scope_tag>.<token>@<domain>``; ``scope_tag`` is a game id, ``m`` or
    ``c``."""
    return f"{local}+{scope_tag}.{token}@{domain}"


def parse_address(address: str, local: str, domain: str) -> TokenAddress | None:
    """Read a token address of the bot ``local@domain``; None for anything else.

    Local part and domain compare case-insensitively (mail clients and MTAs change the
    case of addresses); the token itself is lower case when issued, so it is read lower
    case too.
    """
    if not isinstance(address, str):
        return None
    addr = address.strip().strip("<>").strip().lower()
    addr_local, at, addr_domain = addr.rpartition("@")
    if not at or addr_domain != domain.strip().lower():
        return None
    base, plus, tag = addr_local.partition("+")
    if not plus or base != local.strip().lower().split("+", 1)[0]:
        return None
    scope_tag, dot, token = tag.rpartition(".")
    if not dot or not is_token(token):
        return None
    if scope_tag == "m":
        return TokenAddress("m", None, token)
    if scope_tag == "c":
        return TokenAddress("c", None, token)
    if scope_tag == "u":
        return TokenAddress("u", None, token)
    if (_GAME_ID_RE.fullmatch(scope_tag) and not scope_tag.startswith("bounce-")
            and scope_tag != UNSUBSCRIBE_SCOPE):
        # (bounce-... is the envelope sender's VERP form, never a game)
        return TokenAddress("game", scope_tag, token)
    return None
