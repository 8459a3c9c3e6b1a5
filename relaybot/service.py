"""One inbound mail = one unit of work: load, decide, save state and outbox rows.

The flow follows DESIGN.md: parse (never raises) -> who and which game (G12)
-> the referee's verdict -> moves, ledger events and outbox mail, all or nothing.
``process_mail`` gives a mail its own transaction; the poller runs a batch of mails
in one transaction with a savepoint per mail (``process_in``) and moves them out of
INBOX only after that commit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import bindparam, or_, select
from sqlalchemy.orm import Session

from relaybot.books import books_for, compute, game_ledger, ledgers
from relaybot.config import Config
from relaybot.core.clocks import Overrun
from relaybot.core.conditionals import Conditional, format_conditional
from relaybot.core.game import Outcome, Termination
from relaybot.core.intent import Intent, read_intent, strip_lines
from relaybot.core.referee import StoredGame, Verdict, decide
from relaybot.core.sections import Section, split_mail
from relaybot.faults import crash_point
from relaybot.games import kinds, rules_for
from relaybot.games.base import GameRules
from relaybot.mail.inbound import InboundMail, parse_mail, tagged_ids, verp_id
from relaybot.mail.render import render
from relaybot.outbox import Recipient, discard_deferred, insert_deferred, queue_mail
from relaybot.requests import ask_td, end_leave_by_move, request_leave
from relaybot.store.db import Store
from relaybot.store.models import Game, GameEvent, Inbound, Member, Move, Outbox, ReplyCount
from relaybot.views import GameFile, game_context, game_record

log = logging.getLogger(__name__)

ERROR_KINDS = {
    "sync_error", "bad_move", "contradiction", "not_your_turn", "too_many_moves", "no_move",
    "game_over",
    "no_game", "not_player",
}


@dataclass(frozen=True)
class Arrival:
    """One mail as taken from IMAP."""

    raw: bytes
    internaldate: datetime
    folder: str = "INBOX"
    uidvalidity: int = 0
    uid: int = 0


def process_mail(store: Store, cfg: Config, arrival: Arrival, now: datetime) -> str:
    """Handle one mail in one transaction; returns what happened (for logs and tests)."""
    with store.session() as session:
        outcome = _process(session, cfg, arrival, now)
        crash_point("before_commit")
    crash_point("after_commit")
    return outcome


def process_in(session: Session, cfg: Config, arrival: Arrival, now: datetime,
               batch: Prefetch | None = None) -> str:
    """Handle one mail inside the caller's transaction (the poller commits a batch of
    mails at once, each in its own savepoint); returns what happened.

    ``batch``: what :func:`prefetch` read for the whole batch (else read per mail).
    """
    return _process(session, cfg, arrival, now, batch)


@dataclass
class Prefetch:
    """What a batch of mails needs from the store before routing, read in two queries
    for the whole batch instead of two per mail: the ingest ledger (G2) and the senders.

    Only for arrivals with UIDs from one folder and UIDVALIDITY (as the poller has).
    """

    mails: dict[int, InboundMail]  # by UID, parsed once
    seen_ids: set[str]  # Message-IDs handled before, or earlier in this batch
    seen_uids: set[int]
    members: dict[str, Member]  # by address: every sender of the batch who is a member
    claimed: dict[int, str] = field(default_factory=dict)  # UID -> Message-ID, this batch

    def claim(self, arrival: Arrival, message_id: str) -> bool:
        """G2 for the batch: False when this mail was handled before (by Message-ID or
        UID), or earlier in this batch; else it is marked handled now."""
        if message_id in self.seen_ids or arrival.uid in self.seen_uids:
            return False
        self.seen_ids.add(message_id)
        self.claimed[arrival.uid] = message_id
        return True

    def release(self, uid: int) -> None:
        """The mail's savepoint was rolled back: its Message-ID is not handled after all."""
        message_id = self.claimed.pop(uid, None)
        if message_id is not None:
            self.seen_ids.discard(message_id)


def prefetch(session: Session, cfg: Config, arrivals: list[Arrival]) -> Prefetch:
    """Parse a batch's mails and read their ledger entries and senders (see Prefetch)."""
    mails: dict[int, InboundMail] = {}
    for arrival in arrivals:
        try:
            mails[arrival.uid] = parse_mail(arrival.raw, own_addresses=[cfg.bot.address])
        except Exception:  # parsed again in its own savepoint, where a failure counts (G3)
            log.debug("uid %s: parse failed in prefetch", arrival.uid, exc_info=True)
    first = arrivals[0]
    ids = sorted({m.message_id for m in mails.values()})
    seen_ids: set[str] = set()
    seen_uids: set[int] = set()
    for message_id, folder, validity, uid in session.execute(
            select(Inbound.message_id, Inbound.folder, Inbound.uidvalidity, Inbound.uid)
            .where(or_(Inbound.message_id.in_(ids),
                       (Inbound.folder == first.folder)
                       & (Inbound.uidvalidity == first.uidvalidity)
                       & Inbound.uid.in_([a.uid for a in arrivals])))):
        seen_ids.add(message_id)
        if (folder, validity) == (first.folder, first.uidvalidity):
            seen_uids.add(uid)
    senders = sorted({m.from_addr for m in mails.values() if m.from_addr})
    members = {m.email: m for m in session.scalars(
        select(Member).where(Member.email.in_(senders)))} if senders else {}
    return Prefetch(mails, seen_ids, seen_uids, members)


# Hot statements built once, run with parameters: neither rebuilt nor re-keyed per mail.
_SEEN_ID = select(Inbound.id).where(Inbound.message_id == bindparam("mid")).limit(1)
_SEEN_ID_OR_UID = select(Inbound.id).where(or_(
    Inbound.message_id == bindparam("mid"),
    (Inbound.folder == bindparam("folder")) & (Inbound.uidvalidity == bindparam("validity"))
    & (Inbound.uid == bindparam("uid")))).limit(1)
_MEMBER_BY_EMAIL = select(Member).where(Member.email == bindparam("email"))
_ACTIVE_GAMES = select(Game).where(
    Game.status == "active",
    (Game.side0_id == bindparam("member")) | (Game.side1_id == bindparam("member")),
).order_by(Game.created_at, Game.id)


def _already_seen(session: Session, arrival: Arrival, message_id: str) -> bool:
    """G2: the same (folder, UIDVALIDITY, UID) or the same Message-ID was handled before."""
    if not arrival.uid:
        return session.scalar(_SEEN_ID, {"mid": message_id}) is not None
    found = session.scalar(_SEEN_ID_OR_UID, {
        "mid": message_id, "folder": arrival.folder, "validity": arrival.uidvalidity,
        "uid": arrival.uid})
    return found is not None


def _process(session: Session, cfg: Config, arrival: Arrival, now: datetime,
             batch: Prefetch | None = None) -> str:
    mail = batch.mails.pop(arrival.uid, None) if batch is not None else None
    if mail is None:
        mail = parse_mail(arrival.raw, own_addresses=[cfg.bot.address])
    seen = (not batch.claim(arrival, mail.message_id) if batch is not None
            else _already_seen(session, arrival, mail.message_id))
    if seen:
        return "duplicate"  # G2: the same mail again (redelivery, new UIDVALIDITY)
    inbound = Inbound(
        message_id=mail.message_id, folder=arrival.folder, uidvalidity=arrival.uidvalidity,
        uid=arrival.uid, received_at=arrival.internaldate, from_addr=mail.from_addr,
        subject=mail.subject[:2000], game_id=None, outcome="pending", raw=arrival.raw,
        processed_at=now,
    )
    # Added last, with its outcome: one INSERT instead of an INSERT and two UPDATEs. The
    # moves it carries reach the session first and bring it along (Move.inbound).
    inbound.outcome = _route(session, cfg, mail, inbound, arrival, now,
                             batch.members if batch is not None else None)
    session.add(inbound)
    return inbound.outcome


def _route(
    session: Session, cfg: Config, mail: InboundMail, inbound: Inbound, arrival: Arrival,
    now: datetime, members: dict[str, Member] | None = None,
) -> str:
    for rcpt in mail.recipients:
        token = verp_id(rcpt, cfg.bot.address)
        if token is not None:
            return _bounce(session, cfg, token, arrival.internaldate)
    if mail.automated:
        return "automated"  # G7: never answer automated mail
    if mail.from_addr is None:
        return "no_sender"
    if mail.from_addr == cfg.bot.td.lower():
        if mail.dmarc_fail:
            return "td_unauthenticated"  # G12: our MTA says the TD address was forged
        from relaybot.td import td_mail

        # the TD's decision takes effect when the mail reached us (J13: the answer's arrival)
        return td_mail(session, cfg, mail.text, mail.message_id, mail.references,
                       arrival.internaldate)
    member = (members.get(mail.from_addr) if members is not None
              else session.scalar(_MEMBER_BY_EMAIL, {"email": mail.from_addr}))
    if member is None:
        return "stranger"  # G12: strangers get no reply at all
    from relaybot.td import find_commands

    if find_commands(mail.text):
        # TD commands from anyone else: no effect and one polite refusal (issue 4, G12)
        _error_reply(session, cfg, member, mail, now, "not_td", game=None)
        return "not_td"
    intent = read_intent(mail.text)
    if intent.leave or intent.leave_invalid:
        outcome = request_leave(session, cfg, member, intent.leave, mail, arrival.internaldate,
                                now)
        if not _has_more(mail.text, intent):
            return outcome
    mine = _active_games(session, member)  # first: the tagged game is then in the session
    games = [g for gid in tagged_ids(mail, cfg.bot.address) if (g := session.get(Game, gid))]
    labels = _labels(mine, games[0] if games else None)
    greeting, sections = split_mail(mail.text, labels, _move_test(mine))
    if sections:
        return _sections(session, cfg, member, mail, inbound, arrival, now, greeting, sections)
    if not games:
        _error_reply(session, cfg, member, mail, now, "no_game", game=None)
        return "no_game"
    game = games[0]
    inbound.game_id = game.id
    gf = load_game(session, game, now)
    colour = gf.colour_of(member.id)
    if colour is None:
        _error_reply(session, cfg, member, mail, now, "not_player", game=None)
        return "not_player"
    if intent.long_think:
        outcome = _long_think(session, cfg, gf, colour, mail, arrival, now)
        if not _has_more(mail.text, intent) and not intent.td_question:
            return outcome
    if intent.td_question:
        outcome = ask_td(session, cfg, gf, colour, intent.td_question, mail,
                         arrival.internaldate, now)
        refresh_due(session, load_game(session, game, now), now)
        if not _has_more(mail.text, intent):
            return outcome
    return _play(session, cfg, gf, colour, mail, inbound, arrival, now)


def _long_think(session: Session, cfg: Config, gf: GameFile, colour: int, mail: InboundMail,
                arrival: Arrival, now: datetime) -> str:
    """J10: a player's notice, before a reply that may take 10 days or more, passed on."""
    sender, opponent = gf.player(colour), gf.player(1 - colour)
    _event(session, gf.game, arrival.internaldate, "long_think_notice", colour, gf.game.ply_count)
    for reader, kind in ((opponent, "long_think"), (sender, "long_think_ack")):
        subject, body = render(reader.lang, "player", "long_think", sender=sender.name,
                               notice_to_sender=reader is sender,
                               **game_context(cfg, gf, reader))
        queue_mail(session, cfg, kind=kind, to=Recipient(reader.name, reader.email, reader.id),
                   subject=subject, body=body, now=now, game_id=gf.game.id,
                   reply_to=cfg.bot.game_address(gf.game.id),
                   from_address=cfg.bot.game_address(gf.game.id),
                   in_reply_to=mail.message_id if reader is sender else None,
                   auto_submitted="auto-replied" if reader is sender else "auto-generated")
    return "long_think"


def _has_more(text: str, intent: Intent) -> bool:
    """True when a mail holds more than its leave / question lines (moves, other keywords)."""
    rest = strip_lines(text, intent.keyword_lines)
    return any(rules_for(kind).extract_record(rest).tokens for kind in kinds()) or bool(
        intent.resign or intent.draw_offer or intent.draw_accept)


def _move_test(games: list[Game]) -> Callable[[str], bool]:
    """Whether a token could be a move in any of these games (for J17 section labels)."""
    rules = [rules_for(kind) for kind in sorted({g.kind for g in games})]
    return lambda token: any(r.looks_like_move(token) for r in rules)


def refresh_due(session: Session, gf: GameFile, now: datetime) -> None:
    """Store when the sweep must next look at this game (G10)."""
    from relaybot.deadlines import schedule

    books = gf.books if gf.books is not None else books_for(session, gf)
    gf.game.due_at = schedule(gf, books, now).next_at


def _active_games(session: Session, member: Member) -> list[Game]:
    """A member's active games, in the order they were created."""
    return list(session.scalars(_ACTIVE_GAMES, {"member": member.id}))


def _labels(mine: list[Game], named: Game | None) -> dict[str, str]:
    """J17 section labels: every active game's id, and A, B, ... for the games against the
    opponent of the game the mail names (in the order they were created)."""
    labels = {g.id: g.id for g in mine}
    if named is not None:
        pair = {named.side0_id, named.side1_id}
        for g in mine:
            if {g.side0_id, g.side1_id} == pair and g.label:
                labels[g.label] = g.id
    return labels


def _sections(
    session: Session, cfg: Config, member: Member, mail: InboundMail, inbound: Inbound,
    arrival: Arrival, now: datetime, greeting: str, sections: list[Section],
) -> str:
    """J17: each game's section checked and relayed on its own; one reply for all."""
    replies: list[tuple[str, str]] = []
    outcomes = []
    for section in sections:
        game = session.get(Game, section.game_id)
        label = game.label if game is not None and game.label else section.game_id
        if game is None:
            continue
        gf = load_game(session, game, now)
        colour = gf.colour_of(member.id)
        if colour is None:
            continue
        text = (greeting + "\n\n" + section.text) if greeting else section.text
        try:
            with session.begin_nested():
                outcome = _play(session, cfg, gf, colour, mail, inbound, arrival, now,
                                text=text, collect=replies)
        except Exception:  # one bad section must not block the others (J17)
            log.exception("section %s of %s failed", label, mail.message_id)
            outcome = "error"
        outcomes.append(f"{label}:{outcome}")
    subject, body = render(member.lang, "player", "sections", reader=member.name,
                           parts=replies, outcomes=outcomes)
    queue_mail(session, cfg, kind="sections", to=Recipient(member.name, member.email, member.id),
               subject=subject, body=body, now=now, in_reply_to=mail.message_id,
               references=[*mail.references, mail.message_id], auto_submitted="auto-replied")
    return "sections " + " ".join(outcomes)


def load_game(session: Session, game: Game, now: datetime) -> GameFile:
    """A game with players, moves and its day books as of ``now`` (J18)."""
    gf = GameFile.load(session, game)
    gf.penalties, gf.pauses = game_ledger(session, gf)
    gf.books = compute(gf, gf.penalties, gf.pauses)
    gf.now = now
    return gf


def _bounce(session: Session, cfg: Config, token: str, now: datetime) -> str:
    """A delivery report for one of our mails (G6): record it against the row and the
    member; repeated bounces go to the TD, and never forfeit a game by themselves."""
    from relaybot.outbox import note_bounce

    row = session.scalar(select(Outbox).where(Outbox.message_id == f"{token}@{cfg.bot.domain}"))
    if row is None:
        return "bounce_unknown"
    if row.status != "bounced":
        row.status = "bounced"
        row.last_error = "delivery report received"
        note_bounce(session, cfg, row, now)
    return "bounce"


def _play(
    session: Session, cfg: Config, gf: GameFile, colour: int, mail: InboundMail,
    inbound: Inbound, arrival: Arrival, now: datetime, text: str | None = None,
    collect: list[tuple[str, str]] | None = None,
) -> str:
    discard_deferred(session)  # left by a mail or section whose work was rolled back
    text = mail.text if text is None else text
    game = gf.game
    member = gf.player(colour)
    stored = StoredGame(
        plies=tuple(gf.plies),
        keys=tuple(frozenset(m.keys.split()) for m in gf.moves),
        position=game.position,
        active=game.status == "active",
        draw_offer_by=game.draw_offer_by,
    )
    binding = (
        [Conditional(plies=tuple(line)) for line in game.proposals or []]
        if game.proposals_by == 1 - colour else []
    )
    verdict = decide(gf.rules, stored, colour, text, letters=member.letters,
                     conditionals=binding, mode=game.conditionals)
    words = _own_words(gf.rules, text, verdict)
    if verdict.kind == "bad_move":
        # the penalty belongs to the day the faulty mail arrived (J5)
        _event(session, game, arrival.internaldate, "penalty", colour, len(gf.plies),
               days=verdict.penalty_days,
               detail={"rule": "J5", "reason": verdict.error.kind if verdict.error else "",
                       "token": verdict.error.token if verdict.error else ""})
    if verdict.kind == "contradiction":
        _event(session, game, arrival.internaldate, "penalty", colour, len(gf.plies),
               days=verdict.penalty_days,
               detail={"rule": "J16", "reason": "contradiction", "expected": verdict.expected,
                       "token": verdict.diff_token})
    if verdict.kind == "sync_error":
        _event(session, game, now, "sync_error", colour, verdict.diff_ply)
    if verdict.kind in ERROR_KINDS:
        _error_reply(session, cfg, member, mail, now, verdict.kind, game=gf, verdict=verdict,
                     collect=collect)
        return verdict.kind
    if verdict.kind == "aside":
        return "aside"
    if verdict.kind in ("status", "help"):
        _reply(session, cfg, gf, member, mail, now, verdict.kind, verdict=verdict,
               collect=collect)
        return verdict.kind

    autos = verdict.auto or [False] * len(verdict.new_plies)
    new_moves = [
        # J16: a bound answer the bot plays counts as sent with the reply: 0 days
        Move(game_id=game.id, ply=len(gf.plies) + offset, canon=ply, text=san,
             keys=" ".join(sorted(keys)), sent_at=arrival.internaldate, inbound=inbound,
             auto=int(auto))
        for offset, (ply, keys, san, auto) in enumerate(
            zip(verdict.new_plies, verdict.new_keys, verdict.new_texts, autos, strict=True))
    ]
    session.add_all(new_moves)
    if verdict.proposals_cleared or verdict.new_plies:
        game.proposals, game.proposals_by = [], None
    if verdict.new_conditionals:
        game.proposals = [list(c.plies) for c in verdict.new_conditionals]
        game.proposals_by = colour
    if verdict.new_plies:
        plies = [*gf.plies, *verdict.new_plies]
        game.plies = " ".join(plies)
        game.ply_count = len(plies)
        assert verdict.position is not None
        game.position = verdict.position
    if verdict.draw_declined:
        _event(session, game, now, "draw_declined", colour, game.ply_count)
    game.draw_offer_by = verdict.draw_offer_by
    if verdict.draw_offer_by == colour and stored.draw_offer_by != colour:
        _event(session, game, now, "draw_offer", colour, game.ply_count)
    game.updated_at = now
    gf.moves.extend(new_moves)  # the loaded game file, brought up to date without reloading
    gf.books = compute(gf, gf.penalties, gf.pauses)
    gf.now = arrival.internaldate
    if verdict.outcome is not None:
        # J15: the end date is the day the ending mail was sent (its arrival, bot's zone)
        end_day = arrival.internaldate.astimezone(ZoneInfo(cfg.bot.timezone)).date()
        end_game(session, cfg, gf, verdict.outcome, end_day, now,
                 words=words, words_from=colour, thread=mail)
        return verdict.kind
    on_leave = any(p.colour == colour and p.reason == "leave" for p in gf.pauses)
    if verdict.new_plies and on_leave:
        if end_leave_by_move(session, member, arrival.internaldate):
            session.flush()
            gf = load_game(session, game, arrival.internaldate)
    if verdict.new_plies:
        overrun = gf.books.sides[colour].overrun if gf.books is not None else None
        if overrun is not None and overrun.colour == colour:
            if _overrun(session, cfg, gf, overrun, arrival, now):
                return "time_lost"
    refresh_due(session, gf, arrival.internaldate)
    opponent = gf.player(1 - colour)
    ctx = {"words": words, "notes": verdict.notes, "draw_declined": verdict.draw_declined,
           "sender": member.name, "sender_to_move": verdict.sender_to_move,
           "rejected": [f"{r.line.text}: {r.detail}" for r in verdict.rejected]}
    kind = "move" if verdict.new_plies else "draw_offer"
    n_new = len(verdict.new_plies)
    _forward(session, cfg, gf, opponent, now, kind,
             {**ctx, "move": _new_moves(gf, opponent, n_new), "proposals": _proposals(gf, opponent),
              "auto_moves": _auto_moves(gf, opponent, verdict)})
    _reply(session, cfg, gf, member, mail, now, "ack", verdict=verdict,
           extra={**ctx, "move": _new_moves(gf, member, n_new) if n_new else "",
                  "proposals": _proposals(gf, member),
                  "auto_moves": _auto_moves(gf, member, verdict)}, collect=collect, defer=True)
    # the forward and the ack in one statement, inside this mail's (or section's) savepoint
    insert_deferred(session)
    return verdict.kind


def _new_moves(gf: GameFile, reader: Member, count: int) -> str:
    """The newest ``count`` plies as ``12... Nf6 13. Nf3`` in the reader's notation (J3)."""
    first = len(gf.moves) - count
    out = []
    for index in range(first, len(gf.moves)):
        text = _ply_text(gf, reader, index)
        out.append(gf.rules.move_label(index, text) if index % 2 == 0 or index == first
                   else text)
    return " ".join(out)


def _ply_text(gf: GameFile, reader: Member, index: int) -> str:
    notation, letters = gf.notation_for(reader)
    move = gf.moves[index]
    return gf.rules.stored_move_text(move.canon, move.text, notation, letters)


def _auto_moves(gf: GameFile, reader: Member, verdict: Verdict) -> list[str]:
    """The bound answers the bot played (J16), in the reader's notation."""
    first = len(gf.moves) - len(verdict.new_plies)
    return [gf.rules.move_label(first + offset, _ply_text(gf, reader, first + offset))
            for offset, auto in enumerate(verdict.auto) if auto]


def _proposals(gf: GameFile, reader: Member) -> list[str]:
    """The pending proposals as the reader writes moves (JCCA shows them to both)."""
    if not gf.game.proposals:
        return []
    notation, letters = gf.notation_for(reader)
    board = gf.rules.load(gf.game.position)
    return [format_conditional(gf.rules, board, Conditional(plies=tuple(line)), notation, letters,
                               reader.lang) for line in gf.game.proposals]


def _overrun(session: Session, cfg: Config, gf: GameFile, overrun: Overrun, arrival: Arrival,
             now: datetime) -> bool:
    """J9: a control exceeded. A bank clock loses by itself; otherwise the TD is told."""
    if overrun.kind in ("bank", "fischer") or gf.game.overrun == "forfeit":
        if overrun.kind not in ("bank", "fischer"):
            report_overrun(session, cfg, gf, overrun, now, automatic=True)  # with the ledger
        end_day = arrival.internaldate.astimezone(ZoneInfo(cfg.bot.timezone)).date()
        end_game(session, cfg, gf, Outcome.loss(Termination.TIME, overrun.colour), end_day, now)
        return True
    report_overrun(session, cfg, gf, overrun, now)
    return False


def report_overrun(session: Session, cfg: Config, gf: GameFile, overrun: Overrun,
                   now: datetime, *, automatic: bool = False) -> None:
    """The TD's overrun report with both sides' day ledgers and the command to confirm."""
    assert gf.books is not None
    colour_word = ("white", "black")[overrun.colour]
    subject, body = render(
        cfg.bot.language, "td", "overrun", game_id=gf.game.id, white=gf.white.name,
        black=gf.black.name, player=gf.player(overrun.colour).name, colour=colour_word,
        move=overrun.move, total=overrun.total, limit=overrun.limit, kind=overrun.kind,
        ledgers=ledgers(gf), time_control=gf.game.time_control, automatic=automatic,
    )
    queue_mail(session, cfg, kind="td_overrun", to=Recipient("TD", cfg.bot.td),
               subject=subject, body=body, now=now, game_id=gf.game.id,
               dedupe_key=f"overrun:{gf.game.id}:{overrun.colour}:{overrun.move}")


def _last_move(gf: GameFile, reader: Member) -> str:
    """The newest ply as ``12... Nf6`` in the reader's notation (J3)."""
    if not gf.moves:
        return ""
    return gf.rules.move_label(len(gf.moves) - 1, _ply_text(gf, reader, len(gf.moves) - 1))

def _own_words(rules: GameRules, text: str, verdict: Verdict) -> str:
    """The sender's own words: everything but the record and keyword lines (J18)."""
    record = verdict.record
    skip = set(verdict.intent.keyword_lines) | rules.proposal_lines(text)
    if record.first_line >= 0:
        skip.update(range(record.first_line, record.last_line + 1))
    lines = [line for i, line in enumerate(text.splitlines()) if i not in skip]
    return "\n".join(lines).strip()[:4000]


def _event(
    session: Session, game: Game, now: datetime, kind: str, colour: int | None,
    ply: int | None, *, days: int = 0, detail: dict[str, object] | None = None,
) -> None:
    session.add(GameEvent(game_id=game.id, at=now, kind=kind, colour=colour, ply=ply,
                          days=days, detail=detail or {}))


def _thread(game: Game, mail: InboundMail | None) -> tuple[str | None, list[str]]:
    if mail is not None:
        return mail.message_id, [*mail.references, mail.message_id]
    last = game.last_out_message_id
    return last, [last] if last else []


def _forward(
    session: Session, cfg: Config, gf: GameFile, to: Member, now: datetime, kind: str,
    extra: dict[str, object],
) -> None:
    """The mail to the opponent: the move, the record, the board (J18)."""
    ctx = {**game_context(cfg, gf, to), **extra}
    subject, body = render(to.lang, "player", kind, **ctx)
    in_reply_to, refs = _thread(gf.game, None)
    row = queue_mail(
        session, cfg, kind=kind, to=Recipient(to.name, to.email, to.id), subject=subject,
        body=body, now=now, game_id=gf.game.id, reply_to=cfg.bot.game_address(gf.game.id),
        in_reply_to=in_reply_to, references=refs,
        from_address=cfg.bot.game_address(gf.game.id), defer=True,
    )
    if row is not None:
        gf.game.last_out_message_id = row.message_id
    crash_point("after_outbox_insert")


def _reply(
    session: Session, cfg: Config, gf: GameFile, to: Member, mail: InboundMail, now: datetime,
    kind: str, *, verdict: Verdict | None = None, extra: dict[str, object] | None = None,
    collect: list[tuple[str, str]] | None = None, defer: bool = False,
) -> None:
    ctx = {**game_context(cfg, gf, to), **(extra or {})}
    if verdict is not None:
        ctx.setdefault("notes", verdict.notes)
    subject, body = render(to.lang, "player", kind, **ctx)
    if collect is not None:
        collect.append((subject, body))  # J17: one reply for all sections
        return
    in_reply_to, refs = _thread(gf.game, mail)
    queue_mail(
        session, cfg, kind=kind, to=Recipient(to.name, to.email, to.id), subject=subject,
        body=body, now=now, game_id=gf.game.id, reply_to=cfg.bot.game_address(gf.game.id),
        in_reply_to=in_reply_to, references=refs, auto_submitted="auto-replied",
        from_address=cfg.bot.game_address(gf.game.id), defer=defer,
    )


def _under_cap(session: Session, cfg: Config, address: str, now: datetime) -> bool:
    """At most ``error_reply_cap`` error replies per address per day (G7)."""
    day = now.astimezone(ZoneInfo(cfg.bot.timezone)).date()
    row = session.scalar(
        select(ReplyCount).where(ReplyCount.address == address, ReplyCount.day == day)
    )
    if row is None:
        session.add(ReplyCount(address=address, day=day, count=1))
        return True
    if row.count >= cfg.bot.error_reply_cap:
        return False
    row.count += 1
    return True


def _error_reply(
    session: Session, cfg: Config, member: Member, mail: InboundMail, now: datetime, kind: str,
    *, game: GameFile | None, verdict: Verdict | None = None,
    collect: list[tuple[str, str]] | None = None,
) -> None:
    """One polite reply in the member's language saying what was wrong (J5, J1)."""
    if collect is None and not _under_cap(session, cfg, member.email, now):
        return
    ctx: dict[str, object] = {"kind": kind, "reader": member.name, "notes": [],
                              "subject": mail.subject}
    if game is not None:
        ctx.update(game_context(cfg, game, member))
    if verdict is not None:
        ctx["notes"] = verdict.notes
        if verdict.error is not None:
            ctx["error_kind"] = verdict.error.kind
            ctx["error_token"] = verdict.error.token
            ctx["error_detail"] = verdict.error.detail
            ctx["penalty_days"] = verdict.penalty_days
        if verdict.diff_ply is not None and game is not None:
            notation, letters = game.notation_for(member)
            plies = game.plies
            if verdict.diff_ply < len(plies):
                before = game.rules.replay(plies[: verdict.diff_ply])
                ctx["expected"] = game.rules.move_label(verdict.diff_ply, game.rules.format_ply(
                    before, plies[verdict.diff_ply], notation, letters))
            else:
                ctx["expected"] = ""
            ctx["diff_number"] = game.rules.move_number(verdict.diff_ply)
            ctx["diff_token"] = verdict.diff_token or ""
        if verdict.kind == "contradiction":
            ctx["expected"] = verdict.expected or ""
            ctx["diff_token"] = verdict.diff_token or ""
            ctx["penalty_days"] = verdict.penalty_days
    if game is None:
        active = session.scalars(
            select(Game).where(Game.status == "active",
                               (Game.side0_id == member.id) | (Game.side1_id == member.id))
        ).all()
        ctx["games"] = [
            {"id": g.id, "address": cfg.bot.game_address(g.id)} for g in active
        ]
    subject, body = render(member.lang, "player", "error", **ctx)
    if collect is not None:
        collect.append((subject, body))
        return
    in_reply_to, refs = mail.message_id, [*mail.references, mail.message_id]
    gid = game.game.id if game else None
    queue_mail(
        session, cfg, kind=f"error_{kind}", to=Recipient(member.name, member.email, member.id),
        subject=subject, body=body, now=now, game_id=gid,
        reply_to=cfg.bot.game_address(gid) if gid else None, in_reply_to=in_reply_to,
        references=refs, auto_submitted="auto-replied",
        from_address=cfg.bot.game_address(gid) if gid else None,
    )


def end_game(
    session: Session, cfg: Config, gf: GameFile, outcome: Outcome, end_day: date,
    now: datetime, *, words: str = "", words_from: int | None = None,
    thread: InboundMail | None = None,
) -> None:
    """Game over: final mail to both players and the J15 report to the TD."""
    game = gf.game
    if game.status != "active":
        return
    result, termination = gf.rules.format_result(outcome), outcome.termination
    game.status = "finished"
    game.result = result
    game.termination = termination
    game.end_date = end_day
    game.draw_offer_by = None
    game.due_at = None
    _event(session, game, now, "result", None, game.ply_count,
           detail={"result": result, "termination": termination})
    session.flush()
    from relaybot.events import score_line
    from relaybot.rating_book import rate_game

    rate_game(session, game, now)  # R1: applied at the end, once
    pgn = game_record(cfg, gf)
    # J15: the winner (White on a draw) reports, with their score in the event
    reporter = outcome.winner if outcome.winner is not None else 0
    score = score_line(session, game, reporter)
    if score:
        pgn = f"{pgn}\n{gf.player(reporter).name}: {score}"
    in_reply_to, refs = _thread(game, thread)
    for colour in (0, 1):
        reader = gf.player(colour)
        ctx = {**game_context(cfg, gf, reader),
               "words": words if colour != words_from else "", "pgn": pgn,
               "end_date": end_day.isoformat()}
        subject, body = render(reader.lang, "player", "game_end", **ctx)
        queue_mail(
            session, cfg, kind="game_end", to=Recipient(reader.name, reader.email, reader.id),
            subject=subject, body=body, now=now, game_id=game.id,
            reply_to=cfg.bot.game_address(game.id), in_reply_to=in_reply_to, references=refs,
            from_address=cfg.bot.game_address(game.id), dedupe_key=f"end:{game.id}:{colour}",
        )
    subject, body = render(
        cfg.bot.language, "td", "result", game_id=game.id, white=gf.white.name,
        black=gf.black.name, result=result, termination=termination,
        event=game.event or "", end_date=end_day.isoformat(), pgn=pgn,
    )
    queue_mail(
        session, cfg, kind="td_result", to=Recipient("TD", cfg.bot.td), subject=subject,
        body=body, now=now, game_id=game.id, dedupe_key=f"td_result:{game.id}",
    )


def start_mails(session: Session, cfg: Config, game: Game, now: datetime) -> None:
    """Queue the start mail to both players of a new game."""
    gf = load_game(session, game, now)
    for colour in (0, 1):
        reader = gf.player(colour)
        ctx = {**game_context(cfg, gf, reader), "colour": colour}
        subject, body = render(reader.lang, "player", "start", **ctx)
        row = queue_mail(
            session, cfg, kind="start", to=Recipient(reader.name, reader.email, reader.id),
            subject=subject, body=body, now=now, game_id=game.id,
            reply_to=cfg.bot.game_address(game.id), from_address=cfg.bot.game_address(game.id),
            dedupe_key=f"start:{game.id}:{colour}",
        )
        if row is not None and colour == 0:
            game.last_out_message_id = row.message_id
    refresh_due(session, gf, now)


__all__ = ["Arrival", "end_game", "load_game", "process_mail", "start_mails"]
