"""A season's end, run by the sweep (T3; seed 002 rules 8, 12, 13).

After the last day of a season's sixth month every unfinished game of it ends: the side
to move that has not been heard from for 10 days or more loses alone (rule 8: 「10日以上
連絡が無く、そのまま対局終了期限を迎えた場合…音信不通になったほうを切れ負け、相手を勝ちとする」),
otherwise both lose (rule 12: 「それまでに終わらない対局は、双方の負けとする」), unless the side not
to move sent near the end a mating line that answers every defence (rule 16: 「その返信が
期限内になくても、詰みの先読みが正しければ、それを送信した時点で勝ちとする」). Then the
season is over: the S class's winner is 名人 (rule 13) and every player gets the final
standings (rule 19, :mod:`relaybot.app.season_reports`). Results stand when a game ends;
nobody has to report them.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.app.season_reports import final_reports
from relaybot.club.gamefile import GameFile
from relaybot.club.season_book import award_meijin, season_games
from relaybot.config import Config
from relaybot.core.clocks import local_day
from relaybot.core.conditionals import Conditional, forces_win
from relaybot.core.game import Outcome, Termination
from relaybot.core.seasons import near_deadline, silent_loses
from relaybot.pipeline.lifecycle import end_game, load_game
from relaybot.store.models import Season


def mated(gf: GameFile, sent: date, end: date) -> bool:
    """Rule 16: the side not to move sent, with its last move (on ``sent``, near the
    season's ``end``), a mating line that answers every defence."""
    game = gf.game
    assert gf.books is not None
    proposer = 1 - gf.books.on_move
    if not game.proposals or game.proposals_by != proposer or not near_deadline(sent, end):
        return False
    lines = [Conditional(plies=tuple(line)) for line in game.proposals]
    return forces_win(gf.rules, gf.rules.load(game.position), lines, proposer)


def final_outcome(gf: GameFile, heard: date, end: date) -> tuple[Outcome, date]:
    """How an unfinished game ends with its season (``end``), and on which day, the side
    to move last heard from on ``heard``: a mating line sent near the end wins when it was
    sent (rule 16), else the silent side loses (rule 8), else both lose (rule 12)."""
    assert gf.books is not None
    on_move = gf.books.on_move
    if mated(gf, heard, end):
        return Outcome.win(Termination.ADJUDICATION, 1 - on_move), heard
    if silent_loses(heard, end):
        return Outcome.loss(Termination.TIME, on_move), end
    return Outcome(Termination.ADJUDICATION, both_lose=True), end


def end_seasons(session: Session, cfg: Config, now: datetime) -> int:
    """End every season whose last day is over (in the league's zone, ``[bot]
    timezone``); returns how many games it ended."""
    today = local_day(now, cfg.bot.timezone)
    ended = 0
    for season in session.scalars(select(Season).where(Season.ended_at.is_(None),
                                                       Season.end_date < today)).all():
        for game in season_games(session, season):
            if game.status != "active":
                continue
            gf = load_game(session, game, now)
            assert gf.books is not None
            relayed = gf.books.last_sent_at
            heard = (local_day(relayed, cfg.bot.timezone) if relayed is not None
                     else game.start_date)
            outcome, day = final_outcome(gf, heard, season.end_date)
            end_game(session, cfg, gf, outcome, day, now)
            ended += 1
        season.ended_at = now
        session.flush()
        award_meijin(session, season)
        final_reports(session, cfg, season, now)  # rule 19: every player's final mail
    return ended
