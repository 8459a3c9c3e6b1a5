"""A season's end, run by the sweep (T3; seed 002 rules 8, 12, 13).

After the last day of a season's sixth month every unfinished game of it ends: the side
to move that has not been heard from for 10 days or more loses alone (rule 8: 「10日以上
連絡が無く、そのまま対局終了期限を迎えた場合…音信不通になったほうを切れ負け、相手を勝ちとする」),
otherwise both lose (rule 12: 「それまでに終わらない対局は、双方の負けとする」). Then the
season is over: the S class's winner is 名人 (rule 13) and every player gets the final
standings (rule 19, :mod:`relaybot.season_reports`). Results stand when a game ends;
nobody has to report them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.config import Config
from relaybot.core.clocks import local_day
from relaybot.core.game import Outcome, Termination
from relaybot.core.seasons import silent_loses
from relaybot.pipeline.lifecycle import end_game, load_game
from relaybot.season_reports import final_reports
from relaybot.seasons import award_meijin, season_games
from relaybot.store.models import Season


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
            on_move = gf.books.on_move
            relayed = gf.books.last_sent_at
            heard = (local_day(relayed, cfg.bot.timezone) if relayed is not None
                     else game.start_date)
            outcome = (Outcome.loss(Termination.TIME, on_move)
                       if silent_loses(heard, season.end_date)
                       else Outcome(Termination.ADJUDICATION, both_lose=True))
            end_game(session, cfg, gf, outcome, season.end_date, now)
            ended += 1
        season.ended_at = now
        session.flush()
        award_meijin(session, season)
        final_reports(session, cfg, season, now)  # rule 19: every player's final mail
    return ended
