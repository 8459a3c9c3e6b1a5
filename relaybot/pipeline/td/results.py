"""The TD's commands on a game's result: ``forfeit`` (J9, J11), ``adjudicate`` (J14),
``tutorial-end`` (seed 000's tutorial games) end an unfinished game; ``result`` corrects a
finished one (J15, R1, R2, T5, D1). How a TD's RESULT word reads in each game is here too.
"""

from __future__ import annotations

from relaybot.core.game import GameRules, Outcome, Termination
from relaybot.core.said import Said
from relaybot.games import rules_for
from relaybot.mail.render import termination_name
from relaybot.mail.wording import ending_text, outcome_text, result_text
from relaybot.pipeline.lifecycle import correct_result, end_game, load_game
from relaybot.pipeline.td.base import Command, Context, Done, command
from relaybot.store.models import Game, Tutorial


def _result_in(game: Game, lang: str) -> str:
    """A finished game's result as a reader of ``lang`` says it (shogi 先手の勝ち / Gote
    wins, chess 1-0, go W+5.5)."""
    return result_text(game.kind, game.result or "", game.termination or "", lang)


# a game's state as a Japanese mail names it (Game.status)
STATUS_JA = {"active": "対局中", "suspended": "中断中", "finished": "終局"}


def bad_result(rules: GameRules, word: str) -> Said:
    """The TD's RESULT word is none of the game's results."""
    return Said(f"result must be {result_words(rules)}, not {word}",
                f"結果は {rules.rule_set.result_words_ja} で書いてください"
                f"（「{word}」は結果として読めません）")


class _EndGame(Command):
    """A TD decision that ends one active game: ``<command> <game> <word>``."""

    game_first = True

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) != 2:
            return self.misused()
        game = self.game_of(ctx, args[0])
        if isinstance(game, Done):
            return game
        if game.status not in ("active", "suspended"):
            ended_en, ended_ja = _result_in(game, "en"), _result_in(game, "ja")
            return self.refuse(Said(f"game {game.id} has already ended ({ended_en})",
                                    f"対局 {game.id} はすでに終局しています（{ended_ja}）"))
        rules = rules_for(game.kind)
        outcome = self.outcome(rules, args[1])
        if isinstance(outcome, Done):
            return outcome
        # J20: a game suspended by a withdrawal (対局の中断) is decided later, this way
        game.status = "active"
        end_game(ctx.session, ctx.cfg, load_game(ctx.session, game, ctx.now), outcome,
                 ctx.today, ctx.now)
        # the game's own words (shogi: Gote wins, not the stored 0-1)
        result = result_text(game.kind, rules.format_result(outcome), outcome.termination,
                             "en")
        how = (ending_text(game.kind, outcome.termination, "en") or outcome.termination,
               ending_text(game.kind, outcome.termination, "ja")
               or termination_name(outcome.termination, "ja"))
        return self.done(Said(f"game {game.id}: {result} ({how[0]})",
                              f"対局 {game.id} を{outcome_text(rules, outcome, 'ja')}で"
                              f"終局としました（{how[1]}）"),
                         (game.id,))

    def outcome(self, rules: GameRules, word: str) -> Outcome | Done:
        """How the TD's word ends the game, or the refusal saying why it cannot."""
        raise NotImplementedError


@command
class Forfeit(_EndGame):
    """J9, J11: a side loses by forfeit (an overrun confirmed, a silent player)."""

    name = "forfeit"
    aliases = ("没収",)
    usage = "forfeit <game> <side>"
    usage_ja = "没収 <対局ID> <負けとする側: 白・黒、将棋は 先手・後手>"

    def outcome(self, rules: GameRules, word: str) -> Outcome | Done:
        side = rules.side_of(word)
        if side is None:
            names = " or ".join(rules.side_names("en")).lower()
            names_ja = " か ".join(rules.side_names("ja"))
            return self.refuse(Said(f"colour must be {names}, not {word}",
                                    f"負けとする側は {names_ja} で書いてください"
                                    f"（「{word}」は読めません）"))
        return Outcome.loss(Termination.FORFEIT, side)


def result_words(rules: GameRules) -> str:
    """The results a TD may write in this game, for a mistake (``1-0, 0-1 or 1/2-1/2`` in
    chess; each game's own words in its rule set, so any game plugs in)."""
    return rules.rule_set.result_words


def read_result(rules: GameRules, word: str, termination: str) -> Outcome | None:
    """A TD's RESULT word as the game reads it (INTERFACE "TD commands": chess ``1-0``,
    shogi ``sente`` / ``先手勝ち`` / ``both-lose``, go ``B+3.5``); None when it is not a
    result, names no result at all (``*``), or has both lose where the game's rules do
    not allow it (the shogi league's J14 does)."""
    outcome = rules.parse_result(word, termination)
    if outcome is None or (outcome.void and not rules.rule_set.no_result) \
            or (outcome.both_lose and not rules.rule_set.both_lose):
        return None
    return outcome


@command
class Adjudicate(_EndGame):
    """J14: the TD decides an unfinished game."""

    name = "adjudicate"
    aliases = ("裁定",)
    usage = ("adjudicate <game> <result: 1-0|0-1|1/2-1/2, shogi sente|gote|draw|both-lose, "
             "go B+3.5|W+R|jigo|void>")
    usage_ja = ("裁定 <対局ID> <結果: チェス 1-0・0-1・1/2-1/2、将棋 先手勝ち・後手勝ち・"
                "引き分け・両者負け、囲碁 B+3.5・W+R・持碁・勝負なし>")

    def outcome(self, rules: GameRules, word: str) -> Outcome | Done:
        outcome = read_result(rules, word, Termination.ADJUDICATION)
        if outcome is None:
            return self.refuse(bad_result(rules, word))
        return outcome


@command
class EndTutorial(_EndGame):
    """Seed 000 チュートリアル・ゲーム: the tutor judges the student has no question left
    and the game ends; the result report goes out, nothing is rated (issue 30)."""

    name = "tutorial-end"
    aliases = ("チュートリアル終了",)
    usage = "tutorial-end <game>"
    usage_ja = "チュートリアル終了 <対局ID>"

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) != 1:
            return self.misused()
        if ctx.session.get(Tutorial, args[0].strip().lower()) is None:
            return self.refuse(Said(f"game {args[0]} is not a tutorial game",
                                    f"対局 {args[0]} はチュートリアル・ゲームではありません"))
        return super().run(ctx, [args[0], "end"], rest)

    def outcome(self, rules: GameRules, word: str) -> Outcome | Done:
        return Outcome(Termination.ADJUDICATION)


@command
class CorrectResult(Command):
    """A finished game's result corrected by the TD (INTERFACE "TD commands": ``result
    ID RESULT``): both players re-rated from that game on (R1, R2), their grades (R3),
    the event's standings (T5) and the digest (D1) follow, and both are told (J15)."""

    name = "result"
    aliases = ("結果訂正",)
    game_first = True
    usage = "result <game> <result>"
    usage_ja = "結果訂正 <対局ID> <正しい結果>"

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) != 2:
            return self.misused()
        game = self.game_of(ctx, args[0])
        if isinstance(game, Done):
            return game
        if game.status != "finished":
            return self.refuse(Said(
                f"game {game.id} has not finished ({game.status}); "
                f"an unfinished game is decided with adjudicate",
                f"対局 {game.id} はまだ終局していません（{STATUS_JA.get(game.status, '未終局')}）。"
                f"終局していない対局は 裁定 で決めてください"))
        rules = rules_for(game.kind)
        outcome = read_result(rules, args[1], game.termination or Termination.ADJUDICATION)
        if outcome is None:
            return self.refuse(bad_result(rules, args[1]))
        if rules.format_result(outcome) == game.result:
            return self.refuse(Said(f"game {game.id} already has the result "
                                    f"{_result_in(game, 'en')}",
                                    f"対局 {game.id} の結果はすでに{_result_in(game, 'ja')}です"))
        old, new = correct_result(ctx.session, ctx.cfg, load_game(ctx.session, game, ctx.now),
                                  outcome, ctx.now)

        def said(score: str, lang: str) -> str:
            # the stored score in the game's words (shogi 1-0 is Sente wins, 先手の勝ち)
            return result_text(game.kind, score, "", lang)

        return self.done(Said(f"game {game.id}: result corrected from {said(old, 'en')} to "
                              f"{said(new, 'en')}; both players re-rated",
                              f"対局 {game.id} の結果を {said(old, 'ja')} から "
                              f"{said(new, 'ja')} に訂正し、"
                              f"両対局者のレーティングを計算し直しました"),
                         (game.id,))
