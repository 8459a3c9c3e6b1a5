"""The TD's commands for a player who stops playing: ``withdraw`` decides all their
games, lost, void or suspended (J20), and ``rest`` loses every game of their shogi league
season (T3); either within one event or season when it is named.
"""

from __future__ import annotations

from typing import ClassVar

from sqlalchemy import select

from relaybot.club.season_book import mark_player, season_classes, season_games
from relaybot.core.game import Outcome, Termination
from relaybot.core.said import Said
from relaybot.mail.wording import count
from relaybot.pipeline.lifecycle import end_game, load_game
from relaybot.pipeline.td.base import (
    Command,
    Context,
    Done,
    command,
    japanese_name,
    member_named,
)
from relaybot.store.models import Event, EventPlayer, Game, Member, Season


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
        classes = {e.name: e.id for _, e in season_classes(ctx.session, season)}
        if scope and scope != season.name and scope not in classes:
            continue
        if scope in classes and ctx.session.scalar(select(EventPlayer.id).where(
                EventPlayer.event_id == classes[scope],
                EventPlayer.member_id == member.id)) is None:
            continue  # a class named: only a player of that class (rule 8)
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
        member = member_named(ctx, args[0])
        if member is None:
            return self.refuse(Said(f"no member {args[0]}",
                                    f"アドレス {args[0]} の会員はいません"))
        how = args[1].lower()
        games = scoped_games(ctx, member, scope)
        if isinstance(games, Said):
            return self.refuse(games)
        own = [g for g in games if ctx.plays_in(g)]
        if own:  # the TD's own game against the one withdrawing would be theirs to win
            return self.refuse(ctx.own_game(own[0]))
        seasons = seasons_in(ctx, member, scope)
        if not games and not seasons:  # a typo'd address or event decides nothing (J20)
            where, where_ja = (f" in {scope}", f"{scope}に") if scope else ("", "")
            return self.refuse(Said(
                f"{member.name} has no unfinished game{where} that you direct",
                f"{japanese_name(member.name)}には{where_ja}あなたが担当する未終了の対局が"
                f"ありません"))
        for season in seasons:
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
        member = member_named(ctx, args[0])
        if member is None:
            return self.refuse(Said(f"no member {args[0]}",
                                    f"アドレス {args[0]} の会員はいません"))
        seasons = seasons_in(ctx, member, scope)
        if not seasons:
            where, where_ja = (f" ({scope})", f"（{scope}）") if scope else ("", "")
            return self.refuse(Said(f"{member.name} plays in no running season you "
                                    f"direct{where}",
                                    f"{japanese_name(member.name)}が参加している進行中の期は"
                                    f"ありません{where_ja}"))
        own = [g for season in seasons for g in season_games(ctx.session, season)
               if member.id in (g.side0_id, g.side1_id) and ctx.plays_in(g)]
        if own:  # every game against the one resting is won: the TD's own among them
            return self.refuse(ctx.own_game(own[0]))
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
