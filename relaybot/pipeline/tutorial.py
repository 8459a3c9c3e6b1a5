"""A tutorial game ended by its tutor's own mail (issue 30, seed 000 チュートリアル・
ゲーム): ``tutorial end`` / ``指導終了``, optionally with the result to report.

ゲーム進行に関する疑問点がなくなったとチューターが判断したところでゲームは中断され、最後に
ゲームの結果報告を経験してチュートリアル・ゲームは終了します: the tutor (the member the
tutorial names, authenticated as for a move) decides when; the game ends as the TD's
``tutorial-end`` ends it, and the result report (J15) goes to both players and the TD,
nothing rated. The pupil, or anyone in a game that is no tutorial, gets one polite refusal.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy.orm import Session

from relaybot.club.gamefile import GameFile
from relaybot.config import Config
from relaybot.core.clocks import local_day
from relaybot.core.game import Outcome, Termination
from relaybot.mail.inbound import InboundMail
from relaybot.pipeline import replies
from relaybot.pipeline.effects import Mail
from relaybot.pipeline.lifecycle import game_over
from relaybot.pipeline.td.results import read_result
from relaybot.store.models import Member, Tutorial


def end_by_tutor(session: Session, cfg: Config, member: Member, gf: GameFile,
                 word: str, mail: InboundMail, arrived: datetime, now: datetime
                 ) -> tuple[str, list[Mail]]:
    """End the tutorial ``gf`` for its tutor ``member`` (``word``: the result written
    after the keyword, "" for none: the game is stopped, not decided, as the TD's
    command stops it). Returns the outcome word and the mails: the game's end, or the
    sender's refusal."""
    tutorial = session.get(Tutorial, gf.game.id)
    why = ("not_tutorial" if tutorial is None
           else "not_tutor" if tutorial.tutor_id != member.id
           else "over" if gf.game.status != "active" else "")
    outcome: Outcome | None = Outcome(Termination.ADJUDICATION)
    if not why and word:
        outcome = read_result(gf.rules, word, Termination.ADJUDICATION)
        why = "result" if outcome is None else ""
    if why or outcome is None:
        refusal = replies.error(session, cfg, member, mail, "tutorial_end", game=gf)
        refusal = replace(refusal, context={
            **refusal.context, "why": why, "word": word,
            "result_words": gf.rules.rule_set.result_words,
            "result_words_ja": gf.rules.rule_set.result_words_ja})
        return "tutorial_end_refused", [refusal]
    # J15: the game ends on the day the tutor's mail arrived, in the bot's zone
    day = local_day(arrived, cfg.bot.timezone)
    return "tutorial_end", game_over(session, cfg, gf, outcome, day, now, thread=mail)
