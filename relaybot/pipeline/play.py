"""Decide and persist one game's part of a player's mail.

The game's referee decides (:func:`relaybot.core.referee.decide`, pure); this stage
stores what it decided (moves, proposals, offers, penalties, the result) and returns
the mails it causes as effects: mails to others, and the replies to the sender kept
apart so that a mail with several games (J17) answers once for all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from sqlalchemy.orm import Session

from relaybot.club.daybooks import compute
from relaybot.club.deadlines import with_td_for_duration
from relaybot.club.gamefile import GameFile
from relaybot.club.views import shown_board
from relaybot.config import Config
from relaybot.core.clocks import Overrun, Penalty, adjudication_day, local_day
from relaybot.core.conditionals import Conditional
from relaybot.core.game import Outcome, Termination, moves_in, result_in
from relaybot.core.intent import Intent
from relaybot.core.referee import StoredGame, Verdict, decide
from relaybot.core.seasons import near_deadline
from relaybot.core.text import display_name
from relaybot.mail.inbound import InboundMail
from relaybot.mail.queue import discard_deferred
from relaybot.mail.wording import reason_text
from relaybot.pipeline import replies
from relaybot.pipeline.effects import Mail, to_td
from relaybot.pipeline.lifecycle import (
    game_over,
    load_game,
    overrun_report,
    player_mail,
    record_event,
    refresh_due,
)
from relaybot.pipeline.requests import end_leave_by_move
from relaybot.store.models import Inbound, Move

ERROR_KINDS = {
    "sync_error", "bad_move", "contradiction", "not_your_turn", "too_many_moves", "no_move",
    "game_over", "no_game", "not_player", "too_many_conditionals", "too_long",
    "no_draw_offers",
}


@dataclass
class Played:
    """What one game's part of a mail did: an outcome word for the ledger and logs, the
    mails to others, and the replies to the sender."""

    outcome: str
    mails: list[Mail] = field(default_factory=list)
    replies: list[Mail] = field(default_factory=list)


@dataclass(frozen=True)
class Received:
    """The mail being played: parsed, its ledger row, and when it arrived (INTERNALDATE)."""

    mail: InboundMail
    inbound: Inbound
    arrived: datetime


def play(session: Session, cfg: Config, gf: GameFile, colour: int, got: Received,
         now: datetime, text: str, intent: Intent | None = None) -> Played:
    """Decide ``text`` from the player of ``colour`` against the game and store the result."""
    discard_deferred(session)  # left by a mail or section whose work was rolled back
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
    # seed 002 rule 16: a mating line binds when sent near the game's deadline; the
    # opponent's was sent with the last move
    # the game's last day: its season's end in the shogi league (seed 002 rule 12), else
    # the day it goes to the TD for adjudication (J14)
    deadline = gf.event.season_end or adjudication_day(game.start_date)
    line_day = (_day(cfg, gf.books.last_sent_at)
                if gf.books is not None and gf.books.last_sent_at is not None
                else _day(cfg, _aware(gf.moves[-1].sent_at)) if gf.moves else game.start_date)
    verdict = decide(gf.rules, stored, colour, text, letters=member.letters,
                     conditionals=binding, mode=game.conditionals, intent=intent,
                     line_near=near_deadline(line_day, deadline),
                     near=near_deadline(_day(cfg, got.arrived), deadline))
    since = with_td_for_duration(gf, got.arrived)
    if verdict.new_plies and since is not None:
        # J14 (seed 000 rule 19: 最長24か月をもって終了): the game ended on that day and is
        # the TD's to adjudicate; a move sent since is not played (a resignation still is)
        return Played("with_td", replies=[replies.error(
            session, cfg, member, got.mail, "with_td", game=gf, verdict=verdict,
            extra={"with_td_since": since.isoformat()})])
    words = replies.own_words(gf, text, verdict)
    _penalties(session, gf, colour, verdict, got, now)
    if verdict.kind in ERROR_KINDS:
        return Played(verdict.kind, replies=[replies.error(
            session, cfg, member, got.mail, verdict.kind, game=gf, verdict=verdict)])
    if verdict.kind == "aside":
        return Played("aside")
    if verdict.kind in ("status", "help"):
        return Played(verdict.kind, replies=[replies.reply(
            cfg, gf, colour, got.mail, verdict.kind, verdict=verdict)])
    _store(session, gf, colour, verdict, got, now)
    if verdict.outcome is not None:
        return Played(verdict.kind, mails=game_over(
            session, cfg, gf, verdict.outcome, _day(cfg, got.arrived), now, words=words,
            words_from=colour, thread=got.mail,
            # J16: a bound answer the bot played ended the game: each mail says so
            bound={reader: ", ".join(replies.auto_moves(gf, gf.player(reader), verdict))
                   for reader in (0, 1)} if any(verdict.auto) else None,
            bound_by=1 - colour))
    if verdict.declared is not None:  # recorded, the game goes on (go: a stated result)
        refresh_due(session, gf, got.arrived)
        return Played(verdict.kind, mails=_declared(cfg, gf, colour, verdict, words),
                      replies=[replies.reply(cfg, gf, colour, got.mail, "declared",
                                             verdict=verdict, defer=True,
                                             extra=_declared_context(gf, colour, colour,
                                                                     verdict, words))])
    on_leave = any(p.colour == colour and p.reason == "leave" for p in gf.pauses)
    if verdict.new_plies and on_leave and end_leave_by_move(session, member, got.arrived):
        session.flush()
        gf = load_game(session, game, got.arrived)
    mails: list[Mail] = []
    if verdict.new_plies:
        overrun = gf.books.sides[colour].overrun if gf.books is not None else None
        # seed 004 section 7: go's days are a guide to progress, never an overrun to
        # claim: no report (the silence reminders and the TD's escalation stay)
        if overrun is not None and overrun.colour == colour and \
                gf.rules.rule_set.time_forfeit:
            lost = _overrun(session, cfg, gf, overrun, got, now)
            if lost is not None:
                return Played("time_lost", mails=lost)
            mails.append(overrun_report(cfg, gf, overrun))
    refresh_due(session, gf, got.arrived)
    return Played(verdict.kind, mails=[*mails, _relay(cfg, gf, colour, verdict, words)],
                  replies=[_ack(cfg, gf, colour, verdict, words, got.mail)])


def _penalties(session: Session, gf: GameFile, colour: int, verdict: Verdict, got: Received,
               now: datetime) -> None:
    """The ledger lines of a faulty mail: J5 and J16 penalties on the day it arrived."""
    game = gf.game
    if verdict.kind in ("bad_move", "contradiction"):
        rule, detail = (
            ("J5", {"reason": verdict.error.kind if verdict.error else "",
                    "token": verdict.error.token if verdict.error else ""})
            if verdict.kind == "bad_move" else
            ("J16", {"reason": "contradiction", "expected": verdict.expected,
                     "token": verdict.diff_token}))
        record_event(session, game, got.arrived, "penalty", colour, len(gf.plies),
                     days=verdict.penalty_days, detail={"rule": rule, **detail})
        if verdict.penalty_days and gf.books is not None:
            # the reply that announces the days added shows them in its figures too: the
            # line game_ledger reads back from this event, added to the loaded books
            gf.penalties.append(Penalty(colour, verdict.penalty_days, rule, got.arrived))
            gf.books = compute(gf, gf.penalties, gf.pauses)
    if verdict.kind == "sync_error":
        record_event(session, game, now, "sync_error", colour, verdict.diff_ply)


def _store(session: Session, gf: GameFile, colour: int, verdict: Verdict, got: Received,
           now: datetime) -> None:
    """Persist the verdict: new moves, proposals, offers; the game file brought up to date."""
    game = gf.game
    draw_offer_before = game.draw_offer_by
    autos = verdict.auto or [False] * len(verdict.new_plies)
    new_moves = [
        # J16: a bound answer the bot plays counts as sent with the reply: 0 days
        Move(game_id=game.id, ply=len(gf.plies) + offset, canon=ply, text=san,
             keys=" ".join(sorted(keys)), sent_at=got.arrived, inbound=got.inbound,
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
    if verdict.declared is not None and verdict.position is not None:
        game.position = verdict.position
        record_event(session, game, now, "declared", colour, game.ply_count,
                     detail={"note": verdict.declared.note,
                             "stated": list(verdict.declared.stated)})
    if verdict.draw_declined:
        record_event(session, game, now, "draw_declined", colour, game.ply_count)
    game.draw_offer_by = verdict.draw_offer_by
    if verdict.draw_offer_by == colour and draw_offer_before != colour:
        record_event(session, game, now, "draw_offer", colour, game.ply_count)
    game.updated_at = now
    gf.moves.extend(new_moves)  # the loaded game file, brought up to date without reloading
    gf.books = compute(gf, gf.penalties, gf.pauses)
    gf.now = got.arrived


def _context(gf: GameFile, colour: int, reader: int, verdict: Verdict,
             words: str) -> dict[str, object]:
    """What the relay and the ack say of a played mail, in the reader's notation."""
    to = gf.player(reader)
    return {"words": words, "notes": verdict.notes, "draw_declined": verdict.draw_declined,
            "sender": gf.player(colour).name, "sender_to_move": verdict.sender_to_move,
            "rejected": [{"line": r.line.text, "why": reason_text(r.why, to.lang)}
                         for r in verdict.rejected],
            "nonstandard": verdict.nonstandard,
            "unread_proposal": verdict.unread_proposal or "",  # the sender's note (J16)
            # the sender's own moves: a bound answer the bot played after them is said
            # on its own line, never as the sender's move (J16)
            "move": replies.new_moves(gf, to, len(verdict.new_plies),
                                      replies.written_count(verdict)),
            "proposals": replies.proposals(gf, to),
            "auto_moves": replies.auto_moves(gf, to, verdict)}


def _relay(cfg: Config, gf: GameFile, colour: int, verdict: Verdict, words: str) -> Mail:
    """The move (or the draw offer) relayed to the opponent (J18)."""
    kind = "move" if verdict.new_plies else "draw_offer"
    return replies.forward(cfg, gf, 1 - colour, kind,
                           _context(gf, colour, 1 - colour, verdict, words))


def _ack(cfg: Config, gf: GameFile, colour: int, verdict: Verdict, words: str,
         mail: InboundMail) -> Mail:
    """The sender's acknowledgement: what was relayed, and any notes (J2, J16, J18)."""
    return replies.reply(cfg, gf, colour, mail, "ack", verdict=verdict, defer=True,
                         extra=_context(gf, colour, colour, verdict, words))


def _declared_context(gf: GameFile, colour: int, reader: int, verdict: Verdict,
                      words: str) -> dict[str, object]:
    """What a recorded declaration says (go: each side's stated result)."""
    assert verdict.declared is not None
    lang = gf.player(reader).lang
    sides = gf.rules.side_names(lang)
    # each stated result in the reader's words (黒5目半勝ち; B+5.5 in English): the line
    # the reader is offered to agree with reads back as the same result
    stated = [result_in(gf.rules, said, lang) for said in verdict.declared.stated]
    return {"words": words, "notes": verdict.notes, "sender": gf.player(colour).name,
            "to_sender": reader == colour, "note": verdict.declared.note,
            "to_td": verdict.declared.to_td,
            "stated": [(sides[side], display_name(gf.player(side).name, lang), stated[side])
                       for side in (0, 1)],
            "own_statement": stated[reader], "their_statement": stated[1 - reader]}


def _declared(cfg: Config, gf: GameFile, colour: int, verdict: Verdict,
              words: str) -> list[Mail]:
    """A declaration relayed to the opponent; to the TD as well when it needs a decision
    (go: the two stated results differ), with the position and the command to send."""
    assert verdict.declared is not None
    mails = [replies.forward(cfg, gf, 1 - colour, "declared",
                             _declared_context(gf, colour, 1 - colour, verdict, words))]
    if verdict.declared.to_td:
        lang = cfg.bot.language
        sides = gf.rules.side_names(lang)
        mails.append(Mail(
            kind="td_declared", template="declared", audience="td", to=to_td(cfg, gf.td),
            lang=lang, game_id=gf.game.id,
            context={"game_id": gf.game.id, "white": gf.white.name, "black": gf.black.name,
                     "side0": sides[0], "side1": sides[1], "note": verdict.declared.note,
                     "stated": [(sides[s], display_name(gf.player(s).name, lang),
                                 verdict.declared.stated[s])
                                for s in (0, 1)],
                     # both have stated: the board without "X to state the result"
                     "board": shown_board(gf, gf.game.position, lang, final=True),
                     "record": moves_in(gf.rules, gf.rules.format_record(
                         gf.plies, gf.rules.display_notation), lang)},
            dedupe_key=f"td_declared:{gf.game.id}:{gf.game.ply_count}:"
                       f"{'/'.join(verdict.declared.stated)}"))
    return mails


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _day(cfg: Config, moment: datetime) -> date:
    """J15: a game ends on the day its ending mail arrived, in the bot's zone."""
    return local_day(moment, cfg.bot.timezone)


def _overrun(session: Session, cfg: Config, gf: GameFile, overrun: Overrun, got: Received,
             now: datetime) -> list[Mail] | None:
    """J9: a control exceeded. A bank clock loses by itself (the game's mails returned);
    otherwise None, and the TD is told by the caller."""
    if overrun.kind not in ("bank", "fischer") and gf.game.overrun != "forfeit":
        return None
    if not gf.rules.rule_set.time_forfeit:  # seed 004 section 7: go is never lost on time
        return None
    mails = []
    if overrun.kind not in ("bank", "fischer"):
        mails.append(overrun_report(cfg, gf, overrun, automatic=True))  # with the ledger
    mails += game_over(session, cfg, gf, Outcome.loss(Termination.TIME, overrun.colour),
                       _day(cfg, got.arrived), now)
    return mails


def long_think(cfg: Config, gf: GameFile, colour: int, got: Received) -> list[Mail]:
    """J10: a player's notice, before a reply that may take 10 days or more, passed on."""
    sender = gf.player(colour)
    out = []
    for side, kind in ((1 - colour, "long_think"), (colour, "long_think_ack")):
        to_sender = side == colour
        out.append(player_mail(
            cfg, gf, side, kind, {"sender": sender.name, "notice_to_sender": to_sender},
            template="long_think", in_reply_to=got.mail.message_id if to_sender else None,
            auto_submitted="auto-replied" if to_sender else "auto-generated"))
    return out
