"""The TD's ``answer`` to a player's question (J13): sent to the player, and the game's
clocks run again.
"""

from __future__ import annotations

from relaybot.core.said import Said
from relaybot.pipeline.effects import Mail, emit, to_member
from relaybot.pipeline.lifecycle import load_game, refresh_due
from relaybot.pipeline.td.base import Command, Context, Done, command, japanese_name
from relaybot.store.models import Game, Question


@command
class Answer(Command):
    """J13: the TD's answer to a player's question; the game's clocks run again."""

    name = "answer"
    aliases = ("回答",)
    usage = "answer <question number>, then the answer"
    usage_ja = "回答 <質問の番号> に続けて回答の本文"
    takes_rest = True

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if not args or not args[0].isdigit():
            return self.misused()
        question = ctx.session.get(Question, int(args[0]))
        if question is None or question.answered_at is not None:
            return self.refuse(Said(f"no open question {args[0]}",
                                    f"回答を待っている質問 {args[0]} はありません"))
        asked = ctx.session.get(Game, question.game_id)
        why = ctx.barred(asked) if asked is not None else None
        if why is not None:
            return self.refuse(why)
        answer = " ".join(args[1:]) + ("\n" + rest if rest else "")
        question.answered_at = ctx.now
        question.answer = answer.strip()[:8000]
        game = ctx.session.get(Game, question.game_id)
        assert game is not None
        gf = load_game(ctx.session, game, ctx.now)
        asker = gf.player(question.colour)
        emit(ctx.session, ctx.cfg, Mail(
            kind="answer", audience="player", to=to_member(asker), lang=asker.lang,
            game_id=game.id, dedupe_key=f"answer:{question.id}",
            context={"reader": asker.name, "game_id": game.id, "question": question.text,
                     "answer": question.answer}), ctx.now)
        refresh_due(ctx.session, gf, ctx.now)
        return self.done(Said(f"answer to question {question.id} sent to {asker.name}",
                              f"質問 {question.id} への回答を{japanese_name(asker.name)}に"
                              f"送りました"), (game.id,))
