"""The go salon's TD commands (seed 004): ``free`` keeps a game out of the points, and
``points`` sets a member's official go points.
"""

from __future__ import annotations

from relaybot.club.rating_book import RatingInput, go_rank_of, rerate_game, set_rating
from relaybot.core.ratings import rank_name
from relaybot.core.said import Said
from relaybot.games import rules_for
from relaybot.pipeline.td.base import (
    Command,
    Context,
    Done,
    command,
    japanese_name,
    member_named,
)


@command
class FreeGame(Command):
    """Seed 004 section 2 (対局者の意志による記録外対局(白、黒片方のみでもよい)): a go game
    either player asked to keep unrecorded: a free game, counted as played but not in the
    points or the win rate; a finished one is re-rated."""

    name = "free"
    aliases = ("記録外",)
    game_first = True
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
        member = member_named(ctx, args[0])
        if member is None:
            return self.refuse(Said(f"no member {args[0]}",
                                    f"アドレス {args[0]} の会員はいません"))
        if member.id == ctx.td_member_id:
            return self.refuse(ctx.own_member())
        row = set_rating(ctx.session, member, RatingInput("go", int(args[1]),
                                                          provisional=False))
        rank = go_rank_of(row)
        return self.done(Said(f"{member.name}: official go points {row.rating} "
                              f"({rank_name(rank, 'en')})",
                              f"{japanese_name(member.name)}の公認持点を {row.rating}"
                              f"（{rank_name(rank, 'ja')}）としました"))
