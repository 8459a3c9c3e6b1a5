"""A member's mail read once into what it asks for, each part handed to its handler.

The keywords are read once (:func:`relaybot.core.intent.read_intent`); a leave notice
(J12), a long-think notice (J10) and a question to the TD (J13) are handled on their
own; the rest is played against its game, or against each game of a mail with
several sections (J17). Every mail goes out through the effects stage.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core.bounds import MAX_SECTIONS
from relaybot.core.intent import Intent, read_intent, strip_lines
from relaybot.core.sections import Section, split_mail
from relaybot.faults import crash_point
from relaybot.games import kinds, rules_for
from relaybot.mail.inbound import InboundMail, tagged_ids
from relaybot.mail.queue import insert_deferred
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
from relaybot.pipeline.play import Played, Received, long_think, play
from relaybot.pipeline.requests import ask_td, request_leave
from relaybot.pipeline.td import find_commands
from relaybot.store.models import Game, Member

log = logging.getLogger(__name__)

_ACTIVE_GAMES = select(Game).where(
    Game.status == "active",
    (Game.side0_id == bindparam("member")) | (Game.side1_id == bindparam("member")),
).order_by(Game.created_at, Game.id)


@dataclass(frozen=True)
class MemberMail:
    """A member's mail with everything the handlers share."""

    session: Session
    cfg: Config
    member: Member
    got: Received
    now: datetime
    intent: Intent
    games: list[Game]  # the member's active games, read once

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
           now: datetime) -> str:
    """Everything a member's mail asks for; returns the outcome word for the ledger."""
    mail = got.mail
    mine = list(session.scalars(_ACTIVE_GAMES, {"member": member.id}))  # tagged game cached
    mm = MemberMail(session, cfg, member, got, now, read_intent(mail.text, _game_words(mine)),
                    mine)
    intent = mm.intent
    if find_commands(mail.text) and not intent.any and not intent.declared \
            and not _has_more(mm):
        # only TD commands, from a player: no effect and one polite refusal (G12). A line
        # starting "answer" or "withdraw" in a player's prose never blocks their move.
        emit(session, cfg, replies.error(session, cfg, member, mail, "not_td", game=None), now)
        return "not_td"
    if intent.leave or intent.leave_invalid:
        outcome = request_leave(session, cfg, member, intent.leave, mail, got.arrived, now)
        # J19: a leave concerns all the member's games
        link_games(session, [g.id for g in mine], got.inbound.game_id, inbound=got.inbound)
        if not _has_more(mm):
            return outcome
    if intent.digest_off:
        mm.send([digest_off(member, mail)])
        if not _has_more(mm) and not (intent.help or intent.status or intent.long_think
                                      or intent.td_question):
            return "digest_off"
    games = [g for gid in tagged_ids(mail, cfg.bot.address) if (g := session.get(Game, gid))]
    labels = _labels(mine, games[0] if games else None)
    greeting, sections = split_mail(mail.text, labels, _move_test(mine))
    if len(sections) > MAX_SECTIONS:  # issue 12 item 10: refused whole, one reply
        emit(session, cfg, replies.error(session, cfg, member, mail, "too_many_sections",
                                         game=None), now)
        return "too_many_sections"
    if sections:
        return _sections(mm, greeting, sections)
    if not games:
        emit(session, cfg, replies.error(session, cfg, member, mail, "no_game", game=None), now)
        return "no_game"
    game = games[0]
    got.inbound.game_id = game.id
    gf = load_game(session, game, now)
    colour = gf.colour_of(member.id)
    if colour is None:
        emit(session, cfg, replies.error(session, cfg, member, mail, "not_player", game=None),
             now)
        return "not_player"
    if intent.long_think:
        mm.send(long_think(cfg, gf, colour, got))
        if not _has_more(mm) and not intent.td_question:
            return "long_think"
    if intent.td_question:
        outcome = ask_td(session, cfg, gf, colour, intent.td_question, mail, got.arrived, now)
        refresh_due(session, load_game(session, game, now), now)
        if not _has_more(mm):
            return outcome
    played = play(session, cfg, gf, colour, got, now, mail.text, intent)
    mm.send([*played.mails, *played.replies])
    return played.outcome


def read_only(session: Session, cfg: Config, member: Member, mail: InboundMail) -> bool:
    """True for a mail that only asks for ``status`` or ``help``: its answer goes to the
    member's registered address and changes nothing, so it needs no confirmation."""
    mine = list(session.scalars(_ACTIVE_GAMES, {"member": member.id}))
    intent = read_intent(mail.text, _game_words(mine))
    only_asks = (intent.status or intent.help) and not (
        intent.resign or intent.draw_offer or intent.draw_accept or intent.leave
        or intent.leave_invalid or intent.td_question or intent.long_think or intent.declared)
    return bool(only_asks) and not _moves_in(mail.text, intent, mine)


def digest_off(member: Member, mail: InboundMail) -> Mail:
    """D1: stop the member's weekly digest (``digest off`` / ``ダイジェスト停止``, or the
    digest's List-Unsubscribe mailto); one reply says so and how to undo it."""
    member.digest = "off"
    return Mail(
        kind="digest_off", audience="member", to=to_member(member), lang=member.lang,
        context={"reader": member.name}, in_reply_to=mail.message_id,
        references=(*mail.references, mail.message_id), auto_submitted="auto-replied")


def _has_more(mm: MemberMail) -> bool:
    """True when a mail holds more than its leave / question lines (moves, other keywords).

    Any game's record reader may find the moves: the game is not known yet.
    """
    intent = mm.intent
    if intent.resign or intent.draw_offer or intent.draw_accept or intent.declared:
        return True
    return _moves_in(mm.mail.text, intent, mm.games)


def _moves_in(text: str, intent: Intent, games: list[Game]) -> bool:
    """Whether the text besides its keyword lines holds moves of any game the member
    plays (any game's reader may find them: which game is not known yet)."""
    rest = strip_lines(text, intent.keyword_lines)
    played = sorted({g.kind for g in games}) or kinds()
    return any(rules_for(kind).extract_record(rest).tokens for kind in played)


def _game_words(games: list[Game]) -> dict[str, str]:
    """The own keywords of the games a member plays (a mail's game is not known yet)."""
    words: dict[str, str] = {}
    for kind in sorted({g.kind for g in games}):
        words.update(rules_for(kind).keywords)
    return words


def _move_test(games: list[Game]) -> Callable[[str], bool]:
    """Whether a token could be a move in any of these games (for J17 section labels)."""
    rules = [rules_for(kind) for kind in sorted({g.kind for g in games})]
    return lambda token: any(r.looks_like_move(token) for r in rules)


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


def _sections(mm: MemberMail, greeting: str, sections: list[Section]) -> str:
    """J17: each game's section checked and relayed on its own; one reply for all."""
    session, member = mm.session, mm.member
    parts: list[tuple[str, str]] = []
    outcomes: list[tuple[str, str]] = []  # (label, outcome word), said in the reader's words
    for section in sections:
        game = session.get(Game, section.game_id)
        if game is None:
            continue
        # J19: in every section's game's export
        link_games(session, [game.id], mm.got.inbound.game_id, inbound=mm.got.inbound)
        label = game.label or section.game_id
        gf = load_game(session, game, mm.now)
        colour = gf.colour_of(member.id)
        if colour is None:
            continue
        text = (greeting + "\n\n" + section.text) if greeting else section.text
        try:
            with session.begin_nested():
                played = play(session, mm.cfg, gf, colour, mm.got, mm.now, text)
                mm.send(played.mails)
                # the sender's replies become parts of one reply (never capped: one mail)
                parts.extend(render_mail(reply) for reply in played.replies)
        except Exception:  # one bad section must not block the others (J17)
            log.exception("section %s of %s failed", label, mm.mail.message_id)
            played = Played("error")
        outcomes.append((label, played.outcome))
    emit(session, mm.cfg, Mail(
        kind="sections", audience="player", to=to_member(member), lang=member.lang,
        context={"reader": member.name, "parts": parts, "outcomes": outcomes},
        in_reply_to=mm.mail.message_id, references=(*mm.mail.references, mm.mail.message_id),
        auto_submitted="auto-replied", about=tuple(s.game_id for s in sections)), mm.now)
    return "sections " + " ".join(f"{label}:{word}" for label, word in outcomes)
