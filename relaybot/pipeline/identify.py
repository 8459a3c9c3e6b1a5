"""Who sent a mail, and what kind of mail it is: a delivery report, automated mail, a
confirmation of a held mail, a TD, a stranger or a member (G6, G7, G12).

This is the trust gate (INTERFACE.md "Who may act", issue 12). A member is known by any
of their registered addresses (``Member.email`` and ``member_addresses``); a TD by being
``[bot] td`` or an event's ``--td``. :attr:`Sender.grant` says what the mail proves of its
From: line: a reply token issued to that member (or that TD) among its recipients, each
within its scope, or a ``dmarc=pass`` for the From: domain from our own MTA. Whether that
covers what the mail asks is decided on its one reading (:meth:`Grant.covers`); what is
not covered is held by the next stage (``pipeline/holds.py``); a trusted ``dmarc=fail``
acts on nothing.

差出人の確認：本人宛てに発行した返信トークンか、自分の MTA の dmarc=pass があれば
本人確認済み（authenticated）です。それ以外は保留して登録アドレスに確認を求めます。
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.reading import Reading
from relaybot.core.tokens import TokenAddress, verify
from relaybot.mail.inbound import InboundMail, reply_tokens, verp_id
from relaybot.pipeline.bounces import delivery_report
from relaybot.pipeline.td import command_game
from relaybot.store.models import Event, Game, Member, MemberAddress


@dataclass(frozen=True)
class Grant:
    """What a mail's proofs let its sender do (INTERFACE.md "Who may act", token scopes).

    ``everything``: our MTA's ``dmarc=pass`` for the From: domain (or a confirmation
    token of theirs, for a reply that is a new mail); ``member``: an ``m.`` token (what is
    not about one game: leave, digest off, TD commands); ``games``: game tokens, each for
    its own game's moves, keywords and TD commands; ``unsubscribe``: a ``u.`` token, which
    stops the digest and does nothing else.
    """

    everything: bool = False
    member: bool = False
    games: frozenset[str] = frozenset()
    unsubscribe: bool = False

    def __bool__(self) -> bool:
        return self.everything or self.member or bool(self.games) or self.unsubscribe

    def covers(self, reading: Reading) -> bool:
        """True when every part of the mail's one reading lies within these scopes: only
        then does it act at once; anything else is held whole (fail closed)."""
        if self.everything:
            return True
        if not (self.member or self.games):
            # the unsubscribe token: digest off and nothing else
            return self.unsubscribe and bool(reading.found) and not reading.has_moves and all(
                f.name == "digest_off" or f.does == "reads" for f in reading.found)
        if any(t is None or t not in self.games for t in reading.game_targets):
            return False  # moves or game keywords for a game no token here is for
        if reading.does("member") and not self.member:
            return False
        if reading.commands and not self.member:
            lines = reading.text.splitlines()
            # a game token covers a TD command only when the command acts on that game
            # and names no other (G12): never leave, withdraw, answer or points
            return all(_names_only(lines[c.line], self.games, reading.games)
                       for c in reading.commands)
        return True


def widened(session: Session, grant: Grant) -> Grant:
    """J17: a game token also covers the sections of the same two players' other games
    (a reply in one game's thread may move all the games of that pair, as the JCCA's
    postal card does); never games against anyone else."""
    if not grant.games or grant.everything:
        return grant
    pairs = {frozenset((g.side0_id, g.side1_id))
             for g in session.scalars(select(Game).where(Game.id.in_(sorted(grant.games))))}
    if not pairs:
        return grant
    sides = sorted({side for pair in pairs for side in pair})
    extra = {g.id for g in session.scalars(select(Game).where(
        Game.status == "active", Game.side0_id.in_(sides), Game.side1_id.in_(sides)))
        if frozenset((g.side0_id, g.side1_id)) in pairs}
    return replace(grant, games=grant.games | extra)


def _names_only(line: str, mine: frozenset[str], named: tuple[str, ...]) -> bool:
    """The command on ``line`` acts on one of the token's games (its game word, not any
    word of the line: ``approve leave 3 <game>`` is not about that game) and the line
    names no other game the mail names."""
    target = command_game(line)
    if target is None or target not in mine:
        return False
    words = {w.strip(".,;:()").lower() for w in line.split()}
    return not (words & (set(named) - mine))


@dataclass(frozen=True)
class Sender:
    """What :func:`identify` found.

    ``kind`` is ``member`` (with ``member``), ``td`` (with ``td``; a TD who also plays
    has ``member`` too), ``confirm`` (a reply to a confirmation request, ``confirm``
    its token address) or a final outcome word (``bounce``, ``automated``,
    ``stranger``, ...) when nothing more is to be done with the mail.
    """

    kind: str
    member: Member | None = None
    # what the mail's proofs let the member do (tokens issued to them, our MTA's
    # dmarc=pass); ``td_grant`` the same for the TD address. Whether that covers the
    # mail is decided on its one reading (Grant.covers).
    grant: Grant = Grant()
    td: str | None = None
    td_grant: Grant = Grant()
    forged: bool = False  # our MTA says dmarc=fail for the From: domain
    confirm: TokenAddress | None = None

    @property
    def authenticated(self) -> bool:
        """The mail proves its From: for the member in some scope."""
        return bool(self.grant)

    @property
    def td_authenticated(self) -> bool:
        """The mail proves its From: for the TD in some scope."""
        return bool(self.td_grant)


def identify(session: Session, cfg: Config, mail: InboundMail, arrived: datetime,
             members: dict[str, Member] | None = None,
             tds: frozenset[str] | None = None) -> Sender:
    """Classify a mail by its sender; delivery reports are recorded here (G6).

    ``members`` and ``tds``: the batch's senders and the TD addresses, read at once by
    the poller (else a query each).
    """
    for rcpt in mail.recipients:
        token = verp_id(rcpt, cfg.bot.address)
        if token is not None:
            # G6: counted only at an issued VERP address and in a report's shape
            return Sender(delivery_report(session, cfg, mail, token, arrived))
    if mail.automated:
        return Sender("automated")  # G7: never answer automated mail
    if mail.from_addr is None:
        return Sender("no_sender")
    sender = mail.from_addr
    member = (members.get(sender) if members is not None
              else members_by_address(session, [sender]).get(sender))
    is_td = sender in tds if tds is not None else is_td_address(session, cfg, sender)
    td = sender if is_td else None
    if member is None and td is None:
        return Sender("stranger")  # G12: strangers get no reply at all
    confirm = next((t for t in reply_tokens(mail, cfg.bot.address) if t.kind == "c"), None)
    return Sender(
        "confirm" if confirm is not None else ("td" if td is not None else "member"),
        member,
        grant=grant(cfg, mail, str(member.id)) if member is not None else Grant(),
        td=td,
        td_grant=grant(cfg, mail, td_recipient(cfg, td)) if td is not None else Grant(),
        forged=mail.dmarc_fail,
        confirm=confirm,
    )


def members_by_address(session: Session, addresses: Iterable[str]) -> dict[str, Member]:
    """The members who own these addresses (their main one or another registered one),
    by address; two queries for any number of addresses."""
    wanted = sorted(set(addresses))
    if not wanted:
        return {}
    found = {m.email: m for m in session.scalars(select(Member).where(Member.email.in_(wanted)))}
    rest = [a for a in wanted if a not in found]
    if rest:
        for address, member in session.execute(
                select(MemberAddress.address, Member)
                .join(Member, Member.id == MemberAddress.member_id)
                .where(MemberAddress.address.in_(rest))):
            found[address] = member
    return found


def is_td_address(session: Session, cfg: Config, address: str) -> bool:
    """True for ``[bot] td`` and for the TD an event names (``event new --td``)."""
    address = address.strip().lower()
    if address == cfg.bot.td.strip().lower():
        return True
    return session.scalar(select(Event.id).where(Event.td == address).limit(1)) is not None


def td_addresses(session: Session, cfg: Config) -> frozenset[str]:
    """Every TD address: ``[bot] td`` and each event's ``--td`` (one query, for a batch)."""
    events = session.scalars(select(Event.td).where(Event.td.is_not(None)).distinct())
    return frozenset({cfg.bot.td.strip().lower(), *(td for td in events if td)})


def td_recipient(cfg: Config, address: str) -> str:
    """Who a TD's reply token is issued to (:func:`relaybot.core.tokens.td_recipient`)."""
    return tokens.td_recipient(cfg.bot.td, address)


def grant(cfg: Config, mail: InboundMail, recipient: str) -> Grant:
    """What the mail proves for ``recipient`` (a member id as text, or a TD's
    :func:`td_recipient`), INTERFACE.md "Who may act":

    * a token address issued to ``recipient`` among To, Cc, Delivered-To and
      X-Original-To: ``relay+<game-id>.<token>`` for that game, ``relay+m.<token>`` for
      member mail, ``relay+u.<token>`` for the digest's unsubscribe; the current and
      the previous secret both count (rotation). A token issued to someone else proves
      nothing, so the opponent who copies a thread's Reply-To gains nothing.
    * or our MTA's topmost Authentication-Results says dmarc=pass for the From: domain
      (``[bot] authserv_id``), and none of ours says fail: everything.

    A ``c.`` confirmation address is not read here: it confirms one hold, found by its
    token (``pipeline/holds.py``). Without a secret nothing is proven by token.
    """
    if mail.dmarc_fail:
        return Grant()  # fail closed: our MTA says the From: line was forged
    if mail.dmarc_pass:
        return Grant(everything=True)
    keys = cfg.bot.verify_keys()
    if not keys:
        return Grant()
    member = unsubscribe = False
    games: set[str] = set()
    for found in reply_tokens(mail, cfg.bot.address):
        scope = found.scope
        if scope is None or not verify(keys, scope, recipient, found.token):
            continue
        if found.kind == "game" and found.game_id is not None:
            games.add(found.game_id)
        member |= found.kind == "m"
        unsubscribe |= found.kind == "u"
    return Grant(member=member, games=frozenset(games), unsubscribe=unsubscribe)
