"""Scheduled work found in the database (G10): reminders, escalations, bank losses, J14.

The sweep reads only games whose ``due_at`` has come, through its index, so its
cost grows with what is due and not with the number of games. Every mail it
writes is an outbox row under a unique key ((game, ply, kind)), so a sweep
repeated after a crash or a restart can never send one twice, and downtime only
delays mail.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.app.season_end import end_seasons
from relaybot.app.season_reports import progress_reports
from relaybot.app.upkeep import forget_raw, td_summary
from relaybot.club.daybooks import ledgers, td_side
from relaybot.club.deadlines import Schedule, schedule, silence_key
from relaybot.club.gamefile import GameFile, preload
from relaybot.config import Config
from relaybot.core.clocks import adjudication_day, local_day
from relaybot.core.game import Outcome, Termination, moves_in, waits_for_result
from relaybot.pipeline import holds
from relaybot.pipeline.effects import Mail, emit, to_td
from relaybot.pipeline.lifecycle import end_game, load_game, player_mail
from relaybot.store.db import Store
from relaybot.store.models import Game, GameEvent, Move, Outbox

log = logging.getLogger(__name__)

BATCH = 200


def sweep(store: Store, cfg: Config, now: datetime) -> int:
    """Queue every scheduled mail due at ``now``; returns how many rows were queued."""
    queued = 0
    with store.session() as session:
        holds.lapse(session, now)  # unconfirmed for seven days: never applied
        # issue 12 items 8, 11: the TD's summary of the capped mail; old raw junk forgotten
        queued += td_summary(session, cfg, now)
        forget_raw(session, cfg, now, str(store.engine.url))
        # T3 (seed 002 rules 8, 12): a season past its last day ends its games
        # rules 19, 20: each month's progress to the classes' secretaries and the TD
        queued += progress_reports(session, cfg, now)
        queued += 3 * end_seasons(session, cfg, now)
    while True:
        with store.session() as session:
            games = session.scalars(
                select(Game)
                .where(Game.due_at <= now, Game.status == "active")
                .order_by(Game.due_at)
                .limit(BATCH)
            ).all()
            loaded = preload(session, list(games))
            for game in games:
                queued += _due(session, cfg, game, now, loaded.moves[game.id])
        if len(games) < BATCH:
            return queued


def _due(session: Session, cfg: Config, game: Game, now: datetime,
         moves: list[Move] | None = None) -> int:
    gf = load_game(session, game, now, moves)
    assert gf.books is not None
    stated = _stated_at(session, game) if waits_for_result(gf.rules, game.position) else None
    key = silence_key(game.ply_count, stated)
    plan = schedule(gf, gf.books, now, _reminded_at(session, game, key), stated)
    queued = 0
    for kind in plan.due:
        if kind == "reminder":
            queued += _reminder(session, cfg, gf, plan, now)
        elif kind == "escalation":
            queued += _escalation(session, cfg, gf, plan, now)
        elif kind == "duration":
            queued += _duration(session, cfg, gf, now)
        elif kind == "bank_lost":
            # J8/J9: a bank clock loses at 0 by itself, without a claim
            day = local_day(now, cfg.bot.timezone)
            end_game(session, cfg, gf, Outcome.loss(Termination.TIME, plan.silent), day, now)
            queued += 3
            return queued
    game.due_at = plan.next_at
    return queued


def _reminder(session: Session, cfg: Config, gf: GameFile, plan: Schedule, now: datetime) -> int:
    """J11: day 10 of silence: the last mail again, to the silent player."""
    last = gf.game.last_out_message_id
    row = emit(session, cfg, player_mail(
        cfg, gf, plan.silent, "reminder", {"silent_days": plan.silent_days},
        in_reply_to=last, references=(last,) if last else (),
        dedupe_key=f"reminder:{gf.game.id}:{plan.key}"), now)
    return 1 if row is not None else 0


def _escalation(session: Session, cfg: Config, gf: GameFile, plan: Schedule,
                now: datetime) -> int:
    """J11: day 20 of silence: the TD gets both ledgers and the commands to reply with."""
    player = gf.player(plan.silent)
    relayed = gf.books.last_sent_at if gf.books is not None else None
    row = emit(session, cfg, Mail(
        kind="td_silence", template="silence", audience="td", to=to_td(cfg, gf.td),
        lang=cfg.bot.language, game_id=gf.game.id, dedupe_key=f"escalation:{gf.game.id}:{plan.key}",
        context={"game_id": gf.game.id, "white": gf.white.name, "black": gf.black.name,
                 "game_kind": gf.game.kind,  # go's 着手, shogi's and chess's 指し手
                 "player": player.name, "colour": td_side(gf, plan.silent, cfg.bot.language),
                 "email": player.email, "ledgers": ledgers(gf, cfg.bot.language),
                 "relayed": (local_day(relayed, player.tz).isoformat()
                             if relayed else gf.game.start_date.isoformat()),
                 # no ply yet: the silent player owes the first move since the start
                 "first_move": gf.game.ply_count == 0, "silent_days": plan.silent_days,
                 # go after both passed: the result not stated, since the last ply or
                 # the opponent's statement
                 "stating": plan.stating,
                 "reminder_sent": _reminder_day(session, cfg, gf, plan.key),
                 "results": _results(gf, cfg.bot.language)}), now)
    return 1 if row is not None else 0


def _reminded_at(session: Session, game: Game, key: str) -> datetime | None:
    """When the reminder of the game's silence ``key`` was queued; None before it."""
    return session.scalar(select(Outbox.created_at).where(
        Outbox.dedupe_key == f"reminder:{game.id}:{key}"))


def _stated_at(session: Session, game: Game) -> datetime | None:
    """When a result was last stated after the game's last ply (go after both passed):
    a statement ends one player's silence and starts the other's."""
    return session.scalar(select(func.max(GameEvent.at)).where(
        GameEvent.game_id == game.id, GameEvent.kind == "declared",
        GameEvent.ply == game.ply_count))


def _reminder_day(session: Session, cfg: Config, gf: GameFile, key: str) -> str:
    """The day (the bot's zone) the reminder of this silence went out ("" without one):
    after downtime not day 10, and the escalation 10 days after it."""
    sent = _reminded_at(session, gf.game, key)
    return local_day(sent, cfg.bot.timezone).isoformat() if sent is not None else ""


def _results(gf: GameFile, lang: str) -> str:
    """The results the TD may write for this game, in the TD's language (the game's own:
    shogi 先手勝ち..., go B+3.5...; chess 1-0...)."""
    rule_set = gf.rules.rule_set
    return rule_set.result_words_ja if lang == "ja" else rule_set.result_words


def _duration(session: Session, cfg: Config, gf: GameFile, now: datetime) -> int:
    """J14: unfinished 24 months after the start: to the TD for adjudication."""
    row = emit(session, cfg, Mail(
        kind="td_duration", template="duration", audience="td", to=to_td(cfg, gf.td),
        lang=cfg.bot.language, game_id=gf.game.id, dedupe_key=f"duration:{gf.game.id}",
        context={"game_id": gf.game.id, "white": gf.white.name, "black": gf.black.name,
                 "start": gf.game.start_date.isoformat(), "game_kind": gf.rules.kind,
                 "results": _results(gf, cfg.bot.language),
                 "record": moves_in(gf.rules, gf.rules.format_record(gf.plies, "san") or "-",
                                    cfg.bot.language)}), now)
    # both players are told too: no more moves, and they may add comments (seed 000
    # rule 19: 両者は、意見を付記することができる)
    since = adjudication_day(gf.game.start_date).isoformat()
    told = [emit(session, cfg, player_mail(
        cfg, gf, colour, "with_td", {"with_td_since": since},
        dedupe_key=f"with_td:{gf.game.id}:{colour}"), now) for colour in (0, 1)]
    return sum(r is not None for r in (row, *told))
