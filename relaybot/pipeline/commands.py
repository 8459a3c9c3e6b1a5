"""A member's mail read once into what it asks for, each part handed to its handler.

The mail is read once (:mod:`relaybot.pipeline.reading`): the same reading the trust gate
judged. A leave notice (J12), a long-think notice (J10) and a question to the TD (J13)
are handled on their own; the rest is played against its game, or against each game of
a mail with several sections (J17), each part with the text and keywords the reading
gave it. Every mail goes out through the effects stage.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core.bounds import MAX_SECTIONS
from relaybot.core.reading import Reading
from relaybot.mail.inbound import InboundMail
from relaybot.mail.queue import insert_deferred
from relaybot.mail.wording import one_kind
from relaybot.pipeline import replies
from relaybot.pipeline.effects import (
    Mail,
    emit,
    emit_all,
    link_games,
    render_mail,
    to_member,
)
from relaybot.pipeline.lifecycle import load_game, refresh_due
from relaybot.pipeline.play import ERROR_KINDS, Played, Received, long_think, play
from relaybot.pipeline.reading import read
from relaybot.pipeline.requests import active_games, ask_td, request_leave
from relaybot.pipeline.tutorial import end_by_tutor
from relaybot.store.faults import crash_point
from relaybot.store.models import Game, Member

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class MemberMail:
    """A member's mail with everything the handlers share."""

    session: Session
    cfg: Config
    member: Member
    got: Received
    now: datetime
    reading: Reading  # the one reading of the mail (issue 22)

    @property
    def mail(self) -> InboundMail:
        """The parsed mail."""
        return self.got.mail

    def send(self, mails: list[Mail]) -> None:
        """Queue these effects now (the mail's forward and ack as one statement)."""
        emit_all(self.session, self.cfg, mails, self.now)
        if mails:
            crash_point("after_outbox_insert")  # RELIABILITY T1: rows in session, unwritten
        insert_deferred(self.session)


def handle(session: Session, cfg: Config, member: Member, got: Received,
           now: datetime, reading: Reading | None = None) -> str:
    """Everything a member's mail asks for, as its one ``reading`` says (made here when
    the caller has none); returns the outcome word for the ledger."""
    mail = got.mail
    if reading is None:
        reading = read(session, cfg, mail, member)
    mm = MemberMail(session, cfg, member, got, now, reading)
    intent = reading.intent
    if reading.commands and not reading.found_keywords and not reading.has_moves:
        # only TD commands, from a player: no effect and one polite refusal (G12). A line
        # starting "answer" or "withdraw" in a player's prose never blocks their move.
        emit(session, cfg, replies.error(session, cfg, member, mail, "not_td", game=None), now)
        return "not_td"
    done: set[str] = set()  # the keywords handled so far
    outcome = ""
    if intent.leave or intent.leave_invalid:
        outcome = request_leave(session, cfg, member, intent.leave, mail, got.arrived, now)
        # J19: a leave concerns all the member's games
        link_games(session, [g.id for g in active_games(session, member)],
                   got.inbound.game_id, inbound=got.inbound)
        done.add("leave")
    if intent.digest_off:
        mm.send([digest_off(member, mail)])
        outcome = outcome or "digest_off"
        done.add("digest_off")
    elif intent.digest_on:  # both in one mail: off stands (no digest sent unasked)
        mm.send([digest_on(member, mail)])
        outcome = outcome or "digest_on"
    done.add("digest_on")
    if outcome and not _more(reading, done):
        return outcome
    if len(reading.sections) > MAX_SECTIONS:  # issue 12 item 10: refused whole, one reply
        emit(session, cfg, replies.error(session, cfg, member, mail, "too_many_sections",
                                         game=None), now)
        return "too_many_sections"
    if reading.sections:
        return _sections(mm)
    named = [g for gid in reading.named if (g := session.get(Game, gid))]
    if not named and outcome:
        return outcome  # a leave or digest off to the bare address, with a status line
    if not named:
        emit(session, cfg, replies.error(session, cfg, member, mail, "no_game", game=None), now)
        return "no_game"
    game = named[0]
    got.inbound.game_id = game.id
    gf = load_game(session, game, now)
    colour = gf.colour_of(member.id)
    if colour is None:
        emit(session, cfg, replies.error(session, cfg, member, mail, "not_player", game=None),
             now)
        return "not_player"
    part = reading.parts[0]
    if intent.long_think:
        mm.send(long_think(cfg, gf, colour, got))
        done.add("long_think")
        outcome = "long_think"
    if intent.td_question:
        outcome = ask_td(session, cfg, gf, colour, intent.td_question, mail, got.arrived, now)
        refresh_due(session, load_game(session, game, now), now)
        done.add("td_question")
    if intent.tutorial_end is not None:
        return _tutorial_end(mm, game, colour, done, outcome)
    if outcome and not _more(reading, done):
        return outcome
    played = play(session, cfg, gf, colour, got, now, part.text, part.intent)
    mm.send([*played.mails, *played.replies])
    return played.outcome


def _tutorial_end(mm: MemberMail, game: Game, colour: int, done: set[str],
                  outcome: str) -> str:
    """Seed 000: the tutor's ``tutorial end``; a move in the same mail is played first
    (the game then ends after it), and a mail whose move is refused ends nothing."""
    done.add("tutorial_end")
    if _more(mm.reading, done):
        part = mm.reading.parts[0]
        gf = load_game(mm.session, game, mm.now)
        played = play(mm.session, mm.cfg, gf, colour, mm.got, mm.now, part.text, part.intent)
        mm.send([*played.mails, *played.replies])
        if played.outcome in ERROR_KINDS:
            return played.outcome
    gf = load_game(mm.session, game, mm.now)
    word = mm.reading.intent.tutorial_end or ""
    ended, mails = end_by_tutor(mm.session, mm.cfg, mm.member, gf, word, mm.mail,
                                mm.got.arrived, mm.now)
    mm.send(mails)
    return ended if not outcome else f"{outcome} {ended}"


def _more(reading: Reading, done: set[str]) -> bool:
    """Whether the mail holds more than the keywords already handled (``done``): moves,
    or another keyword (derived from the reading, never from a list of keywords)."""
    return reading.has_moves or any(  # commands and answers to a request do nothing here
        f.name not in done for f in reading.found if f.does not in ("command", "answer"))


def digest_off(member: Member, mail: InboundMail) -> Mail:
    """D1: stop the member's weekly digest (``digest off`` / ``ダイジェスト停止``, or the
    digest's List-Unsubscribe mailto); one reply says so and how to undo it."""
    member.digest = "off"
    return Mail(
        kind="digest_off", audience="member", to=to_member(member), lang=member.lang,
        context={"reader": member.name}, in_reply_to=mail.message_id,
        references=(*mail.references, mail.message_id), auto_submitted="auto-replied")


def digest_on(member: Member, mail: InboundMail) -> Mail:
    """D1: the member's weekly digest again (``digest on`` / ``ダイジェスト再開``); one reply
    says so and how to stop it."""
    member.digest = "weekly"
    return Mail(
        kind="digest_on", audience="member", to=to_member(member), lang=member.lang,
        context={"reader": member.name}, in_reply_to=mail.message_id,
        references=(*mail.references, mail.message_id), auto_submitted="auto-replied")


def _sections(mm: MemberMail) -> str:
    """J17: each game's section checked and relayed on its own; one reply for all."""
    session, member = mm.session, mm.member
    parts: list[tuple[str, str]] = []
    # (label, outcome word, game kind): said in the reader's words and the game's (a go
    # move is a 着手)
    outcomes: list[tuple[str, str, str]] = []
    for part in mm.reading.parts:
        game = session.get(Game, part.game_id) if part.game_id is not None else None
        if game is None:
            continue
        # J19: in every section's game's export
        link_games(session, [game.id], mm.got.inbound.game_id, inbound=mm.got.inbound)
        label = game.label or game.id
        gf = load_game(session, game, mm.now)
        colour = gf.colour_of(member.id)
        if colour is None:
            continue
        try:
            with session.begin_nested():
                played = play(session, mm.cfg, gf, colour, mm.got, mm.now, part.text,
                              part.intent)
                mm.send(played.mails)
                # the sender's replies become parts of one reply (never capped: one mail),
                # rendered as sections: the reply greets its reader once, at its top
                parts.extend(render_mail(replace(reply, context={**reply.context,
                                                                 "section": True}))
                             for reply in played.replies)
        except Exception:  # one bad section must not block the others (J17)
            log.exception("section %s of %s failed", label, mm.mail.message_id)
            played = Played("error")
        outcomes.append((label, played.outcome, game.kind))
    emit(session, mm.cfg, Mail(
        kind="sections", audience="player", to=to_member(member), lang=member.lang,
        context={"reader": member.name, "parts": parts, "outcomes": outcomes,
                 "game_kind": one_kind(kind for _, _, kind in outcomes)},
        in_reply_to=mm.mail.message_id, references=(*mm.mail.references, mm.mail.message_id),
        auto_submitted="auto-replied",
        about=tuple(p.game_id for p in mm.reading.parts if p.game_id)), mm.now)
    return "sections " + " ".join(f"{label}:{word}" for label, word, _ in outcomes)
