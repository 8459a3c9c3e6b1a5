"""The TD's commands, by mail from the TD address or by the CLI (J9, J12-J14, J20, D2).

Each command is a small class registered under its English and Japanese names, the
way Mailman keeps its email commands: ``parse`` a line into a command, ``run`` it in
the caller's transaction. A command's result is a value (:class:`Done`) so the mail
path and the CLI report it the same way. Adding a command is one class here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import ClassVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.rating_book import RatingInput, go_rank_of, rerate_game, set_rating
from relaybot.club.season_book import mark_player, season_classes, season_games
from relaybot.config import Config
from relaybot.core.clocks import local_day
from relaybot.core.game import GameRules, Outcome, Termination
from relaybot.core.leave import (
    EXTRA_WITH_APPROVAL,
    NOT_ALLOWED,
    ORDER,
    OVER_ALLOWANCE,
    OVERLAP,
    STARTED,
    YEARLY_ALLOWANCE,
    check_leave,
)
from relaybot.core.ratings import rank_name
from relaybot.core.said import Said
from relaybot.core.text import display_name
from relaybot.games import rules_for
from relaybot.mail.render import termination_name
from relaybot.mail.wording import count, ending_text, outcome_text, result_text
from relaybot.pipeline.effects import Mail, emit, link_games, td_of, to_member, to_td
from relaybot.pipeline.lifecycle import correct_result, end_game, load_game, refresh_due
from relaybot.pipeline.requests import announce_leave
from relaybot.store.models import (
    Event,
    Game,
    Inbound,
    Leave,
    Member,
    Question,
    Season,
    Tutorial,
)


def _result_ja(game: Game) -> str:
    """A finished game's result as a Japanese reader says it (shogi 先手の勝ち)."""
    return result_text(game.kind, game.result or "", game.termination or "", "ja")


@dataclass(frozen=True)
class Done:
    """What one command did (``ok``) or why it did nothing, in both languages: the TD's
    confirmation is written in the bot's language (issue 15), the CLI prints English.
    ``command`` is the command's English name, ``command_ja`` its Japanese one."""

    command: str
    ok: bool
    said: Said
    games: tuple[str, ...] = ()  # the games it acted on (J19: the mail is in their exports)
    command_ja: str = ""

    @property
    def message(self) -> str:
        """What happened, in English (the CLI's line)."""
        return self.said.en

    def text(self, lang: str) -> str:
        """What happened, in ``lang``."""
        return self.said.in_lang(lang)

    def name(self, lang: str) -> str:
        """The command's name in ``lang`` (``forfeit``, 没収)."""
        return (self.command_ja or self.command) if lang == "ja" else self.command


# J12: why a leave cannot be approved, as a Japanese mail says it (English: the code)
LEAVE_REASONS_JA = {
    NOT_ALLOWED: "この大会では休戦が認められていません",
    ORDER: "終了日が開始日より前です",
    STARTED: "休戦がすでに始まっています",
    OVERLAP: "ほかの休戦と期間が重なっています",
    OVER_ALLOWANCE: "年間の休戦日数の枠を超えています",
}

# a game's state as a Japanese mail names it (Game.status)
STATUS_JA = {"active": "対局中", "suspended": "中断中", "finished": "終局"}


def leave_reason(code: str) -> Said:
    """Why a leave cannot be taken (``core.leave`` reason codes), in both languages."""
    return Said(code.replace("_", " "), LEAVE_REASONS_JA.get(code, code))


def japanese_name(name: str) -> str:
    """A member named in a Japanese sentence: ``山田太郎さん``, ``Ann Smithさん``."""
    return display_name(name, "ja") + "さん"


@dataclass(frozen=True)
class Context:
    """What every command runs with: the transaction, the config, the moment, and the TD
    who gave the command (``td``: an address; None from the CLI, the operator's own)."""

    session: Session
    cfg: Config
    now: datetime
    td: str | None = None

    @property
    def today(self) -> date:
        """The day in the bot's zone (the day a TD decision takes effect)."""
        return local_day(self.now, self.cfg.bot.timezone)

    def may_act(self, game: Game) -> bool:
        """The game is this TD's: its event's ``--td``, else ``[bot] td`` (INTERFACE.md
        "TD commands"). The operator at the CLI may act on every game."""
        return self.td is None or td_of(self.session, self.cfg, game) == self.td

    def not_yours(self, game: Game) -> Said:
        """Why a command on another TD's game did nothing."""
        td = td_of(self.session, self.cfg, game)
        return Said(f"game {game.id} is not yours: its TD is {td}",
                    f"対局 {game.id} はあなたの担当ではありません（担当の TD は {td} です）")


class Command:
    """A TD command: ``name`` (canonical, English), ``aliases`` (Japanese, the first one
    its Japanese name), ``usage`` and ``usage_ja`` (how to write it, for a mistake)."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str]
    usage_ja: ClassVar[str]
    takes_rest: ClassVar[bool] = False  # the rest of the mail belongs to the command
    # what it changes: one game ("game") or a member ("member"); every command acts, so a
    # mail holding one is never read-only (core/reading.py reads it as "command")
    changes: ClassVar[str] = "game"

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        """Carry the command out in ``ctx.session``; never raises for a TD's mistake."""
        raise NotImplementedError

    def refuse(self, said: Said) -> Done:
        """A command that did nothing, and why."""
        return self._outcome(False, said)

    def done(self, said: Said, games: tuple[str, ...] = ()) -> Done:
        """A command that did what it says (to ``games``)."""
        return self._outcome(True, said, games)

    def _outcome(self, ok: bool, said: Said, games: tuple[str, ...] = ()) -> Done:
        return Done(self.name, ok, said, games,
                    command_ja=self.aliases[0] if self.aliases else "")

    def game_of(self, ctx: Context, word: str) -> Game | Done:
        """The game ``word`` names, when it exists and is this TD's to act on; else the
        refusal that says why."""
        game = ctx.session.get(Game, word.strip().lower())
        if game is None:
            return self.refuse(no_game(word))
        if not ctx.may_act(game):
            return self.refuse(ctx.not_yours(game))
        return game

    def misused(self) -> Done:
        """The command written wrong: how to write it."""
        return self.refuse(Said(f"usage: {self.usage}",
                                f"書き方が違います。書式: {self.usage_ja}"))


def no_game(word: str) -> Said:
    """No game has the id the TD wrote."""
    return Said(f"no game {word}", f"対局 {word} はありません")


def bad_result(rules: GameRules, word: str) -> Said:
    """The TD's RESULT word is none of the game's results."""
    return Said(f"result must be {result_words(rules)}, not {word}",
                f"結果は {rules.rule_set.result_words_ja} で書いてください"
                f"（「{word}」は結果として読めません）")


COMMANDS: dict[str, Command] = {}


def command(cls: type[Command]) -> type[Command]:
    """Register a command class under its name and aliases."""
    instance = cls()
    for word in (cls.name, *cls.aliases):
        COMMANDS[word] = instance
    return cls


class _EndGame(Command):
    """A TD decision that ends one active game: ``<command> <game> <word>``."""

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) != 2:
            return self.misused()
        game = self.game_of(ctx, args[0])
        if isinstance(game, Done):
            return game
        if game.status not in ("active", "suspended"):
            return self.refuse(Said(f"game {game.id} has already ended ({game.result})",
                                    f"対局 {game.id} はすでに終局しています（{_result_ja(game)}）"))
        rules = rules_for(game.kind)
        outcome = self.outcome(rules, args[1])
        if isinstance(outcome, Done):
            return outcome
        # J20: a game suspended by a withdrawal (対局の中断) is decided later, this way
        game.status = "active"
        end_game(ctx.session, ctx.cfg, load_game(ctx.session, game, ctx.now), outcome,
                 ctx.today, ctx.now)
        result = rules.format_result(outcome)
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
            return self.refuse(Said(f"game {game.id} already has the result {game.result}",
                                    f"対局 {game.id} の結果はすでに{_result_ja(game)}です"))
        old, new = correct_result(ctx.session, ctx.cfg, load_game(ctx.session, game, ctx.now),
                                  outcome, ctx.now)
        return self.done(Said(f"game {game.id}: result corrected from {old} to {new}; "
                              f"both players re-rated",
                              f"対局 {game.id} の結果を {old} から {new} に訂正し、"
                              f"両対局者のレーティングを計算し直しました"), (game.id,))


class _LeaveDecision(Command):
    """A TD's decision on a leave request waiting for approval (J12)."""

    changes = "member"

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) < 1 or not args[0].isdigit():
            return self.misused()
        leave = ctx.session.get(Leave, int(args[0]))
        if leave is None or leave.status != "pending":
            return self.refuse(Said(f"no leave request {args[0]} waiting for approval",
                                    f"承認待ちの休戦の申請 {args[0]} はありません"))
        if ctx.td is not None and ctx.td != ctx.cfg.bot.td.strip().lower():
            # a leave covers all the member's games (J12): the club's TD decides it
            club_td = ctx.cfg.bot.td
            return self.refuse(Said(f"leave requests are decided by the club's TD, {club_td}",
                                    f"休戦の申請はクラブの TD（{club_td}）が決めます"))
        member = ctx.session.get(Member, leave.member_id)
        assert member is not None
        return self.decide(ctx, leave, member)

    def decide(self, ctx: Context, leave: Leave, member: Member) -> Done:
        """Apply the decision (or refuse it) and say what was done."""
        raise NotImplementedError


@command
class ApproveLeave(_LeaveDecision):
    """J12: leave beyond the yearly 30 days, approved by the TD."""

    name = "approve leave"
    aliases = ("休戦承認",)
    usage = "approve leave <leave number>"
    usage_ja = "休戦承認 <休戦の番号>"

    def decide(self, ctx: Context, leave: Leave, member: Member) -> Done:
        # J12 (seed 000 rule 16): 30 days a year, and 「さらに通算30日以内」 with approval
        taken = [(lv.first, lv.last) for lv in ctx.session.scalars(select(Leave).where(
            Leave.member_id == member.id, Leave.status == "active", Leave.id != leave.id))]
        check = check_leave(taken, (leave.first, leave.last), leave.first,
                            approved_extra_days=EXTRA_WITH_APPROVAL)
        who = japanese_name(member.name)
        if not check.ok and check.reason_code != OVER_ALLOWANCE:
            reason = leave_reason(check.reason_code)
            return self.refuse(Said(
                f"leave {leave.id} of {member.name} cannot be approved: {reason.en}",
                f"{who}の休戦 {leave.id} は承認できません: {reason.ja}"))
        if not check.ok:
            limit = YEARLY_ALLOWANCE + EXTRA_WITH_APPROVAL
            left = max(0, check.left_this_year)
            return self.refuse(Said(
                f"leave {leave.id} of {member.name} ({leave.first} - {leave.last}) would pass "
                f"{limit} days in {check.year} (30 a year and at most 30 more with approval); "
                f"{member.name} has {left} left",
                f"{who}の休戦 {leave.id}（{leave.first} 〜 {leave.last}）を承認すると、"
                f"{check.year}年の休戦が{limit}日を超えます（年30日、承認があればさらに30日まで）。"
                f"{who}の残りは{left}日です"))
        leave.status = "active"
        leave.extra_days = (leave.last - leave.first).days + 1
        announce_leave(ctx.session, ctx.cfg, member, leave, ctx.now)
        return self.done(Said(
            f"leave {leave.id} of {member.name} approved ({leave.first} - {leave.last})",
            f"{who}の休戦 {leave.id}（{leave.first} 〜 {leave.last}）を承認しました"))


@command
class RefuseLeave(_LeaveDecision):
    """J12: leave beyond the yearly 30 days, refused by the TD."""

    name = "refuse leave"
    aliases = ("休戦却下",)
    usage = "refuse leave <leave number>"
    usage_ja = "休戦却下 <休戦の番号>"

    def decide(self, ctx: Context, leave: Leave, member: Member) -> Done:
        leave.status = "refused"
        return self.done(Said(f"leave {leave.id} of {member.name} refused",
                              f"{japanese_name(member.name)}の休戦 {leave.id} を却下しました"))


def scoped_games(ctx: Context, member: Member, scope: str) -> list[Game] | Said:
    """The member's active games the TD directs, within the event or season named by
    ``scope`` ("" for all of them; INTERFACE "Seasons": ``withdraw ... [EVENT]``), or why
    the scope names nothing."""
    query = select(Game).where(Game.status == "active",
                               (Game.side0_id == member.id) | (Game.side1_id == member.id))
    if scope:
        season = ctx.session.scalar(select(Season).where(Season.name == scope))
        names = ([e.name for _, e in season_classes(ctx.session, season)] if season
                 else [scope])
        if season is None and ctx.session.scalar(
                select(Event.id).where(Event.name == scope)) is None:
            return Said(f"no event or season named {scope}",
                        f"{scope} という大会・期はありません")
        query = query.where(Game.event.in_(names))
    return [g for g in ctx.session.scalars(query) if ctx.may_act(g)]


def seasons_in(ctx: Context, member: Member, scope: str) -> list[Season]:
    """The running seasons the member plays in, within ``scope`` (a season's or a class's
    name; "" for all) and directed by this TD."""
    found = []
    for season in ctx.session.scalars(select(Season).where(Season.ended_at.is_(None))):
        classes = [e.name for _, e in season_classes(ctx.session, season)]
        if scope and scope != season.name and scope not in classes:
            continue
        if ctx.td is not None and (season.td or ctx.cfg.bot.td) != ctx.td \
                and ctx.td != ctx.cfg.bot.td:
            continue
        if mark_player(ctx.session, season, member, "playing", ctx.now, dry=True):
            found.append(season)
    return found


@command
class Withdraw(Command):
    """J20: the TD decides all of a withdrawing player's games: lost, void or suspended;
    only those of one event or season when it is named (T3, seed 002 rule 8: 「対戦開始後の
    棄権は、不戦敗とし、成績が悪ければ降級となる」)."""

    changes = "member"

    name = "withdraw"
    aliases = ("棄権",)
    usage = "withdraw <member address> <lost|void|suspended> [event or season]"
    usage_ja = "棄権 <会員のアドレス> <負け|無効|保留> [大会名または期の名前]"
    # the decision in Japanese too (棄権 ADDR 負け|無効|保留), as the TD's mails offer it
    HOW: ClassVar[dict[str, str]] = {
        "lost": "lost", "void": "void", "suspended": "suspended",
        "負け": "lost", "無効": "void", "保留": "suspended"}
    HOW_JA: ClassVar[dict[str, str]] = {"lost": "負け", "void": "無効", "suspended": "保留（中断）"}

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) < 2 or args[1].lower() not in self.HOW:
            return self.misused()
        scope = " ".join(args[2:])
        args = [args[0], self.HOW[args[1].lower()]]
        member = ctx.session.scalar(select(Member).where(Member.email == args[0].lower()))
        if member is None:
            return self.refuse(Said(f"no member {args[0]}",
                                    f"アドレス {args[0]} の会員はいません"))
        how = args[1].lower()
        games = scoped_games(ctx, member, scope)
        if isinstance(games, Said):
            return self.refuse(games)
        for season in seasons_in(ctx, member, scope):
            mark_player(ctx.session, season, member, "withdrawn", ctx.now)
        for game in games:
            if how == "suspended":
                game.status = "suspended"
                game.due_at = None
                continue
            side = 0 if game.side0_id == member.id else 1
            outcome = (Outcome.loss(Termination.WITHDRAWAL_LOST, side) if how == "lost"
                       else Outcome(Termination.WITHDRAWAL_VOID, void=True))
            end_game(ctx.session, ctx.cfg, load_game(ctx.session, game, ctx.now), outcome,
                     ctx.today, ctx.now)
        return self.done(Said(f"{member.name}: {count(len(games), 'game')} {how}",
                              f"{japanese_name(member.name)}の対局 {len(games)}局を"
                              f"{self.HOW_JA[how]}としました"),
                         tuple(g.id for g in games))


@command
class Rest(Command):
    """T3 (seed 002 rule 8): a rest declared after the season's games started: 「途中休場
    した人は、全対局不戦敗の扱いとなり、降級人数に含まれるが、降級としないこととする」. Every
    game of the player's season is lost, the finished ones too (the standings count them
    so); the opponents win by default."""

    changes = "member"

    name = "rest"
    aliases = ("休場",)
    usage = "rest <member address> [season]"
    usage_ja = "休場 <会員のアドレス> [期の名前]"

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if not args:
            return self.misused()
        scope = " ".join(args[1:])
        member = ctx.session.scalar(select(Member).where(Member.email == args[0].lower()))
        if member is None:
            return self.refuse(Said(f"no member {args[0]}",
                                    f"アドレス {args[0]} の会員はいません"))
        seasons = seasons_in(ctx, member, scope)
        if not seasons:
            return self.refuse(Said(f"{member.name} plays in no running season you direct",
                                    f"{japanese_name(member.name)}が参加している進行中の期は"
                                    f"ありません"))
        ended: list[str] = []
        for season in seasons:
            mark_player(ctx.session, season, member, "rest", ctx.now)
            for game in season_games(ctx.session, season):
                if game.status not in ("active", "suspended") or \
                        member.id not in (game.side0_id, game.side1_id):
                    continue
                game.status = "active"
                side = 0 if game.side0_id == member.id else 1
                end_game(ctx.session, ctx.cfg, load_game(ctx.session, game, ctx.now),
                         Outcome.loss(Termination.WITHDRAWAL_LOST, side), ctx.today, ctx.now)
                ended.append(game.id)
        names = ", ".join(s.name for s in seasons)
        return self.done(Said(f"{member.name} rests in {names}: every game of the season "
                              f"lost ({len(ended)} ended now)",
                              f"{japanese_name(member.name)}は{names}を途中休場としました。"
                              f"この期の対局はすべて不戦敗です（終局 {len(ended)}局）"),
                         tuple(ended))


@command
class FreeGame(Command):
    """Seed 004 section 2 (対局者の意志による記録外対局(白、黒片方のみでもよい)): a go game
    either player asked to keep unrecorded: a free game, counted as played but not in the
    points or the win rate; a finished one is re-rated."""

    name = "free"
    aliases = ("記録外",)
    usage = "free <game>"
    usage_ja = "記録外 <対局ID>"

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) != 1:
            return self.misused()
        game = self.game_of(ctx, args[0])
        if isinstance(game, Done):
            return game
        rules = rules_for(game.kind)
        mark = getattr(rules, "mark_free", None)
        if mark is None:
            return self.refuse(Said(f"game {game.id} is {game.kind}: only go games are free",
                                    f"対局 {game.id} は囲碁ではありません"
                                    f"（記録外は囲碁の対局だけです）"))
        if rules.free_game(game.position):
            return self.refuse(Said(f"game {game.id} is already a free game",
                                    f"対局 {game.id} はすでに記録外の対局です"))
        game.position = str(mark(game.position))
        ctx.session.flush()
        if game.status == "finished":
            rerate_game(ctx.session, game, ctx.now)
        return self.done(Said(f"game {game.id}: a free game (not in the points)",
                              f"対局 {game.id} を記録外の対局（持点に反映しない）としました"),
                         (game.id,))


@command
class GoPoints(Command):
    """Seed 004 section 3 (公認持点は…チェアーパーソンが…決定): the salon's official go
    points for a member, as the chair sets them; the rank follows the table."""

    changes = "member"

    name = "points"
    aliases = ("持点",)
    usage = "points <member address> <official go points>"
    usage_ja = "持点 <会員のアドレス> <公認持点>"

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) != 2 or not args[1].isdigit() or not 0 <= int(args[1]) <= 1000:
            return self.misused()
        if ctx.td is not None and ctx.td != ctx.cfg.bot.td.strip().lower():
            return self.refuse(Said("only the club's TD sets official go points",
                                    "公認持点を決めるのはクラブの TD です"))
        member = ctx.session.scalar(select(Member).where(Member.email == args[0].lower()))
        if member is None:
            return self.refuse(Said(f"no member {args[0]}",
                                    f"アドレス {args[0]} の会員はいません"))
        row = set_rating(ctx.session, member, RatingInput("go", int(args[1]),
                                                          provisional=False))
        rank = go_rank_of(row)
        return self.done(Said(f"{member.name}: official go points {row.rating} "
                              f"({rank_name(rank, 'en')})",
                              f"{japanese_name(member.name)}の公認持点を {row.rating}"
                              f"（{rank_name(rank, 'ja')}）としました"))


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
        if asked is not None and not ctx.may_act(asked):
            return self.refuse(ctx.not_yours(asked))
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


_NAMES = sorted(COMMANDS, key=len, reverse=True)  # "approve leave" before shorter names
COMMAND_RE = re.compile(
    r"^(?P<cmd>" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in _NAMES)
    + r")\b\s*(?P<args>.*)$", re.IGNORECASE)
NAMES_TEXT = ", ".join(dict.fromkeys(c.name for c in COMMANDS.values()))


@dataclass(frozen=True)
class CommandLine:
    """One command line found in a text: the command, its words, the text after it."""

    command: Command
    args: list[str]
    rest: str


def command_at(line: str) -> str | None:
    """The name of the command a line holds (NFKC; English or Japanese), else None: the
    one test of a command line, used by the mail's reading and by :func:`find_commands`."""
    m = COMMAND_RE.match(unicodedata.normalize("NFKC", line).strip())
    if m is None:
        return None
    return COMMANDS[" ".join(m.group("cmd").lower().split())].name


def find_commands(text: str) -> list[CommandLine]:
    """Every command line in ``text`` (NFKC; English or Japanese names), in order."""
    lines = text.splitlines()
    found = []
    for index, line in enumerate(lines):
        m = COMMAND_RE.match(unicodedata.normalize("NFKC", line).strip())
        if m is None:
            continue
        word = " ".join(m.group("cmd").lower().split())
        found.append(CommandLine(COMMANDS[word], m.group("args").split(),
                                 "\n".join(lines[index + 1:]).strip()))
    return found


def run_commands(session: Session, cfg: Config, text: str, now: datetime,
                 reply: Callable[[list[Done]], Mail] | None = None,
                 td: str | None = None) -> list[Done]:
    """Carry out every command in ``text`` as TD ``td``; ``answer`` takes the rest."""
    ctx = Context(session, cfg, now, td)
    done = []
    for line in find_commands(text):
        done.append(line.command.run(ctx, line.args, line.rest))
        if line.command.takes_rest:
            break
    if reply is not None and done:
        emit(session, cfg, reply(done), now)
    return done


def td_mail(session: Session, cfg: Config, text: str, message_id: str, references: list[str],
            now: datetime, inbound: Inbound | None = None, td: str | None = None) -> str:
    """Carry out every command in an authenticated mail from TD ``td`` (default ``[bot]
    td``) and confirm them to that TD by mail; the mail and the confirmation go in the
    export of every game the commands acted on (J19)."""
    td = (td or cfg.bot.td).strip().lower()

    def confirm(done: list[Done]) -> Mail:
        games = tuple(gid for d in done for gid in d.games)
        if inbound is not None:
            link_games(session, games, inbound.game_id, inbound=inbound)
        return Mail(kind="td_confirm", template="confirm", audience="td", to=to_td(cfg, td),
                    lang=cfg.bot.language, context={"outcomes": done},
                    in_reply_to=message_id, references=(*references, message_id),
                    auto_submitted="auto-replied", about=games)

    return ("td_command" if run_commands(session, cfg, text, now, confirm, td)
            else "td_no_command")
